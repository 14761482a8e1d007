import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryStore } from '../adapters/memory/store.js';
import { createUlidIds } from '../adapters/system/ulid-ids.js';
import { FixedClock, type NewPost, type Post, type Store } from '../domain/index.js';
import { History } from './history.js';
import { schedulePublishing, ScheduledPublishing } from './scheduled-publishing.js';

const T0 = new Date('2026-12-01T09:00:00.000Z');

function scheduled(n: number, dueMs: number): NewPost {
  return {
    id: `01JSCHEDULED00000000000${String(n).padStart(3, '0')}`,
    title: `Post ${n}`,
    slug: `post-${n}`,
    excerpt: '',
    body: '',
    tags: [],
    status: 'draft',
    wordCount: 0,
    createdAt: T0,
    publishedAt: null,
    publishAt: new Date(T0.getTime() + dueMs),
  };
}

function publishingOver(store: Store, clock: FixedClock, batchSize: number, maxRounds?: number) {
  const history = new History(createUlidIds(clock), clock);
  return new ScheduledPublishing({ unitOfWork: store.unitOfWork, clock, history, batchSize, ...(maxRounds ? { maxRounds } : {}) });
}

describe('ScheduledPublishing', () => {
  it('publishes every due draft in batches, in rounds until a batch is not full, and leaves later ones', async () => {
    const store = createMemoryStore();
    for (let n = 1; n <= 5; n += 1) await store.posts.create(scheduled(n, n * 1000));
    await store.posts.create(scheduled(6, 60_000));
    const clock = new FixedClock(new Date(T0.getTime() + 5000));
    const report = await publishingOver(store, clock, 2).runOnce();
    expect(report.ran).toBe(true);
    expect(report.published.map((p) => p.slug)).toEqual(['post-1', 'post-2', 'post-3', 'post-4', 'post-5']);
    expect((await store.posts.get(scheduled(6, 0).id))?.status).toBe('draft');
    const events = await store.activity.list({ type: 'published', limit: 10 });
    expect(events.items).toHaveLength(5);
    expect(events.items.every((e) => e.actor.id === 'system' && e.actor.name === 'Scheduler')).toBe(true);
  });

  it('stops after maxRounds, leaving the rest for the next run', async () => {
    const store = createMemoryStore();
    for (let n = 1; n <= 5; n += 1) await store.posts.create(scheduled(n, 0));
    const job = publishingOver(store, new FixedClock(T0), 2, 1);
    expect((await job.runOnce()).published).toHaveLength(2);
    expect((await job.runOnce()).published).toHaveLength(2);
  });

  it('does nothing while another unit holds the job', async () => {
    const store = createMemoryStore();
    await store.posts.create(scheduled(1, 0));
    const job = publishingOver(store, new FixedClock(T0), 10);
    let release!: () => void;
    const held = store.unitOfWork.runExclusive('publish-scheduled', () => new Promise<void>((resolve) => (release = resolve)));
    await vi.waitFor(() => expect(release).toBeTypeOf('function'));
    expect(await job.runOnce()).toEqual({ published: [], ran: false });
    release();
    await held;
    expect((await job.runOnce()).published).toHaveLength(1);
  });

  it('refuses a batch size that is not a positive integer', () => {
    const store = createMemoryStore();
    expect(() => publishingOver(store, new FixedClock(T0), 0)).toThrow(RangeError);
  });
});

describe('schedulePublishing', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs the job every interval, logs each post it published and reports every run', async () => {
    vi.useFakeTimers();
    const post = { id: 'P1', slug: 'p-1', version: 2 } as Post;
    const runOnce = vi
      .fn()
      .mockResolvedValueOnce({ published: [post], ran: true })
      .mockResolvedValue({ published: [], ran: true });
    const log = { info: vi.fn(), warn: vi.fn() };
    const onReport = vi.fn();
    const stop = schedulePublishing({ runOnce }, 1000, log, onReport);
    await vi.advanceTimersByTimeAsync(999);
    expect(runOnce).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2001);
    expect(runOnce).toHaveBeenCalledTimes(3);
    expect(onReport.mock.calls.map(([report]) => (report as { published: Post[] }).published.length)).toEqual([1, 0, 0]);
    expect(log.info).toHaveBeenCalledTimes(1);
    expect(log.info).toHaveBeenCalledWith('published a scheduled post', { postId: 'P1', slug: 'p-1', version: 2 });
    await stop();
  });

  it('logs a failed run and runs again on time', async () => {
    vi.useFakeTimers();
    const runOnce = vi.fn().mockRejectedValueOnce(new Error('database down')).mockResolvedValue({ published: [], ran: true });
    const log = { info: vi.fn(), warn: vi.fn() };
    const stop = schedulePublishing({ runOnce }, 1000, log);
    await vi.advanceTimersByTimeAsync(2000);
    expect(log.warn).toHaveBeenCalledWith('scheduled publishing failed', { error: expect.any(Error) });
    expect(runOnce).toHaveBeenCalledTimes(2);
    await stop();
  });
});
