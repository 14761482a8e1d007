import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { ImportFile } from '../app/site-import.js';
import type { ArchiveImage } from '../app/site-import-images.js';
import { importFileLimitOf, importFilesOf, importOwnLimits } from './import-files.js';
import { digestOf, manifestText, type Manifest } from './manifest.js';
import { checkZip } from './zip.js';

const encoder = new TextEncoder();
const LIMITS = { maxEntries: 100, maxInflatedBytes: 64 << 20, maxFileBytes: 1 << 20, maxImageBytes: 8 << 20 };

/** A post file as a flat export writes it. */
const flatFile = (id: string, slug: string, status: string, body: string) =>
  encoder.encode(
    `---\nid: ${id}\ntitle: ${slug}\nslug: ${slug}\nexcerpt: ""\ntags: []\nstatus: ${status}\ncreatedAt: 2025-01-02T03:04:05.000Z\n` +
      `updatedAt: 2025-01-03T03:04:05.000Z\npublishedAt: ${status === 'draft' ? 'null' : '2025-01-02T03:04:05.000Z'}\npublishAt: null\n---\n${body}`,
  );

/** A zip of `files` with a manifest listing `listed` (path → the bytes the export wrote), as an export's. */
function exportZip(files: Record<string, Uint8Array>, listed: Record<string, Uint8Array>): Uint8Array {
  const manifest: Manifest = {
    format: 'margincms-export',
    version: 1,
    exportedAt: '2026-01-01T00:00:00.000Z',
    layout: 'flat',
    filters: { status: null, tag: null },
    counts: { posts: 0, draft: 0, published: 0, archived: 0 },
    files: Object.entries(listed).map(([path, bytes]) => ({
      path,
      id: '01JDQ8Z4M6X2V7K9T3N5R8W1YB',
      ...digestOf(bytes),
      ...(path.endsWith('.md') ? {} : { kind: 'image' as const }),
    })),
  };
  return zipSync({ ...files, 'manifest.json': encoder.encode(manifestText(manifest)) });
}

async function read(zip: Uint8Array): Promise<{ source: string; files: Map<string, ImportFile> }> {
  const archive = await checkZip(zip, {
    ...LIMITS,
    maxFileBytesOf: importFileLimitOf(LIMITS),
    ownLimits: importOwnLimits(LIMITS.maxEntries),
  });
  const { source, files } = await importFilesOf(archive, () => null, LIMITS);
  const byPath = new Map<string, ImportFile>();
  for await (const file of files) byPath.set(file.path, file);
  return { source, files: byPath };
}

const postOf = (file: ImportFile | undefined) => {
  if (file === undefined || !('post' in file)) throw new Error(`not a post: ${JSON.stringify(file)}`);
  return file;
};

const DRAFT_ID = '01JDQ8Z4M6X2V7K9T3N5R8W1YB';
const ARCHIVED_ID = '01JDQ9A7C2P4R6T8V0X2Z4B6D8';
const PUBLISHED_ID = '01JDQ9C3E5G7J9K1M3P5R7T9V1';

