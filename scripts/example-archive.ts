/**
 * Writes openapi/components/examples/SiteExportFlat.yaml: a real export of two posts (the
 * exporter's own files and manifest) as a zip whose every byte is ASCII, so the example's string
 * value is the archive byte for byte and the Prism mock serves an archive that unzips. Entries are
 * stored (not deflated) and the instants are searched, a millisecond at a time, until the CRCs,
 * sizes and offsets hold no byte above 0x7F. Run: `npx tsx scripts/example-archive.ts`.
 */
import { writeFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { zipSync, type Zippable } from 'fflate';
import { stringify } from 'yaml';
import { digestOf, EXPORT_FORMAT, EXPORT_VERSION, MANIFEST_PATH, manifestText, type Manifest } from '../src/site-files/manifest.js';
import { postFileOf, postFilePath } from '../src/site-files/post-file.js';
import type { Post } from '../src/domain/index.js';

const encoder = new TextEncoder();
// A DOS date and time whose two bytes each are ASCII: 2026-11-01 00:00:00.
const MTIME = new Date(2026, 10, 1, 0, 0, 0);

// Phrasings to pick from: the sizes and offsets the archive records must be ASCII bytes too.
const EXCERPTS = [
  'Why offsets skip rows, and what to use instead.',
  'Why offsets skip rows.',
  'Offsets skip rows; cursors do not.',
  'What to use instead of offsets.',
];
const NOTES = [
  'Notes for later.\n',
  'Notes for later: what a cursor is, what it costs, and when an offset is still fine.\n',
  'Notes for later: what a cursor costs.\n',
  'Notes for later: what a cursor is, and what it costs.\n',
];

const ARCHIVED = [
  'Offsets, a retrospective',
  'Offset pagination, retired',
  'Why we left offsets',
  'Page numbers, archived',
  'Old paging notes',
];
let archivedTitle = ARCHIVED[0]!;

function posts(excerpt: string, notes: string, ms: [number, number, number?]): Post[] {
  const first: Post = {
    id: '01JDQ9A2C4E6G8J0K2M4P6R8TA',
    title: 'Cursor pagination without tears',
    slug: 'cursor-pagination-without-tears',
    excerpt,
    body: '# Cursor pagination\n\nA cursor names the last row seen.\n',
    tags: ['api', 'postgres'],
    status: 'published',
    version: 3,
    wordCount: 9,
    createdAt: new Date('2026-11-20T16:02:41.007Z'),
    updatedAt: new Date(Date.UTC(2026, 10, 21, 9, 30, 0, ms[0])),
    publishedAt: new Date('2026-11-21T09:30:00.000Z'),
    publishAt: null,
    coverImage: null,
    seo: { title: null, description: null, canonicalUrl: null },
  };
  const second: Post = {
    id: '01JDQB7K2M4P6R8TAC0E2G4J6M',
    title: 'Drafting in the open',
    slug: 'drafting-in-the-open',
    excerpt: '',
    body: notes,
    tags: [],
    status: 'draft',
    version: 1,
    wordCount: 3,
    createdAt: new Date(Date.UTC(2026, 10, 28, 8, 0, 0, ms[1])),
    updatedAt: new Date(Date.UTC(2026, 10, 28, 8, 0, 0, ms[1])),
    publishedAt: null,
    publishAt: null,
    coverImage: null,
    seo: { title: null, description: null, canonicalUrl: null },
  };
  const slug = archivedTitle
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const third: Post = {
    id: '01JDQ3F5H7K9M1P3R5T7V9X1Z3',
    title: archivedTitle,
    slug,
    excerpt: '',
    body: 'Superseded by cursor pagination.\n',
    tags: ['api'],
    status: 'archived',
    version: 4,
    wordCount: 4,
    createdAt: new Date('2026-10-02T12:00:00.000Z'),
    updatedAt: new Date(Date.UTC(2026, 10, 30, 17, 45, 0, ms[2] ?? 0)),
    publishedAt: new Date('2026-10-02T12:00:00.000Z'),
    publishAt: null,
    coverImage: null,
    seo: { title: null, description: null, canonicalUrl: null },
  };
  return [third, first, second];
}

function archive(excerpt: string, notes: string, ms: [number, number, number], exportedMs: number): Uint8Array {
  const files: Zippable = {};
  const manifest: Manifest = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: new Date(Date.UTC(2026, 11, 4, 10, 0, 0, exportedMs)).toISOString(),
    layout: 'flat',
    filters: { status: null, tag: null },
    counts: { posts: 3, draft: 1, published: 1, archived: 1 },
    files: [],
  };
  for (const post of posts(excerpt, notes, ms)) {
    const bytes = encoder.encode(postFileOf(post, 'flat'));
    const path = postFilePath(post, 'flat');
    manifest.files.push({ path, id: post.id, ...digestOf(bytes) });
    files[path] = [bytes, { level: 0, mtime: MTIME }];
  }
  files[MANIFEST_PATH] = [encoder.encode(manifestText(manifest)), { level: 0, mtime: MTIME }];
  return zipSync(files);
}

