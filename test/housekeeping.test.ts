/**
 * Housekeeping over every store: only what has expired goes, in batches, and the job stands aside
 * while another unit holds it. Its schedule is tested with fake timers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  FINISHED_HISTORY_KEEP_SECONDS,
  Housekeeping,
  HOUSEKEEPING_JOB,
  ORPHAN_BLOB_GRACE_SECONDS,
  scheduleHousekeeping,
  type PurgeReport,
} from '../src/app/housekeeping.js';
import { FixedClock, type Media, type NewPost, type RefreshToken, type Store } from '../src/domain/index.js';
import { describeOnEveryStore } from './support/stores.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const ahead = (ms: number) => new Date(NOW.getTime() + ms);
const MINUTE = 60_000;
const DAY = 86_400_000;

function token(n: number, overrides: Partial<RefreshToken>): RefreshToken {
  return {
    id: `01JX0000000000000000000${String(n).padStart(3, '0')}`,
    familyId: '01JX00000000000000000FAMLY',
    userId: '01JX00000000000000000USER1',
    tokenHash: `hash-${n}`,
    createdAt: ago(DAY),
    expiresAt: ahead(DAY),
    consumedAt: null,
    revokedAt: null,
    replay: null,
    sessionVersion: 0,
    ...overrides,
  };
}

/** Expired and live rows of every kind the job looks after. */
async function seed(store: Store): Promise<void> {
  const claim = async (key: string, expiresAt: Date, complete: boolean) => {
    const claimedAt = ago(2 * DAY);
    await store.idempotency.claim({ userId: 'u1', key, fingerprint: `f-${key}`, now: claimedAt, leaseMs: 30_000, expiresAt });
    if (complete) await store.idempotency.complete('u1', key, claimedAt, { status: 201, headers: {}, body: '{}' });
  };
  for (let i = 0; i < 5; i++) await claim(`expired-${i}`, ago(MINUTE + i), true);
  await claim('abandoned', ago(1), false);
  await claim('live', ahead(MINUTE), true);

  for (let i = 0; i < 4; i++) await store.loginAttempts.recordFailure('ada@example.com', ago(16 * MINUTE + i));
  await store.loginAttempts.recordFailure('ada@example.com', ago(MINUTE));

  await store.refreshTokens.insert(token(1, { expiresAt: ago(1) }));
  await store.refreshTokens.insert(token(2, { revokedAt: ago(MINUTE) }));
  await store.refreshTokens.insert(token(3, { consumedAt: ago(MINUTE), replay: 'old sealed answer' }));
  await store.refreshTokens.insert(token(4, { consumedAt: ago(5_000), replay: 'fresh sealed answer' }));
  await store.refreshTokens.insert(token(5, {}));

  await store.rateLimits.hit('content:10.0.0.1', ago(2 * MINUTE), MINUTE);
  await store.rateLimits.hit('content:10.0.0.2', ago(MINUTE), MINUTE);
  await store.rateLimits.hit('content:10.0.0.3', ago(1), MINUTE);
}

function housekeeping(store: Store, batchSize: number): Housekeeping {
  return new Housekeeping({
    unitOfWork: store.unitOfWork,
    clock: new FixedClock(NOW),
    batchSize,
    loginWindowSeconds: 15 * 60,
    refreshGraceSeconds: 10,
  });
}

