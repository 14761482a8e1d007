#!/usr/bin/env node
// `npx margin …` from a clone: the CLI's TypeScript run through tsx (installed by `npm ci`).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/bin.ts');
