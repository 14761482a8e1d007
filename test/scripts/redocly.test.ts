// scripts/redocly.mjs: Redocly CLI as make lint, make docs, make dev and npm run lint:spec run it,
// without the notice boxes it prints on every run (Node 20's end of life, build-docs' Redoc 3).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../contract/bundle.js';

function redocly(args: string[]) {
  const run = spawnSync('node', ['scripts/redocly.mjs', ...args], { cwd: repoRoot, encoding: 'utf8' });
  return { status: run.status, out: run.stdout + run.stderr };
}

describe('scripts/redocly.mjs', () => {
  it('lints the spec and prints no notice box', () => {
    const { status, out } = redocly(['lint', '--config', 'openapi/redocly.yaml', 'openapi/openapi.yaml']);
    expect(status, out).toBe(0);
    expect(out).toContain('Your API description is valid');
    expect(out).not.toMatch(/╔|end-of-life|support is ending/);
  }, 60_000);

  it("passes Redocly's own problems and its exit code through", () => {
    const dir = mkdtempSync(join(tmpdir(), 'margin-redocly-'));
    try {
      writeFileSync(join(dir, 'broken.yaml'), 'openapi: 3.1.0\ninfo: {}\npaths: {}\n');
      const { status, out } = redocly(['lint', join(dir, 'broken.yaml')]);
      expect(status).not.toBe(0);
      expect(out).toMatch(/title|version/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
