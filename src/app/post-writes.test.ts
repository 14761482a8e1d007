import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../adapters/memory/store.js';
import {
  FixedClock,
  NotFoundError,
  PreconditionFailedError,
  SequentialIds,
  ValidationError,
  VersionConflictError,
  type ChangeRecord,
  type Media,
  type Post,
  type PostChanges,
  type PostRepository,
  type Store,
  type UpdateRecord,
} from '../domain/index.js';
import { createPostUseCases } from './post-use-cases.js';
import type { NewPostInput } from './post-writes.js';

const actor = { id: 'U1', name: 'Ada' };
const input = { title: 'Hello', excerpt: '', body: 'One two three.', tags: ['News'], status: 'draft' as const };

const clock = new FixedClock(new Date('2026-01-01T00:00:00.000Z'));
/** One id sequence for every use case of a test file: the racing writers share the store. */
const ids = new SequentialIds(1);

function useCases(store: Store) {
  return createPostUseCases({ store, clock, ids, idempotency: { leaseMs: 30_000, ttlMs: 86_400_000 } });
}

async function created(posts: ReturnType<typeof useCases>, fields: Partial<NewPostInput> = {}): Promise<Post> {
  const outcome = await posts.writes.create({ ...input, ...fields }, actor);
  if (outcome.replayed) throw new Error('a create without a key never replays');
  return outcome.result;
}

/**
 * A store whose first recorded write loses a race the way PostgreSQL makes it lose one: it finds
 * the post moved on (`VersionConflictError`) because `interfere` committed meanwhile. `attempts`
 * counts the recorded writes tried.
 */
