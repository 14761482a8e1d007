import type { PostUseCases } from '../../../app/post-use-cases.js';
import type { Actor, Clock } from '../../../domain/index.js';
import type { HandlerRegistry, Principal } from '../registry.js';
import { exportArchive } from '../site-export.js';
import { checkArchive, type ArchiveLimits } from '../site-import/archive.js';
import { IMPORT_OWN_LIMITS, importFilesOf, postFieldsValidator } from '../site-import/import-files.js';

export interface SiteImportDeps {
  /** The composition root passes these from the configuration (IMPORT_MAX_ENTRIES, IMPORT_MAX_INFLATED_BYTES). */
  limits: Pick<ArchiveLimits, 'maxEntries' | 'maxInflatedBytes'>;
  /** The largest markdown file an import reads (the request body limit). */
  maxFileBytes: number;
  /** The bundle: imported posts are checked against its `CreatePostRequest`. */
  document: Record<string, unknown>;
}

const actorOf = (principal: Principal | null): Actor => ({ id: principal!.userId, name: principal!.name });

export function siteHandlers(
  posts: PostUseCases,
  clock: Clock,
  imports: SiteImportDeps,
): Pick<HandlerRegistry, 'exportSite' | 'importSite'> {
  let validator: ReturnType<typeof postFieldsValidator> | undefined;
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
      // The whole archive is checked (names, kinds, sizes, every entry inflated once) before any file is read.
      const archive = await checkArchive(body, {
        ...imports.limits,
        maxFileBytes: imports.maxFileBytes,
        ownLimits: IMPORT_OWN_LIMITS,
      });
      try {
        validator ??= postFieldsValidator(imports.document);
        const { source, files } = await importFilesOf(archive, validator, imports.maxFileBytes);
        const report = await posts.imports.run(files, query.mode, actorOf(principal));
        return { status: 200, body: { mode: report.mode, source, counts: report.counts, items: report.items } };
      } finally {
        archive.close();
      }
    },
  };
}
