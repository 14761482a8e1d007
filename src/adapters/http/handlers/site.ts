import { createHash } from 'node:crypto';
import { uploadMedia, type MediaDeps } from '../../../app/media.js';
import type { PostUseCases } from '../../../app/post-use-cases.js';
import type { ImageImportDeps } from '../../../app/site-import-images.js';
import { mediaBlobKey, originalName, ValidationError, type Clock, type Media } from '../../../domain/index.js';
import { exportArchive } from '../../../site-files/export-archive.js';
import type { ReadImage } from '../../../site-files/images.js';
import { importFileLimitOf, importFilesOf, importOwnLimits, type PostFieldsCheck } from '../../../site-files/import-files.js';
import { ArchiveRefused, checkZip, type ArchiveLimits } from '../../../site-files/zip.js';
import type { SiteInfo } from '../content/feeds.js';
import type { Contract } from '../contract.js';
import { fieldMessage } from '../field-messages.js';
import { problemFromRefusal } from '../problem-map.js';
import { actorOf } from '../principal.js';
import type { HandlerRegistry } from '../registry.js';

export interface SiteImportDeps {
  /** The composition root passes these from the configuration (IMPORT_MAX_ENTRIES, IMPORT_MAX_INFLATED_BYTES). */
  limits: Pick<ArchiveLimits, 'maxEntries' | 'maxInflatedBytes'>;
  /** The largest markdown file an import reads (the request body limit). */
  maxFileBytes: number;
  /** The largest image an import reads (the media upload limit, MEDIA_MAX_BYTES). */
  maxImageBytes: number;
  /** The most images one import decodes, and their pixels together (IMPORT_MAX_IMAGES, IMPORT_MAX_IMAGE_PIXELS). */
  imageLimits: ImageImportDeps['limits'];
  /** The contract: imported posts are checked against its `CreatePostRequest`. */
  contract: Pick<Contract, 'schemaValidator'>;
}

/** The contract's `CreatePostRequest` as the import's check of a post's fields: each error as `pointer: message`, in words. */
function postFieldsCheck(contract: Pick<Contract, 'schemaValidator'>): PostFieldsCheck {
  const validate = contract.schemaValidator('CreatePostRequest');
  return (fields) =>
    validate(fields) ? null : (validate.errors ?? []).map((error) => `${error.instancePath || '/'}: ${fieldMessage(error)}`).join('; ');
}

/** The media library, for the images an export writes and an import stores; `filesUrl` is where its files are public for a request. */
export interface SiteMedia {
  deps: MediaDeps;
  filesUrl: (request: { origin: string }) => string;
}

/** A media and its original's bytes, or null when either is gone. */
function imageReader({ media, blobs }: Pick<MediaDeps, 'media' | 'blobs'>): ReadImage {
  return async (id) => {
    const found = await media.get(id);
    if (found === null) return null;
    const original = await blobs.get(mediaBlobKey(id, { name: originalName(found.contentType) }));
    return original === null ? null : { media: found, bytes: original.bytes };
  };
}

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The media library as an import uses it: uploads as `POST /media` makes them, found by hash, headers read, the originals' URLs. */
function imageImportDeps(deps: MediaDeps, filesUrl: string, limits: ImageImportDeps['limits']): ImageImportDeps {
  return {
    limits,
    async upload(bytes, { alt, caption }) {
      try {
        return await uploadMedia(deps, bytes, { alt, caption });
      } catch (error) {
        // An alt text the library refuses (too long, unstorable) is no reason to leave the image out.
        if (error instanceof ValidationError) return uploadMedia(deps, bytes);
        throw error;
      }
    },
    async find(bytes) {
      const sha256 = sha256Of(bytes);
      return { sha256, media: await deps.media.findByHash(sha256) };
    },
    inspect: (bytes) => deps.images.inspect(bytes),
    url: (media: Media) => `${filesUrl}/${media.id}/${originalName(media.contentType)}`,
  };
}

/**
 * getSite: the public site as configured, with its post URL template (`postUrl`'s rule, `{slug}`
 * left in), so the admin links to a published post where readers find it.
 */
export function siteInfoHandlers(site: Omit<SiteInfo, 'contentApiUrl'>): Pick<HandlerRegistry, 'getSite'> {
  const body = { title: site.title, url: site.siteUrl, postUrlTemplate: site.siteUrl + site.postPath };
  return {
    getSite() {
      return Promise.resolve({ status: 200, body });
    },
  };
}

export function siteHandlers(
  posts: PostUseCases,
  clock: Clock,
  imports: SiteImportDeps,
  media?: SiteMedia,
): Pick<HandlerRegistry, 'exportSite' | 'importSite'> {
  let checkFields: PostFieldsCheck | undefined;
  const readImage = media === undefined ? undefined : imageReader(media.deps);
  return {
    async exportSite({ query }) {
      // A bad tag is a 422 here, before the first byte of the archive.
      const { filter, batches } = posts.queries.walk({
        ...(query.status ? { status: query.status } : {}),
        ...(query.tag !== undefined ? { tag: query.tag } : {}),
      });
      const exportedAt = clock.now();
      return {
        status: 200,
        body: exportArchive(batches, { layout: query.layout, filter, exportedAt, ...(readImage ? { readImage } : {}) }),
        headers: { 'Content-Disposition': `attachment; filename="margin-export-${exportedAt.toISOString().slice(0, 10)}.zip"` },
      };
    },

    async importSite(request) {
      const { query, body, principal } = request;
      const images = media === undefined ? undefined : imageImportDeps(media.deps, media.filesUrl(request), imports.imageLimits);
      try {
        // The whole archive is checked (names, kinds, sizes, every entry inflated once) before any file is read.
        const { maxEntries } = imports.limits;
        const { maxFileBytes, maxImageBytes } = imports;
        const archive = await checkZip(body, {
          ...imports.limits,
          maxFileBytes,
          maxFileBytesOf: importFileLimitOf({ maxFileBytes, maxImageBytes }),
          ownLimits: importOwnLimits(maxEntries),
        });
        try {
          checkFields ??= postFieldsCheck(imports.contract);
          const { source, files } = await importFilesOf(archive, checkFields, { maxFileBytes, maxImageBytes, maxEntries });
          const report = await posts.imports.run(files, query.mode, actorOf({ principal }), images);
          return { status: 200, body: { mode: report.mode, source, counts: report.counts, items: report.items } };
        } finally {
          archive.close();
        }
      } catch (error) {
        throw error instanceof ArchiveRefused ? problemFromRefusal(error) : error;
      }
    },
  };
}
