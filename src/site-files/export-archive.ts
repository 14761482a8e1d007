/**
 * The whole-site export: a zip written by fflate as a stream, one markdown file per post and, last,
 * the manifest. Posts are taken a batch at a time from the walk and only when the reader of the
 * stream asks for more, so the memory an export holds is one batch and the manifest's list of
 * files, whatever the size of the site.
 */
import { Zip, ZipDeflate } from 'fflate';
import type { Post, PostFilter } from '../domain/index.js';
import { digestOf, EXPORT_FORMAT, EXPORT_VERSION, MANIFEST_PATH, manifestText, type ExportLayout, type Manifest } from './manifest.js';
import { ExportImages, type ReadImage } from './images.js';
import { postBundleDir, postFileOf, postFilePath } from './post-file.js';

const encoder = new TextEncoder();

export interface ExportOptions {
  layout: ExportLayout;
  filter: PostFilter;
  exportedAt: Date;
  /** Reads a media of the library and its original: each post's images are written beside it (images.ts). Without it, none are. */
  readImage?: ReadImage;
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
  // The images' entries carry the export's time: the same files whenever the same site is exported.
  const images = options.readImage ? new ExportImages(options.readImage, options.layout, options.exportedAt) : null;
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
          add(MANIFEST_PATH, encoder.encode(manifestText(manifest)), options.exportedAt);
          zip.end();
          return;
        }
        for (const post of next.value) {
          const written = images === null ? null : await images.of(post, postBundleDir(post));
          for (const file of written?.files ?? []) {
            manifest.files.push({ path: file.path, id: post.id, ...digestOf(file.bytes), kind: 'image' });
            add(file.path, file.bytes, file.mtime);
          }
          const exported = written === null ? post : { ...post, body: written.body };
          const bytes = encoder.encode(postFileOf(exported, options.layout, written?.cover ?? {}));
          const path = postFilePath(post, options.layout, written?.bundle ?? false);
          manifest.files.push({ path, id: post.id, ...digestOf(bytes) });
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
