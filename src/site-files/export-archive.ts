/**
 * The whole-site export: a zip written by fflate as a stream, one markdown file per post and, last,
 * `manifest.json`. Posts are taken a batch at a time from the walk and only when the reader of the
 * stream asks for more, so the memory an export holds is one batch and the manifest's list of
 * files, whatever the size of the site.
 */
import { createHash } from 'node:crypto';
import { Zip, ZipDeflate } from 'fflate';
import { stringify as toYaml } from 'yaml';
import { isValidSlug, type Post, type PostFilter, type PostStatus } from '../../domain/index.js';

export type ExportLayout = 'flat' | 'hugo';

/** The manifest's `format` and `version`: what an import checks before it reads anything else. */
export const EXPORT_FORMAT = 'margincms-export';
export const EXPORT_VERSION = 1;

interface ManifestFile {
  path: string;
  id: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exportedAt: string;
  layout: ExportLayout;
  filters: { status: PostStatus[] | null; tag: string | null };
  counts: { posts: number } & Record<PostStatus, number>;
  files: ManifestFile[];
}

const encoder = new TextEncoder();

/** A post's path in the archive: `<slug>.md`, under `content/posts/` for Hugo; the id when a stored slug is not valid. */
export function exportPath(post: Post, layout: ExportLayout): string {
  const name = `${isValidSlug(post.slug) ? post.slug : post.id}.md`;
  return layout === 'hugo' ? `content/posts/${name}` : name;
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/**
 * The post as an exported markdown file: YAML front matter written by the YAML library, then the
 * body unchanged. `flat` carries every field MarginCMS stores (an import reads them back);
 * `hugo` the keys Hugo reads, with MarginCMS's own under `margin`.
 */
export function exportedFile(post: Post, layout: ExportLayout): string {
  const frontMatter =
    layout === 'flat'
      ? {
          id: post.id,
          title: post.title,
          slug: post.slug,
          excerpt: post.excerpt,
          tags: post.tags,
          status: post.status,
          createdAt: iso(post.createdAt),
          updatedAt: iso(post.updatedAt),
          publishedAt: iso(post.publishedAt),
          publishAt: iso(post.publishAt),
        }
      : {
          title: post.title,
          slug: post.slug,
          description: post.excerpt,
          date: iso(post.publishedAt ?? post.createdAt),
          lastmod: iso(post.updatedAt),
          ...(post.publishAt !== null ? { publishDate: iso(post.publishAt) } : {}),
          draft: post.status !== 'published',
          tags: post.tags,
          margin: { id: post.id, status: post.status, createdAt: iso(post.createdAt) },
        };
  return `---\n${toYaml(frontMatter, { lineWidth: 0 })}---\n${post.body}`;
}

export interface ExportOptions {
  layout: ExportLayout;
  filter: PostFilter;
  exportedAt: Date;
}

/**
 * The archive as a byte stream: pulls one batch from `batches` each time the stream's reader has
 * taken what the last one produced. A failure of the walk errors the stream (the archive is cut
 * short, without its central directory, so no unzip tool mistakes it for a whole one).
 */
export function exportArchive(batches: AsyncIterator<Post[]>, options: ExportOptions): ReadableStream<Uint8Array> {
  const manifest: Manifest = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: options.exportedAt.toISOString(),
    layout: options.layout,
    filters: { status: options.filter.status ? [...options.filter.status] : null, tag: options.filter.tag ?? null },
    counts: { posts: 0, draft: 0, published: 0, archived: 0 },
    files: [],
  };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let failed = false;
  const zip = new Zip((error, chunk, final) => {
    if (failed) return;
    if (error) {
      failed = true;
      controller.error(error);
      return;
    }
    controller.enqueue(chunk);
    if (final) controller.close();
  });
  const add = (path: string, bytes: Uint8Array, mtime: Date) => {
    const file = new ZipDeflate(path, { level: 6 });
    file.mtime = mtime;
    zip.add(file);
    file.push(bytes, true);
  };
  let ended = false;
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      async pull() {
        if (ended) return;
        const next = await batches.next();
        if (next.done) {
          ended = true;
          add('manifest.json', encoder.encode(`${JSON.stringify(manifest, null, 2)}\n`), options.exportedAt);
          zip.end();
          return;
        }
        for (const post of next.value) {
          const bytes = encoder.encode(exportedFile(post, options.layout));
          const path = exportPath(post, options.layout);
          manifest.files.push({ path, id: post.id, bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') });
          manifest.counts.posts += 1;
          manifest.counts[post.status] += 1;
          add(path, bytes, post.updatedAt);
        }
      },
      async cancel() {
        failed = true;
        zip.terminate();
        await batches.return?.();
      },
    },
    // Pull again only once the reader has taken what is queued (about one batch of files).
    { highWaterMark: 1 },
  );
}
