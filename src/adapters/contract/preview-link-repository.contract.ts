import { describe, expect, it } from 'vitest';
import { DuplicateIdError, NotFoundError } from '../../domain/errors.js';
import type { PreviewLinkRepository } from '../../domain/ports/preview-link-repository.js';
import type { PreviewLink } from '../../domain/preview-links.js';
import { type MakeStore, minute, newPost, rejectionOf, ulid, useStore } from './fixtures.js';

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

    it('create stores a link as given and answers it', async () => {
      await withPosts(1);
      expect(await links().create(newLink(1))).toStrictEqual(newLink(1));
      expect(await links().listForPost(ulid(1), 10)).toStrictEqual([newLink(1)]);
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
      expect(await links().listForPost(ulid(1), 10)).toStrictEqual([newLink(1)]);
    });

    it("listForPost answers up to limit of the post's links newest first (createdAt, ties by id, descending), revoked and expired ones included", async () => {
      await withPosts(1, 2);
      await links().create(newLink(3, { createdAt: minute(10) }));
      await links().create(newLink(1, { createdAt: minute(20), revokedAt: minute(21) }));
      await links().create(newLink(2, { createdAt: minute(10), expiresAt: minute(11) }));
      await links().create(newLink(4, { postId: ulid(2) }));
      expect((await links().listForPost(ulid(1), 10)).map((l) => l.id)).toEqual([linkId(1), linkId(3), linkId(2)]);
      expect((await links().listForPost(ulid(1), 2)).map((l) => l.id)).toEqual([linkId(1), linkId(3)]);
      expect(await links().listForPost(ulid(3), 10)).toEqual([]);
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
      expect(await links().listForPost(ulid(1), 10)).toEqual([]);
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
      expect((await links().listForPost(ulid(1), 10)).map((l) => l.id).sort()).toEqual([linkId(3), linkId(4)]);
      expect(await links().purge(minute(31))).toBe(1);
    });
  });
}
