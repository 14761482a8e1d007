#!/usr/bin/env node
// Redocly CLI with its notice boxes left out of stderr: on Node 20 every run prints an
// end-of-life box, and build-docs a "now renders with Redoc 3" box, with no flag or variable to
// turn them off (@redocly/cli 2.77). Everything else it prints passes through; its exit code is ours.
// Usage: node scripts/redocly.mjs <redocly arguments…>
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** A box is dropped when one of its lines says one of these. */
const NOTICES = ['Node.js 20 support is ending', 'build-docs now renders docs with Redoc 3'];

/** Runs `redocly …args` in the repository root; resolves with its exit code. */
export function runRedocly(args) {
  const child = spawn(`${root}node_modules/.bin/redocly`, args, { cwd: root, stdio: ['ignore', 'inherit', 'pipe'] });
  let box = null;
  const lines = createInterface({ input: child.stderr });
  lines.on('close', () => box !== null && process.stderr.write(`${box.join('\n')}\n`));
  lines.on('line', (line) => {
    if (box === null && line.includes('╔')) box = [];
    if (box === null) return void process.stderr.write(`${line}\n`);
    box.push(line);
    if (!line.includes('╚')) return;
    if (!box.some((l) => NOTICES.some((notice) => l.includes(notice)))) process.stderr.write(`${box.join('\n')}\n`);
    box = null;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code ?? 1));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await runRedocly(process.argv.slice(2));
