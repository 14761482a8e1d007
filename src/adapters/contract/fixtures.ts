import { afterEach, beforeEach } from 'vitest';
import type { Post, PostStatus } from '../../domain/post.js';
import type { NewPost } from '../../domain/ports/post-repository.js';
import { revisionOf as revisionFor, type Actor, type Revision } from '../../domain/ports/revision-repository.js';
import type { Store } from '../../domain/ports/store.js';

/** Returns a fresh, empty store; the suites close it after each test. */
export type MakeStore = () => Promise<Store>;

/** Opens a fresh store before each test and closes it after; call inside a `describe`. */
export function useStore(make: MakeStore): () => Store {
  let store: Store | undefined;
  beforeEach(async () => {
    store = await make();
  });
  afterEach(async () => {
    const s = store;
    store = undefined;
    await s?.close();
  });
  return () => {
    if (store === undefined) throw new Error('The store is only available inside a test.');
    return store;
  };
}

/** A ULID-shaped id; ids sort (in byte order) by `n`. */
export function ulid(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 9999) throw new RangeError(`ulid(${n})`);
  return `01JAAAAAAAAAAAAAAAAAAA${String(n).padStart(4, '0')}`;
}

/** 2026-03-04T05:00:07.891Z plus `minutes`: arbitrary milliseconds, equal inputs equal instants. */
export function minute(minutes: number): Date {
  return new Date(Date.UTC(2026, 2, 4, 5, minutes, 7, 891));
}

export const ADA: Actor = { id: ulid(9000), name: 'Ada Lovelace' };

/** A post to create; it has no cover and no SEO fields unless `overrides` give them. */
export function newPost(n: number, overrides: Partial<NewPost> = {}): NewPost & Pick<Post, 'coverImage' | 'seo'> {
  const status: PostStatus = overrides.status ?? 'draft';
  return {
    id: ulid(n),
    title: `Post ${n}`,
    slug: `post-${n}`,
    excerpt: '',
    body: '',
    tags: [],
    status,
    wordCount: 0,
    createdAt: minute(n % 60),
    publishedAt: status === 'published' ? minute(n % 60) : null,
    publishAt: null,
    coverImage: null,
    seo: { title: null, description: null, canonicalUrl: null },
    ...overrides,
  };
}

export function revisionOf(post: Post, overrides: Partial<Revision> = {}): Revision {
  return { ...revisionFor(post, ADA), ...overrides };
}

/** The error a promise rejects with; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('Expected the promise to reject, but it resolved.');
}

/** Lets pending work that does not wait for a lock run to completion. */
export function settle(ms = 20): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function times<T>(n: number, f: (i: number) => T): T[] {
  return Array.from({ length: n }, (_, i) => f(i));
}
