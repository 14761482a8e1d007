#!/usr/bin/env node
// `margin`: the CLI as `make build` bundles it (dist/margin.js, shipped in the package; plain
// JavaScript, so a call starts in about a tenth of a second). In a clone not built yet, its
// TypeScript through tsx (a dev dependency) instead.
import { existsSync } from 'node:fs';

const built = new URL('../dist/margin.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/bin.ts');
}
