import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import { SchemaAheadError } from '../schema/migrations.js';
import { openPglite } from './connect-pglite.js';

const directories: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'margin-pglite-modes-'));
  directories.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every entry under `dir` (and `dir`) whose mode is not 0700 for a folder or 0600 for a file, as "mode path". */
function notPrivate(dir: string): string[] {
  const found: string[] = [];
  const visit = (path: string): void => {
    const stat = lstatSync(path);
    const mode = stat.mode & 0o777;
    const wanted = stat.isDirectory() ? 0o700 : 0o600;
    if (mode !== wanted) found.push(`${mode.toString(8)} ${path.slice(dir.length) || '/'}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

function countEntries(dir: string): number {
  return readdirSync(dir, { recursive: true }).length;
}

/** Runs `body` under the most permissive umask, which must not matter. */
async function withUmask<T>(mask: number, body: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await body();
  } finally {
    process.umask(previous);
  }
}

describe('openPglite file modes', () => {
  it('keeps the data directory and every folder in it 0700 and every file 0600, under umask 000, open and closed', async () => {
    const dataDir = join(tempDir(), 'nested', 'data');
    await withUmask(0, async () => {
      const connection = await openPglite({ dataDir });
      try {
        // Files created while running (a new table, its index, WAL) are private too.
        await connection.client.exec(
          `CREATE TABLE probe (id int PRIMARY KEY, body text); INSERT INTO probe SELECT g, repeat('x', 500) FROM generate_series(1, 2000) g; CHECKPOINT;`,
        );
        expect(countEntries(dataDir)).toBeGreaterThan(500);
        expect(notPrivate(dataDir)).toEqual([]);
      } finally {
        await connection.close();
      }
    });
    expect(notPrivate(dataDir)).toEqual([]);
  });

  it('makes a data directory left readable by others (an earlier version) private when it is opened', async () => {
    const dataDir = join(tempDir(), 'data');
    await withUmask(0, async () => {
      const old = await PGlite.create({ dataDir });
      await old.close();
    });
    expect(notPrivate(dataDir).length).toBeGreaterThan(100);
    const connection = await openPglite({ dataDir });
    try {
      expect(notPrivate(dataDir)).toEqual([]);
    } finally {
      await connection.close();
    }
    expect(notPrivate(dataDir)).toEqual([]);
  });
});

describe('openPglite on a data folder a newer release migrated', () => {
  it('refuses it, naming the migration it lacks and why, and leaves the folder to the next open', async () => {
    const dir = tempDir();
    const first = await openPglite({ dataDir: dir });
    await first.client.query(
      `insert into schema_requirements (migration, reason) values ('9999_from_a_newer_release', 'stores posts in a way older servers misread')`,
    );
    await first.close();

    await expect(openPglite({ dataDir: dir })).rejects.toThrow(
      /^database schema is ahead of this server: .* needs 9999_from_a_newer_release \(stores posts in a way older servers misread\)/,
    );
    // Refused again, not "in use": the refused open closed PGlite and released the folder's lock.
    await expect(openPglite({ dataDir: dir })).rejects.toBeInstanceOf(SchemaAheadError);
  });
});
