import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, Zip, ZipDeflate, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDownload, saveCheckedArchive } from './site-export.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

type Listed = { path: string; bytes: number; sha256: string };

/** A zip with the files, then a manifest; `edit` changes the manifest before it is written. */
function archive(files: Record<string, string>, edit: (manifest: { format: string; version: number; files: Listed[] }) => void = () => {}) {
  const listed = Object.entries(files).map(([path, text]) => ({ path, bytes: strToU8(text).byteLength, sha256: sha256(strToU8(text)) }));
  const manifest = { format: 'margincms-export', version: 1, counts: { posts: listed.length }, files: listed };
  edit(manifest);
  return zipSync({
    ...Object.fromEntries(Object.entries(files).map(([path, text]) => [path, strToU8(text)])),
    'manifest.json': strToU8(JSON.stringify(manifest)),
  });
}

/** As the server writes it: streamed entries with data descriptors (sizes after the data). */
function streamedArchive(files: Record<string, Uint8Array>): Uint8Array {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  const listed: Listed[] = [];
  const add = (path: string, data: Uint8Array) => {
    const entry = new ZipDeflate(path, { level: 6 });
    zip.add(entry);
    entry.push(data, true);
  };
  for (const [path, data] of Object.entries(files)) {
    listed.push({ path, bytes: data.byteLength, sha256: sha256(data) });
    add(path, data);
  }
  add(
    'manifest.json',
    strToU8(JSON.stringify({ format: 'margincms-export', version: 1, counts: { posts: listed.length }, files: listed })),
  );
  zip.end();
  return Buffer.concat(chunks);
}

const FILES = { 'a.md': '---\ntitle: A\n---\nBody A\n', 'b.md': '---\ntitle: B\n---\n' + 'long line\n'.repeat(5000) };

describe('checkDownload', () => {
  it('accepts an archive whose manifest names exactly its files with their sizes and SHA-256', () => {
    const result = checkDownload(archive(FILES));
    expect(result.files.map((f) => f.path).sort()).toEqual(['a.md', 'b.md']);
    expect(result.files.find((f) => f.path === 'b.md')!.bytes).toBe(strToU8(FILES['b.md']).byteLength);
    expect(result.counts).toEqual({ posts: 2 });
  });

  it('accepts the streamed entries the server writes (data descriptors), incompressible bytes included', () => {
    const files = { 'noise.md': new Uint8Array(randomBytes(300_000)), 'text.md': strToU8(FILES['b.md']) };
    expect(checkDownload(streamedArchive(files)).files).toHaveLength(2);
  });

  it('refuses an archive cut short, even after its manifest (no central directory)', () => {
    const whole = streamedArchive({ 'a.md': strToU8(FILES['a.md']) });
    for (const keep of [Math.floor(whole.byteLength / 2), whole.byteLength - 30]) {
      expect(() => checkDownload(whole.subarray(0, keep)), String(keep)).toThrow(/cut short/);
    }
  });

  it('refuses a file whose SHA-256 or size disagrees with the manifest', () => {
    expect(() => checkDownload(archive(FILES, (m) => (m.files[0]!.sha256 = '0'.repeat(64))))).toThrow(/a\.md does not match the manifest/);
    expect(() => checkDownload(archive(FILES, (m) => (m.files[1]!.bytes = 1)))).toThrow(/b\.md does not match the manifest/);
  });

  it('refuses a manifest that leaves a file out, lists one twice or names a missing one, and one of another format', () => {
    expect(() => checkDownload(archive(FILES, (m) => m.files.shift()))).toThrow(/a\.md is in the archive but not in the manifest/);
    expect(() => checkDownload(archive(FILES, (m) => m.files.push(m.files[0]!)))).toThrow(/lists a file twice/);
    expect(() => checkDownload(archive(FILES, (m) => m.files.push({ ...m.files[0]!, path: 'c.md' })))).toThrow(
      /c\.md is in the manifest but not in the archive/,
    );
    expect(() => checkDownload(archive(FILES, (m) => (m.version = 2)))).toThrow(/not a margincms-export version 1 manifest/);
    expect(() => checkDownload(zipSync({ 'a.md': strToU8('x') }))).toThrow(/no manifest\.json/);
  });
});

describe('saveCheckedArchive', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'margin-export-'));
    dirs.push(dir);
    return dir;
  };
  /** The bytes in chunks of 100, pulled one at a time; with `failAt`, the stream errors once that many were sent. */
  const streamOf = (bytes: Uint8Array, failAt?: number) => {
    let at = 0;
    const state = { cancelled: false };
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (failAt !== undefined && at >= failAt) return controller.error(new TypeError('terminated'));
        if (at >= bytes.byteLength) return controller.close();
        controller.enqueue(bytes.slice(at, at + 100));
        at += 100;
      },
      cancel() {
        state.cancelled = true;
      },
    });
    return { stream, state, sent: () => at };
  };

  it('writes the checked archive under its name, reports progress, and leaves no .part behind', async () => {
    const dir = folder();
    const bytes = streamedArchive({ 'a.md': strToU8(FILES['a.md']), 'b.md': strToU8(FILES['b.md']) });
    const seen: number[] = [];
    const result = await saveCheckedArchive(streamOf(bytes).stream, join(dir, 'site.zip'), (n) => seen.push(n));
    expect(readFileSync(join(dir, 'site.zip')).equals(Buffer.from(bytes))).toBe(true);
    expect(readdirSync(dir)).toEqual(['site.zip']);
    expect(result.bytes).toBe(bytes.byteLength);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)).toBe(bytes.byteLength);
  });

  it('keeps nothing when the stream fails after some bytes were written, or the archive does not check out', async () => {
    const dir = folder();
    const bytes = streamedArchive({ 'b.md': strToU8(FILES['b.md']) });
    const failing = streamOf(bytes, 300);
    const written: number[] = [];
    await expect(saveCheckedArchive(failing.stream, join(dir, 'failed.zip'), (n) => written.push(n))).rejects.toThrow('terminated');
    expect(written.at(-1)).toBe(300);
    const lying = archive(FILES, (m) => (m.files[0]!.bytes = 2));
    await expect(saveCheckedArchive(streamOf(lying).stream, join(dir, 'lying.zip'), () => undefined)).rejects.toThrow(/does not match/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves another export’s .part alone and cancels the download', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'site.zip.part'), 'someone else');
    const download = streamOf(archive(FILES));
    const error = await saveCheckedArchive(download.stream, join(dir, 'site.zip'), () => undefined).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('EEXIST');
    expect(download.state.cancelled).toBe(true);
    expect(readFileSync(join(dir, 'site.zip.part'), 'utf8')).toBe('someone else');
    expect(existsSync(join(dir, 'site.zip'))).toBe(false);
  });

  it('never replaces a file that appeared under the name during the export', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'site.zip'), 'created meanwhile');
    const error = await saveCheckedArchive(streamOf(archive(FILES)).stream, join(dir, 'site.zip'), () => undefined).catch(
      (e: unknown) => e,
    );
    expect((error as NodeJS.ErrnoException).code).toBe('EEXIST');
    expect(readFileSync(join(dir, 'site.zip'), 'utf8')).toBe('created meanwhile');
    expect(readdirSync(dir)).toEqual(['site.zip']);
  });
});
