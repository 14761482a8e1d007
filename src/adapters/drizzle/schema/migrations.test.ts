import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  assertRequirementsKnown,
  MIGRATIONS_FOLDER,
  pendingMigrations,
  readJournal,
  SchemaAheadError,
  SchemaBehindError,
} from './migrations.js';

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

  it('a database requiring only migrations the journal has is served', () => {
    const journal = [
      { idx: 0, tag: '0000_a', when: 10 },
      { idx: 1, tag: '0001_b', when: 20 },
    ];
    expect(() => assertRequirementsKnown([], journal)).not.toThrow();
    expect(() => assertRequirementsKnown([{ migration: '0001_b', reason: 'stores b' }], journal)).not.toThrow();
  });

  it('a database requiring a migration the journal lacks is a SchemaAheadError naming it, why, and what to do', () => {
    const journal = [{ idx: 0, tag: '0000_a', when: 10 }];
    const requirements = [
      { migration: '0000_a', reason: 'stores a' },
      { migration: '0007_future', reason: 'stores bodies by difference' },
    ];
    let thrown: unknown;
    try {
      assertRequirementsKnown(requirements, journal);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SchemaAheadError);
    expect((thrown as SchemaAheadError).unknown).toEqual([{ migration: '0007_future', reason: 'stores bodies by difference' }]);
    expect((thrown as Error).message).toBe(
      'database schema is ahead of this server: it was migrated by a newer release and needs ' +
        '0007_future (stores bodies by difference), which this server does not know. Run that release or a later one; ' +
        'to go back to this one, restore the backup taken before that migration',
    );
  });
});
