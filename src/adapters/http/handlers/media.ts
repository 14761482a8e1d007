import * as library from '../../../app/media.js';
import { BinaryBody } from '../binary-body.js';
import { isNotModified } from '../content/conditional.js';
import { API_ROOT } from '../contract.js';
import { toApiMedia } from '../mappers.js';
import type { PostWrites } from '../../../app/post-writes.js';
import { actorOf } from '../principal.js';
import type { HandlerRegistry } from '../registry.js';

type MediaHandlers = Pick<HandlerRegistry, 'uploadMedia' | 'listMedia' | 'getMedia' | 'updateMedia' | 'deleteMedia' | 'getMediaFile'>;

/** A file never changes under its URL (another image is another media), so caches keep it a year without asking. */
const IMMUTABLE = 'public, max-age=31536000, immutable' as const;

/** A media file's strong ETag: its SHA-256, quoted. */
const etagOf = (sha256: string) => `"${sha256}"`;

/**
 * The media library (tag `media`) and its public files (`getMediaFile`, tag `content`). `filesUrl`
 * is where the files are public for a request: the Content API's address followed by `/media`.
 */
export function mediaHandlers(
  media: library.MediaDeps,
  posts: Pick<PostWrites, 'dropCover'>,
  filesUrl: (request: { origin: string }) => string,
): MediaHandlers {
  const toApi = (request: { origin: string }) => {
    const url = filesUrl(request);
    return (m: Parameters<typeof toApiMedia>[0]) => toApiMedia(m, url);
  };
  return {
    async uploadMedia(request) {
      const { body, query } = request;
      // A form carries the texts as parts; a raw upload in the query.
      const alt = body.alt ?? query.alt;
      const caption = body.caption ?? query.caption;
      const { media: stored, created } = await library.uploadMedia(media, body.file, {
        ...(alt === undefined ? {} : { alt }),
        ...(caption === undefined ? {} : { caption }),
      });
      if (!created) return { status: 200, body: toApi(request)(stored) };
      return { status: 201, body: toApi(request)(stored), headers: { Location: `${API_ROOT}/media/${stored.id}` } };
    },

    async listMedia(request) {
      const { query } = request;
      const page = await library.listMedia(media, { limit: query.limit, cursor: query.cursor ?? null });
      return { status: 200, body: { items: page.items.map(toApi(request)), nextCursor: page.nextCursor } };
    },

    async getMedia(request) {
      return { status: 200, body: toApi(request)(await library.getMedia(media, request.params.id)) };
    },

    async updateMedia(request) {
      const { params, body } = request;
      return { status: 200, body: toApi(request)(await library.updateMedia(media, params.id, body)) };
    },

    async deleteMedia(request) {
      const { params, query } = request;
      const actor = actorOf(request);
      await library.deleteMedia(media, params.id, {
        force: query.force,
        dropCover: (postId) => posts.dropCover(postId, params.id, actor),
      });
      return { status: 204 };
    },

    /**
     * Public: the URL is the secret. The Content API's base headers (response-headers.ts) carry
     * `X-Content-Type-Options: nosniff` and `Content-Security-Policy: default-src 'none'; …`, so a
     * file is never read as anything but the image type it was sniffed as at upload.
     */
    async getMediaFile({ params, headers }) {
      const ifNoneMatch = headers['if-none-match'];
      const { file, bytes } = await library.readMediaFile(
        media,
        params.id,
        params.file,
        // Only the ETag decides: a file has no modification time to compare (it never changes).
        ifNoneMatch === undefined ? {} : { notModified: (f) => isNotModified({ ifNoneMatch }, etagOf(f.sha256), new Date(0)) },
      );
      const replyHeaders = { ETag: etagOf(file.sha256), 'Cache-Control': IMMUTABLE };
      if (bytes === null) return { status: 304, headers: replyHeaders };
      return { status: 200, body: new BinaryBody(bytes, file.contentType), headers: replyHeaders };
    },
  };
}
