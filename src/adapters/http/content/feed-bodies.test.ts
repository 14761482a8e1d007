import { describe, expect, it } from 'vitest';
import { strongEtagOf } from './conditional.js';
import { FeedCache, renderFeedBodies, type FeedBody } from './feed-bodies.js';
import type { RenderablePost } from './html-renderer.js';

const bodies: FeedBody[] = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({ post: { id, version: 1, body: `**${id}**` }, media: [] }));

/** A renderer that answers at once, `<p>id</p>`, but never for the ids in `hanging`, and throws for those in `throwing`. */
function renderer(hanging: string[] = [], throwing: string[] = []) {
  const asked: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  return {
    asked,
    mostAtOnce: () => mostAtOnce,
    async html(post: RenderablePost): Promise<string | null> {
      asked.push(post.id);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      if (hanging.includes(post.id)) return new Promise<never>(() => {});
      await Promise.resolve();
      running -= 1;
      if (throwing.includes(post.id)) throw new Error('lost worker');
      return `<p>${post.id}</p>`;
    },
  };
}

describe('renderFeedBodies', () => {
  it('renders every body in the order given, asking the renderer for at most four at once', async () => {
    const fake = renderer();
    expect(await renderFeedBodies(fake, bodies, 60_000)).toEqual(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => `<p>${id}</p>`));
    expect(fake.asked).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(fake.mostAtOnce()).toBe(4);
  });

  it('gives null for a body the renderer fails, and the others still', async () => {
    expect(await renderFeedBodies(renderer([], ['b']), bodies.slice(0, 3), 60_000)).toEqual(['<p>a</p>', null, '<p>c</p>']);
  });

  it('stops waiting at the deadline: a body that never renders is null, and does not hold back the others', async () => {
    const fake = renderer(['b']);
    expect(await renderFeedBodies(fake, bodies, 0)).toEqual(['<p>a</p>', null, '<p>c</p>', '<p>d</p>', '<p>e</p>', '<p>f</p>']);
  });

  it('asks nothing for a feed without entries', async () => {
    const fake = renderer();
    expect(await renderFeedBodies(fake, [], 60_000)).toEqual([]);
    expect(fake.asked).toEqual([]);
  });
});

describe('FeedCache', () => {
  it('writes a feed once per key, with the ETag of its bytes, and again under another key', () => {
    const cache = new FeedCache();
    const writes: string[] = [];
    const write = (xml: string) => () => (writes.push(xml), xml);
    expect(cache.written('a', write('<feed>a</feed>'))).toEqual({ xml: '<feed>a</feed>', etag: strongEtagOf('<feed>a</feed>') });
    expect(cache.written('a', write('<feed>other</feed>')).xml).toBe('<feed>a</feed>');
    expect(cache.written('b', write('<feed>b</feed>')).xml).toBe('<feed>b</feed>');
    expect(writes).toEqual(['<feed>a</feed>', '<feed>b</feed>']);
  });
});
