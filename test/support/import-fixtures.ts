import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { zipSync, type Zippable } from 'fflate';

const FIXTURES = new URL('../fixtures/import/', import.meta.url).pathname;

/** A fixture site of test/fixtures/import as a zip, its files in path order, as `zip -r` of the folder would hold them. */
export function zipOfFixture(name: 'hugo' | 'jekyll' | 'astro'): Uint8Array {
  const root = join(FIXTURES, name);
  const files: Zippable = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(root, path)] = new Uint8Array(readFileSync(path));
    }
  };
  walk(root);
  return zipSync(files);
}
