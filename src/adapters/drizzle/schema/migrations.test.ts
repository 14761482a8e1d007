import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, pendingMigrations, readJournal, SchemaBehindError } from './migrations.js';

describe('migrations', () => {
  it('journal entries are in creation order and each has its SQL file', () => {
    const journal = readJournal();
    expect(journal.length).toBeGreaterThan(0);
    journal.forEach((entry, i) => {
      expect(entry.idx).toBe(i);
      if (i > 0) expect(entry.when).toBeGreaterThan(journal[i - 1]!.when);
      expect(existsSync(join(MIGRATIONS_FOLDER, `${entry.tag}.sql`))).toBe(true);
    });
  });

  it('pendingMigrations: everything when nothing was applied, else what is newer than the latest', () => {
    const journal = [
      { idx: 0, tag: 'a', when: 10 },
      { idx: 1, tag: 'b', when: 20 },
    ];
    expect(pendingMigrations(journal, null).map((m) => m.tag)).toEqual(['a', 'b']);
    expect(pendingMigrations(journal, 10).map((m) => m.tag)).toEqual(['b']);
    expect(pendingMigrations(journal, 20)).toEqual([]);
  });

  it('SchemaBehindError tells the operator what to run', () => {
    expect(new SchemaBehindError(['0001_schema']).message).toBe(
      'database schema is behind: run `make migrate` (1 migration not applied: 0001_schema)',
    );
  });
});
