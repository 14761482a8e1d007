import { describe, expect, it } from 'vitest';
import { createRandomTokens } from '../adapters/crypto/refresh-token-secrets.js';
import { createMemoryStore } from '../adapters/memory/store.js';
import { createUlidIds } from '../adapters/system/ulid-ids.js';
import {
  FixedClock,
  PREVIEW_LINK_DEFAULT_TTL_MS,
  PREVIEW_LINK_MAX_TTL_MS,
  PREVIEW_LINKS_ACTIVE_MAX,
  PreviewLinkLimitReachedError,
  ValidationError,
  type NewPost,
} from '../domain/index.js';
import { createPreviewLink, listPreviewLinks, previewPost, revokePreviewLink, type PreviewLinkDeps } from './preview-links.js';

const T0 = new Date('2026-12-06T09:00:00.000Z');
const DRAFT_ID = '01JEX0000000000000000000D1';
const UNKNOWN = '01JDQ8Z4M6X2V7K9T3N5R8W1YB';

const draft: NewPost = {
  id: DRAFT_ID,
  title: 'Not yet',
  slug: 'not-yet',
  excerpt: '',
  body: 'Draft.',
  tags: [],
  status: 'draft',
  wordCount: 1,
  createdAt: T0,
  publishedAt: null,
  publishAt: null,
};

async function setup() {
  const store = createMemoryStore();
  await store.posts.create(draft);
  const clock = new FixedClock(T0);
  const tokens = createRandomTokens();
  const deps: PreviewLinkDeps = { links: store.previewLinks, posts: store.posts, tokens, ids: createUlidIds(clock), clock };
  return { store, clock, deps, tokens };
}

describe('preview links', () => {
  it('makes a 256-bit base64url token, stores only its SHA-256, and expires in 7 days by default', async () => {
    const { deps, tokens } = await setup();
    const { link, token } = await createPreviewLink(deps, DRAFT_ID);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(link.tokenHash).toBe(tokens.hash(token));
    expect(link.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(link.expiresAt).toEqual(new Date(T0.getTime() + PREVIEW_LINK_DEFAULT_TTL_MS));
    expect(JSON.stringify(link)).not.toContain(token);
  });

  it('takes an expiry in the future up to the longest life, and refuses others at /expiresAt', async () => {
    const { deps } = await setup();
    const longest = new Date(T0.getTime() + PREVIEW_LINK_MAX_TTL_MS);
    expect((await createPreviewLink(deps, DRAFT_ID, longest)).link.expiresAt).toEqual(longest);
    for (const at of [T0, new Date(T0.getTime() - 1), new Date(longest.getTime() + 1)]) {
      const error = await createPreviewLink(deps, DRAFT_ID, at).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]?.pointer).toBe('/expiresAt');
    }
    expect((await listPreviewLinks(deps, DRAFT_ID, { limit: 100 })).items).toHaveLength(1);
  });

  it('refuses a link to a post that does not exist with NotFoundError(post)', async () => {
    const { deps } = await setup();
    await expect(createPreviewLink(deps, UNKNOWN)).rejects.toMatchObject({ entity: 'post' });
    await expect(listPreviewLinks(deps, UNKNOWN, { limit: 20 })).rejects.toMatchObject({ entity: 'post' });
  });

  it('shows the draft to the token until it expires or is revoked, and lists the links with their status', async () => {
    const { deps, clock } = await setup();
    const short = await createPreviewLink(deps, DRAFT_ID, new Date(T0.getTime() + 60_000));
    const revoked = await createPreviewLink(deps, DRAFT_ID);
    const active = await createPreviewLink(deps, DRAFT_ID);
    expect((await previewPost(deps, short.token))?.id).toBe(DRAFT_ID);
    expect(await revokePreviewLink(deps, DRAFT_ID, revoked.link.id)).toMatchObject({ status: 'revoked' });
    clock.advance(60_000);
    expect(await previewPost(deps, short.token)).toBeNull();
    expect(await previewPost(deps, revoked.token)).toBeNull();
    expect(await previewPost(deps, 'not-a-token')).toBeNull();
    expect((await previewPost(deps, active.token))?.status).toBe('draft');
    const listed = await listPreviewLinks(deps, DRAFT_ID, { limit: 20 });
    expect(listed.nextCursor).toBeNull();
    expect(listed.items.map((l) => [l.link.id, l.status])).toEqual([
      [active.link.id, 'active'],
      [revoked.link.id, 'revoked'],
      [short.link.id, 'expired'],
    ]);
  });

  it(`refuses a post's ${PREVIEW_LINKS_ACTIVE_MAX + 1}st active link with PreviewLinkLimitReachedError; an expired or revoked one frees a place`, async () => {
    const { deps, clock } = await setup();
    await createPreviewLink(deps, DRAFT_ID, new Date(T0.getTime() + 60_000));
    for (let n = 1; n < PREVIEW_LINKS_ACTIVE_MAX; n += 1) await createPreviewLink(deps, DRAFT_ID);
    await expect(createPreviewLink(deps, DRAFT_ID)).rejects.toBeInstanceOf(PreviewLinkLimitReachedError);
    expect((await listPreviewLinks(deps, DRAFT_ID, { limit: 100 })).items).toHaveLength(PREVIEW_LINKS_ACTIVE_MAX);
    clock.advance(60_000);
    const next = await createPreviewLink(deps, DRAFT_ID);
    await expect(createPreviewLink(deps, DRAFT_ID)).rejects.toBeInstanceOf(PreviewLinkLimitReachedError);
    await revokePreviewLink(deps, DRAFT_ID, next.link.id);
    await createPreviewLink(deps, DRAFT_ID);
    const statuses = (await listPreviewLinks(deps, DRAFT_ID, { limit: 100 })).items.map((l) => l.status);
    expect(statuses.filter((status) => status === 'active')).toHaveLength(PREVIEW_LINKS_ACTIVE_MAX);
    expect(statuses.sort()).toEqual([...Array<string>(PREVIEW_LINKS_ACTIVE_MAX).fill('active'), 'expired', 'revoked']);
  });

  it('revokes only a link of the post named, else NotFoundError(previewLink)', async () => {
    const { deps, store } = await setup();
    await store.posts.create({ ...draft, id: '01JEX0000000000000000000D2', slug: 'other' });
    const { link } = await createPreviewLink(deps, DRAFT_ID);
    await expect(revokePreviewLink(deps, '01JEX0000000000000000000D2', link.id)).rejects.toMatchObject({ entity: 'previewLink' });
    await expect(revokePreviewLink(deps, DRAFT_ID, UNKNOWN)).rejects.toMatchObject({ entity: 'previewLink' });
  });

  it('shows nothing once the post is deleted', async () => {
    const { deps, store } = await setup();
    const { token } = await createPreviewLink(deps, DRAFT_ID);
    await store.posts.delete(DRAFT_ID, 1);
    expect(await previewPost(deps, token)).toBeNull();
  });
});
