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
  type Post,
  type PostChanges,
  type PostRepository,
  type Store,
  type UpdateRecord,
} from '../domain/index.js';
import { createPostUseCases } from './post-use-cases.js';

const actor = { id: 'U1', name: 'Ada' };
const input = { title: 'Hello', excerpt: '', body: 'One two three.', tags: ['News'], status: 'draft' as const };

const clock = new FixedClock(new Date('2026-01-01T00:00:00.000Z'));
/** One id sequence for every use case of a test file: the racing writers share the store. */
const ids = new SequentialIds(1);

function useCases(store: Store) {
  return createPostUseCases({ store, clock, ids, idempotency: { leaseMs: 30_000, ttlMs: 86_400_000 } });
}

async function created(posts: ReturnType<typeof useCases>): Promise<Post> {
  const outcome = await posts.writes.create(input, actor);
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