function racingStore(inner: Store, interfere: (store: Store) => Promise<void>): Store & { attempts: number } {
  const lose = async (expectedVersion: number): Promise<never> => {
    await interfere(inner);
    throw new VersionConflictError(expectedVersion, null);
  };
  const posts: PostRepository = new Proxy(inner.posts, {
    get: (target, name) => {
      if (name === 'updateRecorded') {
        return (before: Post, ...rest: [PostChanges, UpdateRecord]) =>
          ++racing.attempts > 1 ? target.updateRecorded(before, ...rest) : lose(before.version);
      }
      if (name === 'deleteRecorded') {
        return (id: string, expectedVersion: number, record: ChangeRecord) =>
          ++racing.attempts > 1 ? target.deleteRecorded(id, expectedVersion, record) : lose(expectedVersion);
      }
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const racing: Store & { attempts: number } = { ...inner, posts, attempts: 0 };
  return racing;
}

describe('post writes', () => {
  it('fails a stale If-Match with PreconditionFailedError carrying the post as it is', async () => {
    const posts = useCases(createMemoryStore());
    const post = await created(posts);
    const edited = await posts.writes.update(post.id, [1], { title: 'Edited' }, actor);

    const stale = posts.writes.update(post.id, [1], { title: 'Again' }, actor);

    await expect(stale).rejects.toBeInstanceOf(PreconditionFailedError);
    const error = (await stale.catch((e: unknown) => e)) as PreconditionFailedError;
    expect(error.expected).toEqual([1]);
    expect(error.current).toEqual(edited);
  });

  it('answers a missing post with NotFoundError before looking at If-Match', async () => {
    const posts = useCases(createMemoryStore());
    await expect(posts.writes.update('01ARZ3NDEKTSV4RRFFQ69G5FAV', [7], { title: 'x' }, actor)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('fails a write that lost a race with the post as the winner left it', async () => {
    const inner = createMemoryStore();
    const posts = useCases(inner);
    const post = await created(posts);
    const store = racingStore(inner, async () => {
      await useCases(inner).writes.update(post.id, [1], { title: 'Winner' }, actor);
    });

    const loser = useCases(store).writes.update(post.id, [1], { title: 'Loser' }, actor);

    const error = (await loser.catch((e: unknown) => e)) as PreconditionFailedError;
    expect(error).toBeInstanceOf(PreconditionFailedError);
    expect(error.current).toMatchObject({ title: 'Winner', version: 2 });
    expect(store.attempts).toBe(1);
  });

  it('retries a write with If-Match * that lost a race, on the post as it is now', async () => {
    const inner = createMemoryStore();
    const posts = useCases(inner);
    const post = await created(posts);
    const store = racingStore(inner, async () => {
      await useCases(inner).writes.update(post.id, '*', { excerpt: 'By the winner' }, actor);
    });

    const after = await useCases(store).writes.update(post.id, '*', { title: 'Retried' }, actor);

    expect(after).toMatchObject({ title: 'Retried', excerpt: 'By the winner', version: 3 });
    expect(store.attempts).toBe(2);
  });

  it('retries a lost race while the post as it is now is still one of the versions If-Match lists', async () => {
    const inner = createMemoryStore();
    const post = await created(useCases(inner));
    const store = racingStore(inner, async () => {
      await useCases(inner).writes.update(post.id, [1], { excerpt: 'By the winner' }, actor);
    });

    const after = await useCases(store).writes.update(post.id, [1, 2], { title: 'Either' }, actor);

    expect(after).toMatchObject({ title: 'Either', excerpt: 'By the winner', version: 3 });
    expect(store.attempts).toBe(2);
  });

  it('answers NotFoundError when the race was lost to a delete', async () => {
    const inner = createMemoryStore();
    const posts = useCases(inner);
    const post = await created(posts);
    const store = racingStore(inner, async () => {
      await useCases(inner).writes.delete(post.id, [1], actor);
    });

    await expect(useCases(store).writes.update(post.id, [1], { title: 'Late' }, actor)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('reports every unstorable field and bad tag of a create at once, pointing into the input', async () => {
    const posts = useCases(createMemoryStore());
    const bad = posts.writes.create({ ...input, title: 'a\u0000b', body: '\ud800', tags: ['ok', ''] }, actor);

    const error = (await bad.catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.source).toBe('input');
    expect(error.issues.map((i) => i.pointer)).toEqual(['/title', '/body', '/tags/1']);
  });
});

/** A media of the library with this alt text (its hashes unique to its id). */
async function storedMedia(store: Store, id: string, alt: string): Promise<Media> {
  const sha256 = Buffer.from(id).toString('hex').padEnd(64, '0').slice(0, 64);
  const file = { name: 'original.png', contentType: 'image/png' as const, width: 40, height: 30, bytes: 99, sha256 };
  const media: Media = { ...file, id, sourceSha256: sha256, alt, caption: '', createdAt: clock.now(), files: [file] };
  return (await store.media.create(media)).media;
}

const HARBOUR = 'harbourharbourharbourharbo';
const FIELD = 'fieldfieldfieldfieldfieldf';
const NONE = { title: null, description: null, canonicalUrl: null };

describe('post writes: cover image and SEO fields', () => {
  it('creates a post with a cover whose alt text defaults to the media’s, and SEO fields whose empty strings are none', async () => {
    const store = createMemoryStore();
    await storedMedia(store, HARBOUR, 'A harbour at dawn');
    const posts = useCases(store);
    const post = await created(posts, {
      coverImage: { mediaId: HARBOUR },
      seo: { title: 'For search', description: '', canonicalUrl: 'https://example.com/a' },
    });
    expect(post.coverImage).toStrictEqual({ mediaId: HARBOUR, alt: 'A harbour at dawn' });
    expect(post.seo).toStrictEqual({ title: 'For search', description: null, canonicalUrl: 'https://example.com/a' });
    expect(await store.posts.get(post.id)).toStrictEqual(post);
    expect(await store.revisions.get(post.id, 1)).toMatchObject({ coverImage: post.coverImage, seo: post.seo });
    expect((await created(posts, { coverImage: { mediaId: HARBOUR, alt: '' } })).coverImage).toStrictEqual({ mediaId: HARBOUR, alt: '' });
    const bare = await created(posts);
    expect([bare.coverImage, bare.seo]).toStrictEqual([null, NONE]);
  });

  it('refuses a cover naming no media with a ValidationError at /coverImage/mediaId, on a create and on an edit, and writes nothing', async () => {
    const store = createMemoryStore();
    const posts = useCases(store);
    const refused = (await posts.writes
      .create({ ...input, coverImage: { mediaId: HARBOUR } }, actor)
      .catch((e: unknown) => e)) as ValidationError;
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused.issues).toStrictEqual([{ pointer: '/coverImage/mediaId', message: 'names no media' }]);
    expect((await store.posts.list({ sort: { key: 'createdAt', direction: 'asc' }, limit: 10 })).total).toBe(0);
    const post = await created(posts);
    const edit = posts.writes.update(post.id, [1], { title: 'New', coverImage: { mediaId: FIELD, alt: 'x' } }, actor);
    expect(((await edit.catch((e: unknown) => e)) as ValidationError).issues.map((i) => i.pointer)).toStrictEqual(['/coverImage/mediaId']);
    expect(await store.posts.get(post.id)).toStrictEqual(post);
  });

  it('reports bad SEO fields and a too-long alt text with the other fields of a write, at once', async () => {
    const posts = useCases(createMemoryStore());
    const bad = posts.writes.create(
      {
        ...input,
        title: 'a\u0000',
        seo: { title: 't'.repeat(201), canonicalUrl: 'ftp://example.com/' },
        coverImage: { mediaId: HARBOUR, alt: 'a'.repeat(1001) },
      },
      actor,
    );
    const error = (await bad.catch((e: unknown) => e)) as ValidationError;
    expect(error.issues.map((i) => i.pointer)).toEqual(['/title', '/seo/title', '/seo/canonicalUrl', '/coverImage/alt']);
  });

  it('an edit of the cover or of some SEO fields alone is an updated write with a revision; the fields it leaves out keep their value', async () => {
    const store = createMemoryStore();
    await storedMedia(store, HARBOUR, 'A harbour');
    await storedMedia(store, FIELD, 'A field');
    const posts = useCases(store);
    const v1 = await created(posts, { coverImage: { mediaId: HARBOUR }, seo: { title: 'T', description: 'D' } });
    const v2 = await posts.writes.update(v1.id, [1], { coverImage: { mediaId: FIELD } }, actor);
    expect(v2).toMatchObject({
      version: 2,
      coverImage: { mediaId: FIELD, alt: 'A field' },
      seo: { title: 'T', description: 'D', canonicalUrl: null },
    });
    const v3 = await posts.writes.update(v1.id, [2], { seo: { description: null, canonicalUrl: 'https://example.com/first' } }, actor);
    expect(v3).toMatchObject({
      version: 3,
      coverImage: v2.coverImage,
      seo: { title: 'T', description: null, canonicalUrl: 'https://example.com/first' },
    });
    const v4 = await posts.writes.update(v1.id, [3], { coverImage: null, seo: { title: '' } }, actor);
    expect([v4.version, v4.coverImage, v4.seo]).toStrictEqual([4, null, { ...NONE, canonicalUrl: 'https://example.com/first' }]);
    const page = await posts.queries.listRevisions(v1.id, { limit: 10 });
    expect(page.items.map((r) => r.changed)).toStrictEqual([['coverImage', 'seo'], ['seo'], ['coverImage'], []]);
    const events = await posts.queries.listActivity({ postId: v1.id, limit: 10 });
    expect(events.items.map((e) => e.type)).toStrictEqual(['updated', 'updated', 'updated', 'created']);
  });

  it('restoring a revision restores its cover and SEO fields', async () => {
    const store = createMemoryStore();
    await storedMedia(store, HARBOUR, 'A harbour');
    const posts = useCases(store);
    const v1 = await created(posts, { coverImage: { mediaId: HARBOUR }, seo: { title: 'First' } });
    await posts.writes.update(v1.id, [1], { coverImage: null, seo: { title: null, canonicalUrl: 'https://example.com/' } }, actor);
    const restored = await posts.writes.restore(v1.id, 1, [2], actor);
    expect([restored.version, restored.coverImage, restored.seo]).toStrictEqual([3, v1.coverImage, v1.seo]);
    expect((await posts.queries.listRevisions(v1.id, { limit: 1 })).items[0]?.changed).toStrictEqual(['coverImage', 'seo']);
  });
});

describe('post queries', () => {
  it('points a bad filter into the query, q and tag together', async () => {
    const posts = useCases(createMemoryStore());
    const list = posts.queries.list({ q: 'a\nb', tag: ' ', sort: { key: 'updatedAt', direction: 'desc' }, limit: 20, cursor: null });

    const error = (await list.catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.source).toBe('query');
    expect(error.issues.map((i) => i.pointer)).toEqual(['/q', '/tag']);
  });
});
