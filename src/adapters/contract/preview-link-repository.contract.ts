import { describe, expect, it } from 'vitest';
import { encodeCursor } from '../../domain/cursor.js';
import { DuplicateIdError, InvalidCursorError, NotFoundError, PreviewLinkLimitReachedError } from '../../domain/errors.js';
import { previewLinkCursorScope, type PreviewLinkRepository } from '../../domain/ports/preview-link-repository.js';
import type { PreviewLink } from '../../domain/preview-links.js';
import { type MakeStore, minute, newPost, rejectionOf, times, ulid, useStore } from './fixtures.js';

/** A link id; ids sort (in byte order) by `n`, apart from the posts' ids. */
const linkId = (n: number) => ulid(6000 + n);

/** 64 hex digits, distinct per `n`. */
const tokenHash = (n: number) => `${'ab'.repeat(30)}${String(n).padStart(4, '0')}`;

/** Link `n` of post 1, created at `minute(n % 60)`, expiring 7 days later. */
function newLink(n: number, overrides: Partial<PreviewLink> = {}): PreviewLink {
  const createdAt = minute(n % 60);
  return {
    id: linkId(n),
    postId: ulid(1),
    tokenHash: tokenHash(n),
    createdAt,
    expiresAt: new Date(createdAt.getTime() + 7 * 86_400_000),
    revokedAt: null,
    ...overrides,
  };
}

function expectNotFound(error: unknown, entity: NotFoundError['entity']): void {
  expect(error).toBeInstanceOf(NotFoundError);
  expect((error as NotFoundError).entity).toBe(entity);
}

