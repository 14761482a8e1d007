import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../adapters/memory/store.js';
import { FixedClock, type Media, type NewPost, type Store } from '../domain/index.js';
import { ContentQueries } from './content-queries.js';

const NOW = new Date('2026-12-01T09:00:00.000Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

function post(id: string, overrides: Partial<NewPost> = {}): NewPost {
  return {
    id,
    title: id,
    slug: id.toLowerCase(),
    excerpt: '',
    body: `body of ${id}`,
    tags: [],
    status: 'published',
    wordCount: 3,
    createdAt: at(-100),
    publishedAt: at(-10),
    publishAt: null,
    ...overrides,
  };
}

function media(id: string): Media {
  const sha256 = id.padEnd(64, '0').slice(0, 64);
  return {
    id,
    contentType: 'image/png',
    width: 10,
    height: 10,
    bytes: 10,
    sha256,
    sourceSha256: sha256,
    alt: '',
    caption: '',
    createdAt: NOW,
    files: [{ name: 'original.png', contentType: 'image/png', width: 10, height: 10, bytes: 10, sha256 }],
  };
}

async function storeWith(posts: NewPost[]): Promise<Store> {
  const store = createMemoryStore();
  for (const one of posts) await store.posts.create(one);
  return store;
}

describe('ContentQueries.allWith', () => {
  it('answers the visible posts, newest published first and ties by id, each with what was read of its body and without the body', async () => {
    const store = await storeWith([
      post('01A', { publishedAt: at(-30) }),
      post('01B', { publishedAt: at(-10) }),
      post('01C', { publishedAt: at(-10) }),
      post('01D', { status: 'draft', publishedAt: null }),
      post('01E', { status: 'archived' }),
      post('01F', { publishedAt: at(5) }), // another process's clock ran ahead
    ]);
    const posts = await new ContentQueries(store, new FixedClock(NOW)).allWith((body) => body.length);
    expect(posts.map((one) => [one.id, one.fromBody])).toEqual([
      ['01C', 11],
      ['01B', 11],
      ['01A', 11],
    ]);
    expect(posts[0]).not.toHaveProperty('body');
  });

  it('walks every post, past one batch of a hundred', async () => {
    const store = await storeWith(Array.from({ length: 205 }, (_, i) => post(`01${String(i).padStart(3, '0')}`, { publishedAt: at(-i) })));
    const posts = await new ContentQueries(store, new FixedClock(NOW)).allWith(() => null);
    expect(posts).toHaveLength(205);
    expect(posts[0]!.id).toBe('01000');
    expect(posts.at(-1)!.id).toBe('01204');
  });
});

describe('ContentQueries.latest', () => {
  it('answers the twenty newest visible posts, newest published first, with their bodies; of one tag when given', async () => {
    const store = await storeWith([
      ...Array.from({ length: 22 }, (_, i) =>
        post(`01${String(i).padStart(3, '0')}`, { publishedAt: at(-i - 1), tags: i % 2 === 0 ? ['even'] : [] }),
      ),
      post('01D', { status: 'draft', publishedAt: null }),
      post('01F', { publishedAt: at(5) }),
    ]);
    const queries = new ContentQueries(store, new FixedClock(NOW));
    const latest = await queries.latest();
    expect(latest.map((one) => one.id)).toEqual(Array.from({ length: 20 }, (_, i) => `01${String(i).padStart(3, '0')}`));
    expect(latest[0]!.body).toBe('body of 01000');
    expect((await queries.latest('even')).map((one) => one.id)).toEqual(
      Array.from({ length: 11 }, (_, i) => `01${String(2 * i).padStart(3, '0')}`),
    );
  });

  it('leaves out a post that was deleted or unpublished between the list and the read of its body', async () => {
    const store = await storeWith([
      post('01A', { publishedAt: at(-3) }),
      post('01B', { publishedAt: at(-2) }),
      post('01C', { publishedAt: at(-1) }),
    ]);
    const getMany = store.posts.getMany.bind(store.posts);
    store.posts.getMany = async (ids) =>
      (await getMany(ids)).flatMap((found) =>
        found.id === '01B' ? [] : found.id === '01C' ? [{ ...found, status: 'draft' as const }] : [found],
      );
    const latest = await new ContentQueries(store, new FixedClock(NOW)).latest();
    expect(latest.map((one) => one.id)).toEqual(['01A']);
  });

  it('reads the bodies of a feed in one call of the store, not one per post', async () => {
    const store = await storeWith(
      Array.from({ length: 25 }, (_, i) => post(`01${String(i).padStart(3, '0')}`, { publishedAt: at(-i - 1) })),
    );
    const calls = { get: 0, getMany: 0 };
    const [get, getMany] = [store.posts.get.bind(store.posts), store.posts.getMany.bind(store.posts)];
    store.posts.get = (id) => (calls.get++, get(id));
    store.posts.getMany = (ids) => (calls.getMany++, getMany(ids));
    expect(await new ContentQueries(store, new FixedClock(NOW)).latest()).toHaveLength(20);
    expect(calls).toEqual({ get: 0, getMany: 1 });
  });
});

describe('ContentQueries.media', () => {
  it('answers the media that exist by id, reading each id once, a hundred in one read of the store', async () => {
    const store = createMemoryStore();
    const ids = Array.from({ length: 245 }, (_, i) => `m${String(i).padStart(25, 'a')}`);
    for (const id of ids.slice(0, 240)) await store.media.create(media(id));
    const reads: string[][] = [];
    const getMany = store.media.getMany.bind(store.media);
    const counted: Store = {
      ...store,
      media: {
        ...store.media,
        get: () => Promise.reject(new Error('one read per id')),
        getMany: (some) => (reads.push([...some]), getMany(some)),
      },
    };
    const found = await new ContentQueries(counted, new FixedClock(NOW)).media([...ids, ...ids]);
    expect([...found.keys()]).toEqual(ids.slice(0, 240));
    expect(found.get(ids[0]!)).toEqual(media(ids[0]!));
    expect(reads.map((one) => one.length)).toEqual([100, 100, 45]);
    expect(reads.flat()).toEqual(ids);
  });

  it('answers an empty map, reading nothing, for no ids', async () => {
    expect((await new ContentQueries(createMemoryStore(), new FixedClock(NOW)).media([])).size).toBe(0);
  });
});
