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
    const get = store.posts.get.bind(store.posts);
    store.posts.get = async (id) => {
      if (id === '01B') return null;
      const found = await get(id);
      return id === '01C' && found !== null ? { ...found, status: 'draft' } : found;
    };
    const latest = await new ContentQueries(store, new FixedClock(NOW)).latest();
    expect(latest.map((one) => one.id)).toEqual(['01A']);
  });
});

describe('ContentQueries.media', () => {
  it('answers the media that exist by id, reading each id once and at most twenty at a time', async () => {
    const store = createMemoryStore();
    const ids = Array.from({ length: 45 }, (_, i) => `m${String(i).padStart(25, 'a')}`);
    for (const id of ids.slice(0, 40)) await store.media.create(media(id));
    let running = 0;
    let most = 0;
    const read: string[] = [];
    const get = store.media.get.bind(store.media);
    const counted: Store = {
      ...store,
      media: {
        ...store.media,
        get: async (id) => {
          read.push(id);
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 1));
          running -= 1;
          return get(id);
        },
      },
    };
    const found = await new ContentQueries(counted, new FixedClock(NOW)).media([...ids, ...ids]);
    expect([...found.keys()]).toEqual(ids.slice(0, 40));
    expect(found.get(ids[0]!)).toEqual(media(ids[0]!));
    expect(read.sort()).toEqual([...ids].sort());
    expect(most).toBe(20);
  });

  it('answers an empty map, reading nothing, for no ids', async () => {
    expect((await new ContentQueries(createMemoryStore(), new FixedClock(NOW)).media([])).size).toBe(0);
  });
});
