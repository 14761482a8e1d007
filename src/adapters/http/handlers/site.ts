import type { PostUseCases } from '../../../app/post-use-cases.js';
import type { Clock } from '../../../domain/index.js';
import type { HandlerRegistry } from '../registry.js';
import { exportArchive } from '../site-export.js';

export function siteHandlers(posts: PostUseCases, clock: Clock): Pick<HandlerRegistry, 'exportSite'> {
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
  };
}
