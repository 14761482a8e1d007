import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../adapters/memory/store.js';
import { FixedClock, SequentialIds, ValidationError } from '../domain/index.js';
import { createPostUseCases } from './post-use-cases.js';

const actor = { id: 'U1', name: 'Ada' };
const MISSING = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

function setup() {
  const store = createMemoryStore();
  const posts = createPostUseCases({
    store,
    clock: new FixedClock(new Date('2026-01-01T00:00:00.000Z')),
    ids: new SequentialIds(1),
    idempotency: { leaseMs: 30_000, ttlMs: 86_400_000 },
  });
  const create = async (title: string, status: 'draft' | 'published' = 'draft') => {
    const outcome = await posts.writes.create({ title, excerpt: '', body: '', tags: [], status }, actor);
    if (outcome.replayed) throw new Error('a create without a key never replays');
    return outcome.result;
  };
  return { store, posts, create };
}

describe('BulkPosts', () => {
  it("reports each id's outcome in order; a failing post never undoes the others", async () => {
    const { store, posts, create } = setup();
    const draft = await create('Draft');
    const live = await create('Live', 'published');

    const outcome = await posts.bulk.run([draft.id, MISSING, live.id], 'publish', undefined, actor);

    expect(outcome).toEqual({
      replayed: false,
      result: {
        succeeded: [{ id: draft.id, version: 2 }],
        failed: [
          { id: MISSING, reason: 'not_found', detail: 'No post has this id.' },
          { id: live.id, reason: 'invalid_transition', detail: 'Cannot publish a post that is published.' },
        ],
      },
    });
    expect((await store.posts.get(draft.id))?.status).toBe('published');
    expect((await store.activity.list({ limit: 10 })).items.map((e) => e.type)).toEqual(['published', 'created', 'created']);
  });

  it('normalises the tag it adds, and leaves a post that already has it unchanged', async () => {
    const { store, posts, create } = setup();
    const post = await create('Tagged');
    await posts.bulk.run([post.id], 'addTag', '  Release  Notes ', actor);
    const again = await posts.bulk.run([post.id], 'addTag', 'release notes', actor);

    expect((await store.posts.get(post.id))?.tags).toEqual(['release notes']);
    expect(again).toMatchObject({ result: { succeeded: [{ id: post.id, version: 2 }] } });
  });

  it('refuses an empty tag before touching any post, pointing into the input', async () => {
    const { posts, create } = setup();
    const post = await create('Untouched');
    const error = await posts.bulk.run([post.id], 'addTag', '   ', actor).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).source).toBe('input');
    expect((error as ValidationError).issues.map((i) => i.pointer)).toEqual(['/tag']);
  });

  it('keeps the cover image and SEO fields of the posts it publishes, tags and archives, and of their revisions', async () => {
    const { store, posts } = setup();
    const sha256 = 'c'.repeat(64);
    const file = { name: 'original.png', contentType: 'image/png' as const, width: 4, height: 3, bytes: 9, sha256 };
    const mediaId = 'coverscoverscoverscoverscov'.slice(0, 26);
    await store.media.create({
      ...file,
      id: mediaId,
      sourceSha256: sha256,
      alt: 'Covers',
      caption: '',
      createdAt: new Date(0),
      files: [file],
    });
    const seo = { title: 'Search', description: 'Preview', canonicalUrl: 'https://example.com/first' };
    const outcome = await posts.writes.create(
      { title: 'Dressed', excerpt: '', body: '', tags: [], status: 'draft', coverImage: { mediaId }, seo },
      actor,
    );
    if (outcome.replayed) throw new Error('a create without a key never replays');
    const post = outcome.result;
    for (const [action, tag] of [['publish'], ['addTag', 'news'], ['archive']] as const) {
      await posts.bulk.run([post.id], action, tag, actor);
    }
    const after = (await store.posts.get(post.id))!;
    expect([after.version, after.status, after.tags]).toStrictEqual([4, 'archived', ['news']]);
    expect([after.coverImage, after.seo]).toStrictEqual([{ mediaId, alt: 'Covers' }, seo]);
    expect(await store.revisions.get(post.id, 4)).toMatchObject({ coverImage: { mediaId, alt: 'Covers' }, seo });
  });
});
