// The Makefile's own tasks that touch no server: help, clean and delete-data, the last two run on
// a copy of the Makefile in a temporary folder (never on this tree's dist/ or .data/).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../contract/bundle.js';

function make(cwd: string, args: string[], input = '') {
  const run = spawnSync('make', ['--no-print-directory', '-s', ...args], {
    cwd,
    input,
    encoding: 'utf8',
    env: { ...process.env, DATA_DIR: '' },
  });
  return { status: run.status, out: run.stdout + run.stderr };
}

describe('make help', () => {
  it('shows the mock port a task uses, not the variable naming it', () => {
    const { status, out } = make(repoRoot, ['help']);
    expect(status).toBe(0);
    expect(out).toContain('Serve the contract with Prism on 127.0.0.1:4010');
    expect(out).not.toContain('$(');
    expect(make(repoRoot, ['help', 'MOCK_PORT=4999']).out).toContain('127.0.0.1:4999');
  });
});

describe('make clean and make delete-data', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'margin-make-'));
    copyFileSync(join(repoRoot, 'Makefile'), join(dir, 'Makefile'));
    for (const folder of ['.data/pgdata', 'dist', 'build']) mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, '.data/pgdata/PG_VERSION'), '17\n');
    writeFileSync(join(dir, 'dist/main.js'), '');
    writeFileSync(join(dir, 'build/api-reference.html'), '');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('clean removes the build output and keeps the embedded database', () => {
    expect(make(dir, ['clean']).status).toBe(0);
    expect(existsSync(join(dir, 'dist'))).toBe(false);
    expect(existsSync(join(dir, 'build'))).toBe(false);
    expect(existsSync(join(dir, '.data/pgdata/PG_VERSION'))).toBe(true);
  });

  it('delete-data keeps the data unless the answer is yes', () => {
    for (const answer of ['', 'no\n', 'y\n']) {
      const { status, out } = make(dir, ['delete-data'], answer);
      expect(status, out).not.toBe(0);
      expect(out).toContain('Type yes');
      expect(existsSync(join(dir, '.data/pgdata/PG_VERSION'))).toBe(true);
    }
    const { status, out } = make(dir, ['delete-data'], 'yes\n');
    expect(status, out).toBe(0);
    expect(out).toContain('deleted .data');
    expect(existsSync(join(dir, '.data'))).toBe(false);
    expect(existsSync(join(dir, 'dist/main.js'))).toBe(true);
  });

  it('delete-data deletes DATA_DIR without asking when CONFIRM=yes', () => {
    expect(make(dir, ['delete-data', 'CONFIRM=yes', 'DATA_DIR=.data/pgdata']).status).toBe(0);
    expect(existsSync(join(dir, '.data/pgdata'))).toBe(false);
    expect(existsSync(join(dir, '.data'))).toBe(true);
  });
});
