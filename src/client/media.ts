/** The media library's calls of the typed client (kept apart so that `createMarginClient` stays short). */
import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from '../../generated/api.js';
import type { ApiResult } from './types.js';

export type Media = components['schemas']['Media'];
export type MediaPage = components['schemas']['MediaPage'];
export type UpdateMediaRequest = components['schemas']['UpdateMediaRequest'];
export type MediaListQuery = NonNullable<operations['listMedia']['parameters']['query']>;

export interface UploadMediaOptions {
  alt?: string;
  caption?: string;
  /**
   * The Content-Type to send; the image's own type by default (a File's or a Blob's `type`). The
   * server reads the real type from the bytes: this only has to be one of the image types it takes.
   */
  contentType?: string;
  signal?: AbortSignal;
}

export interface DeleteMediaOptions {
  /** Delete it even while posts show it (their links then answer 404); without it that is a 409 naming the posts. */
  force?: boolean;
}

export interface MediaCalls {
  /**
   * Uploads an image as the raw request body with its type as Content-Type (`alt` and `caption` in
   * the query): 201 with the new media, or 200 with the media already holding the same image.
   * A type that is not an image goes as `application/octet-stream`, which the server refuses (415).
   */
  uploadMedia(image: Blob | Uint8Array<ArrayBuffer>, options?: UploadMediaOptions): Promise<ApiResult<'uploadMedia'>>;
  /** One page of the library, the newest first; pass `nextCursor` back as `cursor` for the next. */
  listMedia(query?: MediaListQuery, signal?: AbortSignal): Promise<ApiResult<'listMedia'>>;
  getMedia(id: string): Promise<ApiResult<'getMedia'>>;
  /** Changes the alt text or the caption (the image itself never changes). */
  updateMedia(id: string, patch: UpdateMediaRequest): Promise<ApiResult<'updateMedia'>>;
  deleteMedia(id: string, options?: DeleteMediaOptions): Promise<ApiResult<'deleteMedia'>>;
}

const OCTET_STREAM = 'application/octet-stream';

/** The Content-Type an upload of `image` declares. */
function typeOf(image: Blob | Uint8Array, options: UploadMediaOptions): string {
  if (options.contentType) return options.contentType;
  // Not `instanceof Blob`: a Blob of another realm (a test's DOM, a worker) is one too.
  const type = 'type' in image && typeof image.type === 'string' ? image.type : '';
  return type.startsWith('image/') ? type : OCTET_STREAM;
}

export function mediaCalls(api: Client<paths>): MediaCalls {
  return {
    uploadMedia(image, options = {}) {
      const { alt, caption, signal } = options;
      return api.POST('/media', {
        params: { query: { ...(alt ? { alt } : {}), ...(caption ? { caption } : {}) } },
        // The generated type of a binary body is a string; the bytes go as they are, not as JSON.
        body: image as unknown as string,
        bodySerializer: (body) => body,
        headers: { 'Content-Type': typeOf(image, options) },
        ...(signal ? { signal } : {}),
      });
    },
    listMedia: (query = {}, signal) => api.GET('/media', { params: { query }, ...(signal ? { signal } : {}) }),
    getMedia: (id) => api.GET('/media/{id}', { params: { path: { id } } }),
    updateMedia: (id, patch) => api.PATCH('/media/{id}', { params: { path: { id } }, body: patch }),
    deleteMedia: (id, options = {}) => api.DELETE('/media/{id}', { params: { path: { id }, query: options.force ? { force: true } : {} } }),
  };
}