describeOnEveryStore('housekeeping', (make) => {
  it('deletes only what has expired, in rounds of batchSize rows per table, and reports the counts', async () => {
    const store = await make();
    await seed(store);
    const report = await housekeeping(store, 2).runOnce();
    expect(report).toEqual({
      ran: true,
      idempotencyKeys: 6,
      loginAttempts: 4,
      refreshTokens: 2,
      refreshReplays: 1,
      rateLimitWindows: 2,
      orphanBlobs: 0,
      webhookDeliveries: 0,
      previewLinks: 0,
    });

    for (let i = 0; i < 5; i++)
      expect(
        (
          await store.idempotency.claim({
            userId: 'u1',
            key: `expired-${i}`,
            fingerprint: 'other',
            now: NOW,
            leaseMs: 1,
            expiresAt: ahead(DAY),
          })
        ).outcome,
      ).toBe('claimed');
    expect(await store.idempotency.read('u1', 'live')).toEqual({ status: 201, headers: {}, body: '{}' });
    expect(await store.loginAttempts.failuresSince('ada@example.com', ago(DAY))).toEqual({ count: 1, oldest: ago(MINUTE) });
    expect(await store.refreshTokens.find('hash-1')).toBeNull();
    expect(await store.refreshTokens.find('hash-2')).toBeNull();
    expect(await store.refreshTokens.find('hash-3')).toMatchObject({ replay: null, consumedAt: ago(MINUTE) });
    expect(await store.refreshTokens.find('hash-4')).toMatchObject({ replay: 'fresh sealed answer' });
    expect(await store.refreshTokens.find('hash-5')).not.toBeNull();
    // The window still running counts on; an ended one starts anew.
    expect((await store.rateLimits.hit('content:10.0.0.3', NOW, MINUTE)).hits).toBe(2);
    expect((await store.rateLimits.hit('content:10.0.0.2', NOW, MINUTE)).hits).toBe(1);

    // A second run finds nothing left to do.
    expect(await housekeeping(store, 2).runOnce()).toEqual({
      ran: true,
      idempotencyKeys: 0,
      loginAttempts: 0,
      refreshTokens: 0,
      refreshReplays: 0,
      rateLimitWindows: 0,
      orphanBlobs: 0,
      webhookDeliveries: 0,
      previewLinks: 0,
    });
  });

  it('does nothing while another unit holds the housekeeping job', async () => {
    const store = await make();
    await seed(store);
    let release!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const holder = store.unitOfWork.runExclusive(HOUSEKEEPING_JOB, async () => {
      entered();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await inside;
    const report = await housekeeping(store, 100).runOnce();
    release();
    await holder;
    expect(report).toEqual({
      ran: false,
      idempotencyKeys: 0,
      loginAttempts: 0,
      refreshTokens: 0,
      refreshReplays: 0,
      rateLimitWindows: 0,
      orphanBlobs: 0,
      webhookDeliveries: 0,
      previewLinks: 0,
    });
    expect((await store.refreshTokens.find('hash-1'))?.id).toBeDefined();
  });
});

/** A media record naming `names` (its id 26 letters of `letter`). */
function mediaNaming(letter: string, names: string[]): Media {
  const file = (name: string) => ({
    name,
    contentType: 'image/png' as const,
    width: 10,
    height: 10,
    bytes: 1,
    sha256: `${letter}-${name}`.padEnd(64, '0'),
  });
  return {
    id: letter.repeat(26),
    contentType: 'image/png',
    width: 10,
    height: 10,
    bytes: 1,
    sha256: letter.repeat(64),
    sourceSha256: letter.repeat(64),
    alt: '',
    caption: '',
    createdAt: new Date(),
    files: names.map(file),
  };
}

function sweeping(store: Store, now: Date, page: { batchSize: number; maxRounds?: number }): Housekeeping {
  return new Housekeeping({
    unitOfWork: store.unitOfWork,
    clock: new FixedClock(now),
    loginWindowSeconds: 15 * 60,
    refreshGraceSeconds: 10,
    orphanBlobs: { media: store.media, blobs: store.blobs, graceSeconds: ORPHAN_BLOB_GRACE_SECONDS },
    ...page,
  });
}

const HOUR = 3_600_000;
const one = Uint8Array.from([1]);

describeOnEveryStore('housekeeping of media files', (make) => {
  /** A media with two files, the bytes of a third it does not name, a deleted media's file and a key outside media/. */
  async function seedFiles(store: Store): Promise<{ kept: string[]; orphans: string[] }> {
    const a = mediaNaming('a', ['original.png', '320.webp']);
    await store.media.create(a);
    const kept = [`media/${a.id}/320.webp`, `media/${a.id}/original.png`, 'other/file'];
    const orphans = [`media/${a.id}/640.webp`, `media/${'b'.repeat(26)}/original.png`, 'media/stray'];
    for (const key of [...kept, ...orphans]) await store.blobs.put(key, one, 'image/png');
    return { kept, orphans };
  }

  it('deletes the media files no media names once put over an hour ago, and only those', async () => {
    const store = await make();
    const { kept, orphans } = await seedFiles(store);
    // Put just now: an upload may be about to create their record.
    expect((await sweeping(store, new Date(Date.now() + HOUR - 60_000), { batchSize: 100 }).runOnce()).orphanBlobs).toBe(0);
    expect(await store.blobs.keys('', 100)).toEqual([...kept, ...orphans].sort());

    expect((await sweeping(store, new Date(Date.now() + HOUR + 60_000), { batchSize: 100 }).runOnce()).orphanBlobs).toBe(3);
    expect(await store.blobs.keys('', 100)).toEqual([...kept].sort());
  });

  it('reads at most maxRounds pages of batchSize keys a run, the next run going on where it stopped', async () => {
    const store = await make();
    await seedFiles(store);
    const job = sweeping(store, new Date(Date.now() + 2 * HOUR), { batchSize: 1, maxRounds: 2 });
    // Keys in order: media/aaa…/320.webp, 640.webp, original.png, media/bbb…/original.png, media/stray.
    expect((await job.runOnce()).orphanBlobs).toBe(1); // 320.webp, 640.webp
    expect((await job.runOnce()).orphanBlobs).toBe(1); // original.png, bbb…
    expect((await job.runOnce()).orphanBlobs).toBe(1); // stray, then past the last
    expect(await store.blobs.keys('media/', 100)).toEqual([`media/${'a'.repeat(26)}/320.webp`, `media/${'a'.repeat(26)}/original.png`]);
    // From the first key again: nothing left to delete.
    expect((await job.runOnce()).orphanBlobs).toBe(0);
  });

  it('leaves the files alone while another unit holds the housekeeping job', async () => {
    const store = await make();
    await seedFiles(store);
    let release!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const holder = store.unitOfWork.runExclusive(HOUSEKEEPING_JOB, async () => {
      entered();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await inside;
    const report = await sweeping(store, new Date(Date.now() + 2 * HOUR), { batchSize: 100 }).runOnce();
    release();
    await holder;
    expect(report).toMatchObject({ ran: false, orphanBlobs: 0 });
    expect(await store.blobs.keys('', 100)).toHaveLength(6);
  });
});

describeOnEveryStore('housekeeping of webhook deliveries and preview links', (make) => {
  const OLD = ago(FINISHED_HISTORY_KEEP_SECONDS * 1000 + DAY);
  const post = (n: number, createdAt: Date): NewPost => ({
    id: `01JX00000000000000000POST${n}`,
    title: `Post ${n}`,
    slug: `post-${n}`,
    excerpt: '',
    body: 'Body',
    tags: [],
    status: 'published',
    wordCount: 1,
    createdAt,
    publishedAt: createdAt,
    publishAt: null,
  });

  it('forgets deliveries settled and preview links dead longer ago than the history keeps, and nothing else', async () => {
    const store = await make();
    await store.webhooks.create({
      id: '01JX00000000000000000HOOK1',
      url: 'https://hooks.example.com/build',
      events: ['post.published'],
      description: '',
      enabled: true,
      disabledReason: null,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      previousSecret: null,
      createdAt: OLD,
      updatedAt: OLD,
    });
    // An old delivery that succeeded, an old one still pending, and a recent one that succeeded.
    await store.posts.create(post(1, OLD));
    await store.posts.create(post(2, OLD));
    const settle = async (postId: string) => {
      const [claimed] = await store.webhooks.claim(NOW, 15_000, 1, 1);
      expect(claimed?.event.postId).toBe(postId);
      await store.webhooks.settle(claimed!, { at: NOW, ok: true, responseStatus: 204, error: null, latencyMs: 3, retryAt: null });
    };
    await settle(post(1, OLD).id);
    await store.posts.create(post(3, ago(DAY)));
    await settle(post(2, OLD).id);
    await settle(post(3, OLD).id);
    await store.posts.create(post(4, OLD)); // pending, never claimed

    await store.posts.create({ ...post(5, OLD), status: 'draft', publishedAt: null });
    const link = (n: number, expiresAt: Date, revokedAt: Date | null) => ({
      id: `01JX00000000000000000LINK${n}`,
      postId: post(5, OLD).id,
      tokenHash: String(n).repeat(64),
      createdAt: OLD,
      expiresAt,
      revokedAt,
    });
    await store.previewLinks.create(link(1, OLD, null));
    await store.previewLinks.create(link(2, ahead(DAY), OLD));
    await store.previewLinks.create(link(3, ahead(DAY), null));
    await store.previewLinks.create(link(4, ago(DAY), null));

    const job = new Housekeeping({
      unitOfWork: store.unitOfWork,
      clock: new FixedClock(NOW),
      batchSize: 1,
      loginWindowSeconds: 15 * 60,
      refreshGraceSeconds: 10,
      history: { webhooks: store.webhooks, previewLinks: store.previewLinks, keepSeconds: FINISHED_HISTORY_KEEP_SECONDS },
    });
    expect(await job.runOnce()).toMatchObject({ ran: true, webhookDeliveries: 2, previewLinks: 2 });

    const left = await store.webhooks.deliveries('01JX00000000000000000HOOK1', { limit: 10 });
    // Newest first: the recent delivery, then the old pending one.
    expect(left.items.map((d) => [d.postId, d.status])).toEqual([
      [post(3, OLD).id, 'succeeded'],
      [post(4, OLD).id, 'pending'],
    ]);
    expect((await store.previewLinks.listForPost(post(5, OLD).id, { limit: 10 })).items.map((l) => l.id).sort()).toEqual([
      link(3, NOW, null).id,
      link(4, NOW, null).id,
    ]);
  });
});

describe('scheduleHousekeeping', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const done: PurgeReport = {
    ran: true,
    idempotencyKeys: 3,
    loginAttempts: 0,
    refreshTokens: 1,
    refreshReplays: 0,
    rateLimitWindows: 0,
    orphanBlobs: 0,
    webhookDeliveries: 0,
    previewLinks: 0,
  };

  it('runs every interval, logs what each run removed and goes on after a failed run', async () => {
    vi.useFakeTimers();
    const runOnce = vi
      .fn<() => Promise<PurgeReport>>()
      .mockResolvedValueOnce(done)
      .mockRejectedValueOnce(new Error('database away'))
      .mockResolvedValue(done);
    const log = { info: vi.fn(), warn: vi.fn() };
    const stop = scheduleHousekeeping({ runOnce }, 60_000, log);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(runOnce).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(runOnce).toHaveBeenCalledTimes(1);
    expect(log.info).toHaveBeenCalledWith('housekeeping', done);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(log.warn).toHaveBeenCalledWith('housekeeping failed', { error: expect.any(Error) });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runOnce).toHaveBeenCalledTimes(3);
    await stop();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(runOnce).toHaveBeenCalledTimes(3);
  });

  it('skips a tick while the previous run is still going, and stop waits for it', async () => {
    vi.useFakeTimers();
    let finish!: (report: PurgeReport) => void;
    const runOnce = vi.fn(() => new Promise<PurgeReport>((resolve) => (finish = resolve)));
    const stop = scheduleHousekeeping({ runOnce }, 1000, { info: vi.fn(), warn: vi.fn() });
    await vi.advanceTimersByTimeAsync(5000);
    expect(runOnce).toHaveBeenCalledTimes(1);
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish(done);
    await stopping;
    expect(stopped).toBe(true);
  });
});