/** Offsets of the CRC fields: 14 bytes into each local header, 16 into each central one. */
function crcFields(zip: Uint8Array): Array<[number, number]> {
  const fields: Array<[number, number]> = [];
  for (let i = 0; i + 4 <= zip.length; i++) {
    if (zip[i] !== 0x50 || zip[i + 1] !== 0x4b) continue;
    if (zip[i + 2] === 3 && zip[i + 3] === 4) fields.push([i + 14, i + 18]);
    if (zip[i + 2] === 1 && zip[i + 3] === 2) fields.push([i + 16, i + 20]);
  }
  return fields;
}

const nonAscii = (bytes: Uint8Array) => [...bytes.keys()].filter((i) => bytes[i]! >= 0x80);

const asciiWord = (n: number) => [0, 8, 16, 24].every((shift) => ((n >>> shift) & 0xff) < 0x80);
const fileOf = (post: Post) => encoder.encode(postFileOf(post, 'flat'));

let found: Uint8Array | undefined;
search: for (const title of ARCHIVED) {
  archivedTitle = title;
  for (const excerpt of EXCERPTS) {
    for (const notes of NOTES) {
      const probe = archive(excerpt, notes, [0, 0, 0], 0);
      const crcs = crcFields(probe);
      // Only CRC bytes may be off: they are what the instants below change; sizes and offsets are not.
      if (nonAscii(probe).some((i) => !crcs.some(([from, to]) => i >= from && i < to))) continue;
      // Each entry's CRC depends on its own bytes: pick each post's millisecond, then the manifest's.
      const pick = (k: 0 | 1 | 2) =>
        [...Array(1000).keys()].find((ms) => {
          const at: [number, number, number] = [0, 0, 0];
          at[k === 2 ? 2 : k] = ms;
          const post = posts(excerpt, notes, at)[k === 2 ? 0 : k + 1]!;
          return asciiWord(crc32(fileOf(post)));
        });
      const [a, b, c] = [pick(0), pick(1), pick(2)];
      if (a === undefined || b === undefined || c === undefined) continue;
      for (let m = 0; m < 1000; m++) {
        const candidate = archive(excerpt, notes, [a, b, c], m);
        if (nonAscii(candidate).length === 0) {
          found = candidate;
          break search;
        }
      }
    }
  }
}
if (!found) throw new Error('no ASCII-only archive found');
const text = String.fromCharCode(...found);
const example = {
  summary: 'Three posts and the manifest (a real archive: every byte is ASCII, so this string is the zip)',
  value: text,
};
writeFileSync(new URL('../openapi/components/examples/SiteExportFlat.yaml', import.meta.url), stringify(example, { lineWidth: 0 }));
console.log(`wrote SiteExportFlat.yaml: ${found.length} bytes`);
