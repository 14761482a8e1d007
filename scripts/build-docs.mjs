#!/usr/bin/env node
// `make docs`: the static API reference (Redocly's build-docs, Redoc inlined), made to load
// nothing from another origin. Redoc's sidebar shows Redocly's logo from cdn.redoc.ly whatever
// the options, and its icon sets point at cdn.redocly.com: those URLs become `data:,` (the logo's
// image fails and Redoc hides it; the link "API docs by" stays), and a Content-Security-Policy
// in the page lets it load nothing but itself and what it makes (data: and blob: URLs: Redoc
// evaluates code and starts blob: scripts, its search among them), whatever a later Redoc adds.
// Usage: node scripts/build-docs.mjs [output] (default build/api-reference.html)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { runRedocly } from './redocly.mjs';

const DOCS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline' 'unsafe-eval' blob:",
  'worker-src blob:',
  "style-src 'unsafe-inline'",
  'img-src data:',
  'font-src data:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
const CDN_URL = /https:\/\/cdn\.redoc(?:\.ly|ly\.com)\/[^`"'\s)]*/g;

const output = resolve(process.argv[2] ?? 'build/api-reference.html');
mkdirSync(dirname(output), { recursive: true });
const args = ['build-docs', 'generated/openapi.json', '--inlineBundle', '--title', 'MarginCMS API reference', '--output', output];
const code = await runRedocly(args);
if (code !== 0) process.exit(code);
const page = readFileSync(output, 'utf8').replace(CDN_URL, 'data:,');
if (!page.includes('<head>')) throw new Error(`${output} has no <head> to put the Content-Security-Policy in`);
const meta = `<meta http-equiv="Content-Security-Policy" content="${DOCS_PAGE_CSP}">`;
writeFileSync(output, page.replace('<head>', `<head>\n  ${meta}`));
