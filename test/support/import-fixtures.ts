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

const encoder = new TextEncoder();

/** A markdown file whose YAML front matter is `matter`. */
const markdown = (matter: string) => encoder.encode(`---\n${matter}\n---\nThe body.\n`);

/** `unit` repeated until the text is about `bytes` long. */
const repeated = (unit: string, bytes: number) => unit.repeat(Math.floor(bytes / unit.length));

/** YAML front matter of distinct keys (`k0: 0`, `k1: 1`, …), about `bytes` long. */
function manyKeysYaml(bytes: number): string {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `k${i}: ${i}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/**
 * The hostile archives of issue #27, generated (a fixture of them would be megabytes): front
 * matter that is huge, full of keys, of one key over and over, or nested deep in flow
 * collections, one file or many, and a manifest that inflates past its limit.
 */
export const hostileArchives = {
  /** One file whose front matter is `bytes` of distinct keys. */
  manyKeys: (bytes: number) => zipSync({ 'posts/many-keys.md': markdown(`title: Keys\n${manyKeysYaml(bytes)}`) }),
  /** One file whose front matter is `bytes` of the same key. */
  duplicateKeys: (bytes: number) => zipSync({ 'posts/duplicates.md': markdown(`title: Twice\n${repeated('title: again\n', bytes)}`) }),
  /** One file whose front matter is `[[[[…` (or `unit` repeated), `bytes` long. */
  deepFlow: (unit: '[' | '[{', bytes: number) => zipSync({ 'posts/deep.md': markdown(`title: ${repeated(unit, bytes)}`) }),
  /** One file whose TOML front matter is `bytes` of distinct keys. */
  manyKeysToml: (bytes: number) =>
    zipSync({
      'posts/many-keys.md': encoder.encode(`+++\ntitle = "Keys"\n${manyKeysYaml(bytes).replace(/: /g, ' = ')}\n+++\nThe body.\n`),
    }),
  /** `count` files of front matter `matter` each, and one good post (`posts/good.md`). */
  manyFiles: (count: number, matter: string) => {
    const files: Zippable = { 'posts/good.md': markdown('title: A good post') };
    const file = markdown(matter);
    for (let i = 0; i < count; i++) files[`posts/hostile-${i}.md`] = file;
    return zipSync(files);
  },
  /**
   * A MarginCMS export's manifest of about `bytes`, and one post: `entries` listing files with
   * long paths (as an export of a very large site does: some 280 bytes and 7 tokens an entry) or,
   * with `numbers`, a list of zeros (the most values JSON can pack into those bytes).
   */
  parsedManifest: (bytes: number, kind: 'entries' | 'numbers') => {
    const head = '{"format":"margincms-export","version":1,"files":[';
    const unit =
      kind === 'numbers'
        ? '0,'
        : (i: number) => `{"path":"posts/${'a-post-of-a-large-site-'.repeat(7)}${i}.md","bytes":1234,"sha256":"${'0'.repeat(64)}"},`;
    const parts: string[] = [head];
    let length = head.length;
    for (let i = 0; length < bytes - 200; i++) {
      const part = typeof unit === 'string' ? unit : unit(i);
      parts.push(part);
      length += part.length;
    }
    parts.push(kind === 'numbers' ? '0]}' : `{"path":"posts/last.md","bytes":1,"sha256":"${'0'.repeat(64)}"}]}`);
    return zipSync({ 'manifest.json': encoder.encode(parts.join('')), 'posts/good.md': markdown('title: A good post') });
  },
  /**
   * The 33 KB zip of issue #40: a MarginCMS export's manifest whose `files` are `bytes` of `{}`
   * (32 MiB of them parse to more than a worker's 512 MB heap), and one post.
   */
  emptyEntries: (bytes: number) => {
    const head = '{"format":"margincms-export","version":1,"files":[';
    const manifest = `${head}${'{},'.repeat(Math.floor((bytes - head.length - 4) / 3))}{}]}`;
    return zipSync({ 'manifest.json': encoder.encode(manifest), 'posts/good.md': markdown('title: A good post') }, { level: 9 });
  },
  /** A MarginCMS export's manifest padded to `bytes` (whitespace inside the JSON), and one post. */
  hugeManifest: (bytes: number) => {
    const head = '{"format":"margincms-export","version":1,"files":[]';
    const manifest = new Uint8Array(bytes).fill(0x20);
    manifest.set(encoder.encode(head));
    manifest[bytes - 1] = 0x7d; // }
    return zipSync({
      'manifest.json': manifest,
      'posts/good.md': markdown('title: A good post'),
    });
  },
};
