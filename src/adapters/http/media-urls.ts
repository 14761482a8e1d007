/**
 * The public URLs of media files, and how a post body's links to them are recognised. Kept free of
 * imports: the render worker loads it, and should load nothing it does not use.
 */

/** The path of the media files under the API's address: `${API_ROOT}/content/media` (a test holds them equal). */
export const MEDIA_ROOT = '/api/v1/content/media';

/** A media id: 26 lowercase base32 characters. */
const MEDIA_ID = '[a-z2-7]{26}';

/**
 * The absolute URL of a media file: `${contentApiUrl}/media/<id>/<file>`, where `contentApiUrl` is
 * the Content API's (`SiteInfo.contentApiUrl`: PUBLIC_API_URL, else the request's own origin, + `/api/v1/content`).
 */
export function mediaFileUrl(contentApiUrl: string, mediaId: string, fileName: string): string {
  return `${contentApiUrl}/media/${mediaId}/${fileName}`;
}

/** How many media one body's images are looked up for: more links are plain images. */
const MEDIA_PER_BODY = 100;

const MEDIA_LINK = new RegExp(`${MEDIA_ROOT}/(${MEDIA_ID})/`, 'g');

/**
 * The ids of the media a body links to (`/api/v1/content/media/<id>/` anywhere in it, as the
 * repository's `uses` finds them), each once, in order of first appearance, at most `limit`.
 */
export function mediaIdsIn(markdown: string, limit = MEDIA_PER_BODY): string[] {
  const ids = new Set<string>();
  for (const match of markdown.matchAll(MEDIA_LINK)) {
    if (ids.size >= limit) break;
    ids.add(match[1]!);
  }
  return [...ids];
}

const MEDIA_FILE_PATH = new RegExp(`${MEDIA_ROOT}/(${MEDIA_ID})/([a-z0-9]+(?:\\.[a-z0-9]+)*)`, 'g');

/**
 * The media files a body links to (`/api/v1/content/media/<id>/<name>` anywhere in it, whatever
 * comes before), each once, in order of first appearance, at most `limit`; a dot that ends a
 * sentence is not part of the name. Callers keep only names the media has.
 */
export function mediaFilesIn(markdown: string, limit: number): { mediaId: string; fileName: string }[] {
  const files = new Map<string, { mediaId: string; fileName: string }>();
  for (const match of markdown.matchAll(MEDIA_FILE_PATH)) {
    if (files.size >= limit) break;
    files.set(match[0], { mediaId: match[1]!, fileName: match[2]! });
  }
  return [...files.values()];
}

/**
 * A URL naming a media file: absolute with any http(s) origin, protocol-relative or from the root
 * (with a path before the media root: an API behind a prefix); no query, no fragment.
 */
const MEDIA_FILE_URL = new RegExp(`^((?:(?:https?:)?//[^/?#\\s]+)?(?:/[^?#\\s]*)?${MEDIA_ROOT}/)(${MEDIA_ID})/([a-z0-9][a-z0-9.]{0,39})$`);

/** The media file a URL names: `base` is the URL up to the media root, so `${base}${id}/<name>` names its siblings. */
export interface MediaFileLink {
  base: string;
  mediaId: string;
  fileName: string;
}

/** The media file `url` names (see `MEDIA_FILE_URL`), or null when it names none. */
export function mediaFileLink(url: string): MediaFileLink | null {
  const match = MEDIA_FILE_URL.exec(url.trim());
  if (match === null) return null;
  return { base: match[1]!, mediaId: match[2]!, fileName: match[3]! };
}
