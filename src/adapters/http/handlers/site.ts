import type { PostUseCases } from '../../../app/post-use-cases.js';
import type { Clock } from '../../../domain/index.js';
import { exportArchive } from '../../../site-files/export-archive.js';
import { IMPORT_OWN_LIMITS, importFilesOf, type PostFieldsCheck } from '../../../site-files/import-files.js';
import { ArchiveRefused, checkZip, type ArchiveLimits } from '../../../site-files/zip.js';
import type { Contract } from '../contract.js';
import { problemFromRefusal } from '../problem-map.js';
import { actorOf } from '../principal.js';
import type { HandlerRegistry } from '../registry.js';

export interface SiteImportDeps {
  /** The composition root passes these from the configuration (IMPORT_MAX_ENTRIES, IMPORT_MAX_INFLATED_BYTES). */
  limits: Pick<ArchiveLimits, 'maxEntries' | 'maxInflatedBytes'>;
  /** The largest markdown file an import reads (the request body limit). */
  maxFileBytes: number;
  /** The contract: imported posts are checked against its `CreatePostRequest`. */
  contract: Pick<Contract, 'schemaValidator'>;
}

/** The contract's `CreatePostRequest` as the import's check of a post's fields: each error as `pointer: message`. */
function postFieldsCheck(contract: Pick<Contract, 'schemaValidator'>): PostFieldsCheck {
  const validate = contract.schemaValidator('CreatePostRequest');
  return (fields) =>
    validate(fields)
      ? null
      : (validate.errors ?? []).map((error) => `${error.instancePath || '/'}: ${error.message ?? 'is invalid'}`).join('; ');
}

export function siteHandlers(
  posts: PostUseCases,
  clock: Clock,
  imports: SiteImportDeps,
): Pick<HandlerRegistry, 'exportSite' | 'importSite'> {
  let checkFields: PostFieldsCheck | undefined;
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
        body: exportArchive(batches, { layout: query.layout, filter, exportedAt }),
        headers: { 'Content-Disposition': `attachment; filename="margin-export-${exportedAt.toISOString().slice(0, 10)}.zip"` },
      };
    },

    async importSite({ query, body, principal }) {
      try {
        // The whole archive is checked (names, kinds, sizes, every entry inflated once) before any file is read.
        const archive = await checkZip(body, { ...imports.limits, maxFileBytes: imports.maxFileBytes, ownLimits: IMPORT_OWN_LIMITS });
        try {
          checkFields ??= postFieldsCheck(imports.contract);
          const { source, files } = await importFilesOf(archive, checkFields, imports.maxFileBytes);
          const report = await posts.imports.run(files, query.mode, actorOf({ principal }));
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