export function describePreviewLinkRepositoryContract(make: MakeStore): void {
  describe('PreviewLinkRepository', () => {
    const store = useStore(make);
    const links = (): PreviewLinkRepository => store().previewLinks;
    const withPosts = async (...ns: number[]) => {
      for (const n of ns) await store().posts.create(newPost(n));
    };
    /** The ids of the first page of post `n`'s links. */
    const listed = async (n: number, limit = 100) => (await links().listForPost(ulid(n), { limit })).items.map((l) => l.id);

    it('create stores a link as given and answers it', async () => {
      await withPosts(1);
      expect(await links().create(newLink(1))).toStrictEqual(newLink(1));
      expect(await links().listForPost(ulid(1), { limit: 10 })).toStrictEqual({ items: [newLink(1)], nextCursor: null });
    });

    it('create of a link of a post that does not exist throws NotFoundError(post)', async () => {
      expectNotFound(await rejectionOf(links().create(newLink(1))), 'post');
      expect(await links().findActive(tokenHash(1), minute(1))).toBeNull();
    });

    it('create with an id another link holds, or a tokenHash another holds, throws DuplicateIdError', async () => {
      await withPosts(1);
      await links().create(newLink(1));
      expect(await rejectionOf(links().create(newLink(2, { id: linkId(1) })))).toBeInstanceOf(DuplicateIdError);
      expect(await rejectionOf(links().create(newLink(2, { tokenHash: tokenHash(1) })))).toBeInstanceOf(DuplicateIdError);
      expect(await listed(1)).toEqual([linkId(1)]);
    });

    it('create with max stores it while the post has fewer than max links active at its createdAt, else throws PreviewLinkLimitReachedError and stores nothing', async () => {
      await withPosts(1, 2);
      const at = minute(30);
      await links().create(newLink(1, { createdAt: minute(1), expiresAt: minute(40) }), 2);
      await links().create(newLink(2, { createdAt: minute(2), expiresAt: minute(40) }), 2);
      const refused = await rejectionOf(links().create(newLink(3, { createdAt: at }), 2));
      expect(refused).toBeInstanceOf(PreviewLinkLimitReachedError);
      expect((refused as PreviewLinkLimitReachedError).limit).toBe(2);
      expect(await listed(1)).toEqual([linkId(2), linkId(1)]);
      expect(await links().findActive(tokenHash(3), at)).toBeNull();
      // Another post's links do not count.
      await links().create(newLink(4, { postId: ulid(2), createdAt: at }), 2);
      // A revoked link does not count, nor one expired at the new link's createdAt (expiresAt not after it).
      await links().revoke(ulid(1), linkId(1), minute(3));
      await links().create(newLink(6, { createdAt: minute(4), expiresAt: at }));
      await links().create(newLink(5, { createdAt: at }), 2);
      expect(await rejectionOf(links().create(newLink(7, { createdAt: at }), 2))).toBeInstanceOf(PreviewLinkLimitReachedError);
      // At minute 40, link 2 has expired.
      await links().create(newLink(8, { createdAt: minute(40) }), 2);
      expect((await listed(1)).sort()).toEqual([linkId(1), linkId(2), linkId(5), linkId(6), linkId(8)]);
    });

    it('of concurrent creates for one post with max, exactly max are active and the others throw PreviewLinkLimitReachedError', async () => {
      await withPosts(1, 2);
      await links().create(newLink(1));
      await links().create(newLink(2, { postId: ulid(2) }));
      const outcomes = await Promise.allSettled(times(8, (i) => links().create(newLink(i + 3, { createdAt: minute(30) }), 4)));
      const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
      expect(refused).toHaveLength(5);
      for (const reason of refused) expect(reason).toBeInstanceOf(PreviewLinkLimitReachedError);
      expect(await listed(1)).toHaveLength(4);
    });

    it("listForPost answers a page of the post's links newest first (createdAt, ties by id, descending), revoked and expired ones included; none is { items: [], nextCursor: null }", async () => {
      await withPosts(1, 2);
      await links().create(newLink(3, { createdAt: minute(10) }));
      await links().create(newLink(1, { createdAt: minute(20), revokedAt: minute(21) }));
      await links().create(newLink(2, { createdAt: minute(10), expiresAt: minute(11) }));
      await links().create(newLink(4, { postId: ulid(2) }));
      expect(await listed(1, 10)).toEqual([linkId(1), linkId(3), linkId(2)]);
      expect(await listed(1, 2)).toEqual([linkId(1), linkId(3)]);
      expect(await links().listForPost(ulid(3), { limit: 10 })).toEqual({ items: [], nextCursor: null });
    });

    it('listForPost pages by cursor: following nextCursor reaches every link once, in order, and the last page has none', async () => {
      await withPosts(1, 2);
      // 7 links, four of them created in the same minute (ties by id), and one of another post.
      for (const n of [1, 2, 3, 4, 5, 6, 7]) await links().create(newLink(n, { createdAt: minute(n <= 4 ? 10 : n + 10) }));
      await links().create(newLink(8, { postId: ulid(2), createdAt: minute(10) }));
      const ids: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: { items: PreviewLink[]; nextCursor: string | null } = await links().listForPost(ulid(1), { limit: 2, cursor });
        ids.push(...page.items.map((l) => l.id));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== null && pages < 10);
      expect(pages).toBe(4);
      expect(ids).toEqual([7, 6, 5, 4, 3, 2, 1].map(linkId));
      expect((await links().listForPost(ulid(1), { limit: 7 })).nextCursor).toBeNull();
    });

    it('listForPost with a cursor of another post, or no cursor at all, throws InvalidCursorError', async () => {
      await withPosts(1, 2);
      await links().create(newLink(1, { createdAt: minute(1) }));
      await links().create(newLink(2, { createdAt: minute(2) }));
      await links().create(newLink(3, { postId: ulid(2) }));
      const { nextCursor } = await links().listForPost(ulid(1), { limit: 1 });
      expect(nextCursor).not.toBeNull();
      const other = encodeCursor(previewLinkCursorScope(ulid(2)), [minute(1).toISOString(), linkId(3)]);
      for (const [postId, cursor] of [
        [ulid(2), nextCursor],
        [ulid(1), other],
        [ulid(1), 'not-a-cursor'],
      ] as const) {
        expect(await rejectionOf(links().listForPost(postId, { limit: 1, cursor }))).toBeInstanceOf(InvalidCursorError);
      }
    });

    it('revoke sets revokedAt and answers the link; revoking again keeps the first time', async () => {
      await withPosts(1);
      await links().create(newLink(1));
      expect(await links().revoke(ulid(1), linkId(1), minute(30))).toStrictEqual(newLink(1, { revokedAt: minute(30) }));
      expect(await links().revoke(ulid(1), linkId(1), minute(40))).toStrictEqual(newLink(1, { revokedAt: minute(30) }));
      expect(await links().findActive(tokenHash(1), minute(31))).toBeNull();
    });

    it("revoke of a link that does not exist, or is another post's, throws NotFoundError(previewLink)", async () => {
      await withPosts(1, 2);
      await links().create(newLink(1));
      expectNotFound(await rejectionOf(links().revoke(ulid(2), linkId(1), minute(30))), 'previewLink');
      expectNotFound(await rejectionOf(links().revoke(ulid(1), linkId(2), minute(30))), 'previewLink');
      expect(await links().findActive(tokenHash(1), minute(30))).toStrictEqual(newLink(1));
    });

    it('findActive answers the link with that hash while neither revoked nor expired (expiresAt after now), else null', async () => {
      await withPosts(1);
      await links().create(newLink(1, { expiresAt: minute(20) }));
      await links().create(newLink(2, { revokedAt: minute(3) }));
      expect(await links().findActive(tokenHash(1), minute(19))).toStrictEqual(newLink(1, { expiresAt: minute(20) }));
      expect(await links().findActive(tokenHash(1), minute(20))).toBeNull();
      expect(await links().findActive(tokenHash(2), minute(4))).toBeNull();
      expect(await links().findActive(tokenHash(9), minute(4))).toBeNull();
    });

    it('deleting a post deletes its links', async () => {
      await withPosts(1, 2);
      await links().create(newLink(1));
      await links().create(newLink(2, { postId: ulid(2) }));
      await store().posts.delete(ulid(1), 1);
      expect(await links().findActive(tokenHash(1), minute(5))).toBeNull();
      expect(await listed(1)).toEqual([]);
      expect(await links().findActive(tokenHash(2), minute(5))).not.toBeNull();
    });

    it('purge deletes the links that expired or were revoked before `before`, and answers how many', async () => {
      await withPosts(1);
      await links().create(newLink(1, { expiresAt: minute(20) }));
      await links().create(newLink(2, { revokedAt: minute(25) }));
      await links().create(newLink(3, { expiresAt: minute(30) }));
      await links().create(newLink(4));
      expect(await links().purge(minute(20))).toBe(0);
      expect(await links().purge(minute(26))).toBe(2);
      expect((await listed(1)).sort()).toEqual([linkId(3), linkId(4)]);
      expect(await links().purge(minute(31))).toBe(1);
    });
  });
}
