#!/usr/bin/env node
// Part of `make dev`: watches openapi/ and, after each burst of changes, lints the split spec and
// regenerates generated/ when the lint passes. A failing lint prints the problems and writes
// nothing, so the server and the mock keep running on the last good bundle.
import { spawn } from 'node:child_process';
import { watch } from 'chokidar';
import { runRedocly } from './redocly.mjs';

const root = new URL('..', import.meta.url).pathname;
const QUIET_MS = 200;

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('exit', (code) => resolve(code === 0));
  });
}

let timer = null;
let running = false;
let again = false;

async function regenerate() {
  if (running) {
    again = true;
    return;
  }
  running = true;
  do {
    again = false;
    const linted = (await runRedocly(['lint', '--config', 'openapi/redocly.yaml', '--format', 'stylish', 'openapi/openapi.yaml'])) === 0;
    if (!linted) {
      console.log('spec lint failed: generated/ left as it was; the server and the mock keep the last good contract');
      continue;
    }
    const generated = await run('node', ['scripts/generate.mjs']);
    console.log(generated ? 'generated/ is up to date with openapi/' : 'generate failed: generated/ left as it was');
  } while (again);
  running = false;
}

// chokidar rather than fs.watch: editors save by writing a new file and renaming it over the old
// one, which Node 20's recursive fs.watch on Linux stops following.
watch(`${root}openapi`, { ignoreInitial: true }).on('all', (_event, file) => {
  if (!/\.ya?ml$/.test(file)) return;
  clearTimeout(timer);
  timer = setTimeout(() => void regenerate(), QUIET_MS);
});
console.log('watching openapi/ (lint, then regenerate generated/ on change)');
await regenerate();
