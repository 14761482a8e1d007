/**
 * Preview links: an unguessable URL on the Content API that shows a post as it is now, whatever its
 * status, to whoever holds it, until it expires or is revoked. Only the token's SHA-256 is stored.
 */

/** How long a link lives unless its creator says otherwise. */
export const PREVIEW_LINK_DEFAULT_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** The longest life a link may be given. */
export const PREVIEW_LINK_MAX_TTL_MS = 90 * 24 * 60 * 60 * 1000;
/**
 * Most active links (neither revoked nor expired) a post may have at once: more than an editor
 * sharing a draft ever needs, few enough that every live URL of a post can be reviewed.
 */
export const PREVIEW_LINKS_ACTIVE_MAX = 20;

export interface PreviewLink {
  /** A ULID. */
  id: string;
  postId: string;
  /** SHA-256 of the token, 64 lowercase hex digits. */
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

export type PreviewLinkStatus = 'active' | 'expired' | 'revoked';

/** A link's status at `now`: revoked wins over expired. */
export function previewLinkStatus(link: Pick<PreviewLink, 'expiresAt' | 'revokedAt'>, now: Date): PreviewLinkStatus {
  if (link.revokedAt !== null) return 'revoked';
  return link.expiresAt.getTime() > now.getTime() ? 'active' : 'expired';
}