describe('importFilesOf: a MarginCMS export edited by hand', () => {
  const draft = flatFile(DRAFT_ID, 'a-draft', 'draft', 'Draft body\n');
  const archived = flatFile(ARCHIVED_ID, 'old-news', 'archived', 'Archived body\n');
  const published = flatFile(PUBLISHED_ID, 'live', 'published', 'Live body\n');

  it('reads a file that is not what the manifest lists by its own front matter: a draft stays a draft, archived stays archived, and the file is noted', async () => {
    const { source, files } = await read(
      exportZip(
        {
          'a-draft.md': flatFile(DRAFT_ID, 'a-draft', 'draft', 'Draft body, edited\n'),
          'old-news.md': flatFile(ARCHIVED_ID, 'old-news', 'archived', 'Archived body, edited\n'),
          'live.md': published,
          'added.md': encoder.encode('---\ntitle: Added by hand\nstatus: draft\n---\nNew\n'),
        },
        { 'a-draft.md': draft, 'old-news.md': archived, 'live.md': published },
      ),
    );
    expect(source).toBe('margincms');
    const edited = postOf(files.get('a-draft.md'));
    expect(edited.post).toMatchObject({ id: DRAFT_ID, status: 'draft', body: 'Draft body, edited\n', publishedAt: null });
    expect(edited.note).toMatch(
      /^The file is not what the manifest lists \(\d+ bytes with SHA-256 [0-9a-f]{64}; the manifest lists \d+ bytes with [0-9a-f]{64}\): read by its own front matter\.$/,
    );
    expect(postOf(files.get('old-news.md')).post).toMatchObject({ id: ARCHIVED_ID, status: 'archived', body: 'Archived body, edited\n' });
    const added = postOf(files.get('added.md'));
    expect(added.post).toMatchObject({ id: null, slug: 'added', title: 'Added by hand', status: 'draft' });
    expect(added.note).toBe('The file is not listed in the manifest: read by its own front matter.');
    const same = postOf(files.get('live.md'));
    expect(same.post).toMatchObject({ id: PUBLISHED_ID, status: 'published' });
    expect(same.note).toBeUndefined();
  });

  it('reads an image up to the media upload limit, not the markdown one; an edited one as it is, noted; one over the limit is skipped unread', async () => {
    const big = new Uint8Array(3 << 20).fill(7); // 3 MiB: over the markdown limit (1 MiB), within the image one (8 MiB)
    const huge = new Uint8Array(9 << 20).fill(8);
    const edited = new Uint8Array(big).fill(9, 0, 10);
    const post = encoder.encode(
      `---\nid: ${DRAFT_ID}\ntitle: P\nslug: p\nstatus: draft\ncover_image: media/big.png\n---\n![a](media/edited.png) ![b](media/huge.png)\n`,
    );
    const { files } = await read(
      exportZip(
        { 'media/big.png': big, 'media/edited.png': edited, 'media/huge.png': huge, 'p.md': post },
        { 'media/big.png': big, 'media/edited.png': big, 'media/huge.png': huge, 'p.md': post },
      ),
    );
    const { images } = postOf(files.get('p.md'));
    // Compared by digest: a deep comparison of megabytes takes vitest minutes.
    const digest = (outcome: Awaited<ReturnType<ArchiveImage['read']>>) => ('bytes' in outcome ? digestOf(outcome.bytes) : outcome);
    const bigRead = await images!.cover!.image.read();
    expect(digest(bigRead)).toEqual(digestOf(big));
    expect('note' in bigRead).toBe(false);
    const [editedLink, hugeLink] = images!.links;
    const editedRead = await editedLink!.image.read();
    expect(digest(editedRead)).toEqual(digestOf(edited));
    expect('note' in editedRead && editedRead.note).toMatch(/^The image is not what the manifest lists .*: stored as it is\.$/);
    expect(await hugeLink!.image.read()).toEqual({
      skip: { reason: 'too_large', detail: `The image is ${9 << 20} bytes, more than the ${8 << 20} an image may be (MEDIA_MAX_BYTES).` },
    });
  });

  it('still skips a markdown file over the markdown limit, whatever the image limit', async () => {
    const long = encoder.encode(`---\ntitle: Long\n---\n${'x'.repeat((1 << 20) + 1)}`);
    const { files } = await read(zipSync({ 'long.md': long }));
    expect(files.get('long.md')).toMatchObject({ skip: { reason: 'too_large' } });
  });
});

describe('importFilesOf: MarginCMS post files in a zip without a manifest', () => {
  it('keeps their status and dates, not their ids (matched by slug), and a generator file its status: draft or archived', async () => {
    const hugoLayout = encoder.encode(
      `---\ntitle: Shelved\nslug: shelved\ndescription: ""\ndate: 2025-01-02T03:04:05.000Z\ndraft: true\n` +
        `margin:\n  id: ${ARCHIVED_ID}\n  status: archived\n  createdAt: 2025-01-02T03:04:05.000Z\n---\nBody\n`,
    );
    const { source, files } = await read(
      zipSync({
        'a-draft.md': flatFile(DRAFT_ID, 'a-draft', 'draft', 'Draft\n'),
        'content/posts/shelved.md': hugoLayout,
        'loose-draft.md': encoder.encode('---\ntitle: Loose\nstatus: draft\n---\n'),
        'loose-archived.md': encoder.encode('---\ntitle: Old\nstatus: archived\ndraft: true\n---\n'),
        'wordpress.md': encoder.encode('---\ntitle: WP\nid: 123\nstatus: publish\n---\n'),
      }),
    );
    expect(source).toBe('markdown');
    expect(postOf(files.get('a-draft.md')).post).toMatchObject({
      id: null,
      status: 'draft',
      createdAt: new Date('2025-01-02T03:04:05.000Z'),
      updatedAt: new Date('2025-01-03T03:04:05.000Z'),
    });
    expect(postOf(files.get('content/posts/shelved.md')).post).toMatchObject({ id: null, slug: 'shelved', status: 'archived' });
    expect(postOf(files.get('loose-draft.md')).post).toMatchObject({ status: 'draft' });
    expect(postOf(files.get('loose-archived.md')).post).toMatchObject({ status: 'archived', publishedAt: null });
    expect(postOf(files.get('wordpress.md')).post).toMatchObject({ id: null, status: 'published' });
  });
});
