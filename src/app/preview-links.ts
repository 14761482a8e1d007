import {
  NotFoundError,
  PREVIEW_LINK_DEFAULT_TTL_MS,
  PREVIEW_LINK_MAX_TTL_MS,
  PREVIEW_LINKS_ACTIVE_MAX,
  previewLinkStatus,
  ValidationError,
  type Clock,
  type IdGenerator,
  type Post,
  type PostRepository,
  type PreviewLink,
  type PreviewLinkQuery,
  type PreviewLinkRepository,
  type PreviewLinkStatus,
  type RefreshTokenSecrets,
} from '../domain/index.js';

/** What the preview-link use cases work with. */
export interface PreviewLinkDeps {
  links: PreviewLinkRepository;
  posts: Pick<PostRepository, 'get'>;
  /** Random tokens (256 bits, base64url) and their SHA-256 (hex), as refresh tokens are made. */
  tokens: Pick<RefreshTokenSecrets, 'newToken' | 'hash'>;
  /** Link ids (ULIDs). */
  ids: IdGenerator;
  clock: Clock;
}

/** A link just made, with the token only its creator is ever shown. */
export interface CreatedPreviewLink {
  link: PreviewLink;
  token: string;
}

/**
 * Makes a link to a post, valid until `expiresAt` (by default `PREVIEW_LINK_DEFAULT_TTL_MS` from
 * now). Only the token's hash is stored: the answer is the only place the token is.
 * @throws ValidationError at `/expiresAt` when it is not in the future or further than `PREVIEW_LINK_MAX_TTL_MS`
 * @throws PreviewLinkLimitReachedError when the post has `PREVIEW_LINKS_ACTIVE_MAX` active links
 *   already (the store counts and inserts in one step: concurrent creates never pass it)
 * @throws NotFoundError('post')
 */
export async function createPreviewLink(deps: PreviewLinkDeps, postId: string, expiresAt?: Date): Promise<CreatedPreviewLink> {
  const now = deps.clock.now();
  const expires = expiresAt ?? new Date(now.getTime() + PREVIEW_LINK_DEFAULT_TTL_MS);
  if (expires.getTime() <= now.getTime()) throw new ValidationError([{ pointer: '/expiresAt', message: 'must be in the future' }]);
  if (expires.getTime() > now.getTime() + PREVIEW_LINK_MAX_TTL_MS) {
    const days = PREVIEW_LINK_MAX_TTL_MS / 86_400_000;
    throw new ValidationError([{ pointer: '/expiresAt', message: `must be at most ${days} days from now` }]);
  }
  const token = deps.tokens.newToken();
  const link = await deps.links.create(
    {
      id: deps.ids.next(),
      postId,
      tokenHash: deps.tokens.hash(token),
      createdAt: now,
      expiresAt: expires,
      revokedAt: null,
    },
    PREVIEW_LINKS_ACTIVE_MAX,
  );
  return { link, token };
}

/** A link and its status at the time it was listed. */
export interface ListedPreviewLink {
  link: PreviewLink;
  status: PreviewLinkStatus;
}

/**
 * A page of the post's links, newest first, expired and revoked ones too; `nextCursor` leads to
 * the next page (null on the last).
 * @throws NotFoundError('post')
 * @throws InvalidCursorError for a cursor of another post's list, or no cursor at all
 */
export async function listPreviewLinks(
  deps: PreviewLinkDeps,
  postId: string,
  query: PreviewLinkQuery,
): Promise<{ items: ListedPreviewLink[]; nextCursor: string | null }> {
  if ((await deps.posts.get(postId)) === null) throw new NotFoundError('post', postId);
  const now = deps.clock.now();
  const page = await deps.links.listForPost(postId, query);
  return { items: page.items.map((link) => ({ link, status: previewLinkStatus(link, now) })), nextCursor: page.nextCursor };
}

/**
 * Revokes a link (again: the first revocation is kept) and answers it.
 * @throws NotFoundError('previewLink') for a link that is not the post's
 */
export async function revokePreviewLink(deps: PreviewLinkDeps, postId: string, id: string): Promise<ListedPreviewLink> {
  const now = deps.clock.now();
  const link = await deps.links.revoke(postId, id, now);
  return { link, status: previewLinkStatus(link, now) };
}

/**
 * The post a token shows, as it is now whatever its status, or null when the token names no
 * active link (unknown, expired, revoked) or its post is gone: the caller cannot tell which.
 */
export async function previewPost(deps: PreviewLinkDeps, token: string): Promise<Post | null> {
  const link = await deps.links.findActive(deps.tokens.hash(token), deps.clock.now());
  if (link === null) return null;
  return deps.posts.get(link.postId);
}
