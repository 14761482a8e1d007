import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveChecker, saveCheckedArchive } from './site-export.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A zip like the server's: the files, then a manifest naming them (`lie` alters one entry of it). */
function archive(files: Record<string, string>, lie?: { path: string; sha256?: string; bytes?: number } | 'drop'): Uint8Array {
  const entries = Object.entries(files).map(([path, text]) => ({ path, bytes: strToU8(text).byteLength, sha256: sha256(strToU8(text)) }));
  const listed = lie === 'drop' ? entries.slice(1) : entries.map((e) => (lie && e.path === lie.path ? { ...e, ...lie } : e));
  const manifest = { format: 'margincms-export', version: 1, counts: { posts: entries.length }, files: listed };
  return zipSync({
    ...Object.fromEntries(Object.entries(files).map(([path, text]) => [path, strToU8(text)])),
    'manifest.json': strToU8(JSON.stringify(manifest)),
  });
}

function checked(bytes: Uint8Array, chunk = 7) {
  const checker = new ArchiveChecker();
  for (let at = 0; at < bytes.byteLength; at += chunk) checker.push(bytes.subarray(at, at + chunk));
  return checker.finish();
}

const FILES = { 'a.md': '---\ntitle: A\n---\nBody A\n', 'b.md': '---\ntitle: B\n---\n' + 'long line\n'.repeat(5000) };

describe('ArchiveChecker', () => {
  it('accepts an archive whose manifest names every file with its size and SHA-256, read in small chunks', () => {
    const result = checked(archive(FILES));
    expect(result.files.map((f) => f.path)).toEqual(['a.md', 'b.md']);
    expect(result.files[1]!.bytes).toBe(strToU8(FILES['b.md']).byteLength);
    expect(result.manifest.counts).toEqual({ posts: 2 });
  });

  it('refuses an archive cut short before its manifest', () => {
    const whole = archive(FILES);
    const cut = whole.subarray(0, Math.floor(whole.byteLength / 2));
    expect(() => checked(cut)).toThrow(/cut short/);
  });

  it('refuses a file whose SHA-256 or size disagrees with the manifest, and a manifest that leaves a file out', () => {
    expect(() => checked(archive(FILES, { path: 'a.md', sha256: '0'.repeat(64) }))).toThrow(/a\.md does not match the manifest/);
    expect(() => checked(archive(FILES, { path: 'b.md', bytes: 1 }))).toThrow(/b\.md does not match the manifest/);
    expect(() => checked(archive(FILES, 'drop'))).toThrow(/lists 1 files but the archive holds 2/);
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
  const streamOf = (bytes: Uint8Array, failAfter?: number) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        const end = failAfter ?? bytes.byteLength;
        for (let at = 0; at < end; at += 100) controller.enqueue(bytes.slice(at, Math.min(at + 100, end)));
        if (failAfter === undefined) controller.close();
        else controller.error(new TypeError('terminated'));
      },
    });

  it('writes the checked archive under its name and leaves no .part behind', async () => {
    const dir = folder();
    const bytes = archive(FILES);
    const seen: number[] = [];
    const result = await saveCheckedArchive(streamOf(bytes), join(dir, 'site.zip'), (c) => seen.push(c.bytes));
    expect(readFileSync(join(dir, 'site.zip')).equals(Buffer.from(bytes))).toBe(true);
    expect(readdirSync(dir)).toEqual(['site.zip']);
    expect(result.bytes).toBe(bytes.byteLength);
    expect(seen.at(-1)).toBe(bytes.byteLength);
    expect(seen.length).toBeGreaterThan(1);
  });

  it('keeps nothing when the stream fails midway or the archive does not check out', async () => {
    const dir = folder();
    const bytes = archive(FILES);
    await expect(saveCheckedArchive(streamOf(bytes, 200), join(dir, 'failed.zip'), () => undefined)).rejects.toThrow('terminated');
    await expect(
      saveCheckedArchive(streamOf(archive(FILES, { path: 'a.md', bytes: 2 })), join(dir, 'lying.zip'), () => undefined),
    ).rejects.toThrow(/does not match/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses to write over a .part another export left', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'site.zip.part'), 'someone else');
    const error = await saveCheckedArchive(streamOf(archive(FILES)), join(dir, 'site.zip'), () => undefined).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('EEXIST');
    expect(readFileSync(join(dir, 'site.zip.part'), 'utf8')).toBe('someone else');
    expect(existsSync(join(dir, 'site.zip'))).toBe(false);
  });
});
