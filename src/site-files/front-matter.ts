/**
 * Markdown files with front matter, as static-site generators write them: YAML between `---`
 * lines (Hugo, Jekyll, Astro, MarginCMS) or TOML between `+++` lines (Hugo), parsed by the YAML
 * and TOML libraries. The body is everything after the closing line, byte for byte.
 *
 * Parsing is synchronous, so what a file may ask of the parser is bounded before it starts: the
 * front matter's size, then (YAML) its tokens and flow nesting, counted by the library's lexer in
 * one linear pass. The YAML library's own duplicate-key check compares each key with every earlier
 * one (quadratic: 100,000 keys held the event loop for two minutes) and its composer recurses into
 * flow collections (a deep `[[[[…` overflows the stack after seconds), so it parses with
 * `uniqueKeys: false` and duplicate keys are found here, with a set per mapping. A file over a
 * limit is skipped with the reason; no limit is near what a post's front matter holds.
 */
import { parse as parseToml } from 'smol-toml';
import { CST, Lexer, parseDocument, isMap, isScalar, isSeq } from 'yaml';

export type FrontMatter = { data: Record<string, unknown>; body: string } | { error: string };

/**
 * The most bytes a front matter may have: a MarginCMS export's stays under 16 KiB even when its
 * 200-character title, 500-character excerpt and 20 tags of 40 characters are all escapes (at
 * most 6 bytes a UTF-16 unit).
 */
export const MAX_FRONT_MATTER_BYTES = 64 * 1024;
/** The most keys a front matter may have, all mappings together. */
export const MAX_FRONT_MATTER_KEYS = 250;
/** The deepest a front matter's values may nest (the top mapping is depth 1). */
export const MAX_FRONT_MATTER_DEPTH = 32;
/**
 * The most YAML tokens (scalars, aliases, anchors, tags and the indicators `-`, `?`, `:`, `,`,
 * `[`, `{`) a front matter may have, checked before it is parsed, so that no parse takes more than
 * about ten milliseconds. A post's front matter has a few dozen (an export's, with 20 tags, under
 * a hundred); a mapping of `key: value` lines has three per line.
 */
export const MAX_FRONT_MATTER_TOKENS = 1000;

const FENCES = { '---': 'YAML', '+++': 'TOML' } as const;

class LimitError extends Error {}

/** The front matter and body of a markdown file's text, or why it has none that parses. */
export function splitFrontMatter(text: string): FrontMatter {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const opening = /^(---|\+\+\+)[ \t]*\r?\n/.exec(source);
  if (opening === null) return { error: 'the file does not start with front matter (a --- or +++ line)' };
  const fence = opening[1] as keyof typeof FENCES;
  // The closing fence: the same line again (YAML may also end with `...`), on a line of its own.
  const closing = new RegExp(`^(?:${fence === '---' ? '---|\\.\\.\\.' : '\\+\\+\\+'})[ \\t]*(?:\\r?\\n|$)`, 'm');
  const rest = source.slice(opening[0].length);
  const end = closing.exec(rest);
  if (end === null) return { error: `the ${FENCES[fence]} front matter is not closed by a ${fence} line` };
  const matter = rest.slice(0, end.index);
  const body = rest.slice(end.index + end[0].length);
  const bytes = Buffer.byteLength(matter, 'utf8');
  if (bytes > MAX_FRONT_MATTER_BYTES) {
    return {
      error: `the ${FENCES[fence]} front matter is ${bytes} bytes, larger than the ${MAX_FRONT_MATTER_BYTES} bytes a front matter may be`,
    };
  }
  let data: unknown;
  try {
    data = fence === '---' ? parseYaml(matter) : parseTomlChecked(matter);
  } catch (error) {
    if (error instanceof LimitError) return { error: `the ${FENCES[fence]} front matter ${error.message}` };
    return { error: `the ${FENCES[fence]} front matter does not parse: ${(error as Error).message.split('\n')[0]}` };
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data))
    return { error: `the ${FENCES[fence]} front matter is not a mapping of keys to values` };
  return { data: data as Record<string, unknown>, body };
}

const nestedTooDeep = () => new LimitError(`is nested more than ${MAX_FRONT_MATTER_DEPTH} deep`);
const tooManyKeys = () => new LimitError(`has more than ${MAX_FRONT_MATTER_KEYS} keys`);

/** Throws a `LimitError` when the YAML has more tokens, or flow collections nested deeper, than allowed; one linear pass. */
function checkYamlTokens(matter: string): void {
  let tokens = 0;
  let depth = 0;
  for (const token of new Lexer().lex(matter)) {
    switch (CST.tokenType(token)) {
      case 'flow-map-start':
      case 'flow-seq-start':
        if (++depth >= MAX_FRONT_MATTER_DEPTH) throw nestedTooDeep();
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        depth = Math.max(0, depth - 1);
        continue;
      case 'seq-item-ind':
      case 'explicit-key-ind':
      case 'map-value-ind':
      case 'comma':
      case 'alias':
      case 'anchor':
      case 'tag':
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
      case 'block-scalar-header':
      case 'scalar':
        break;
      default:
        continue; // spaces, newlines, comments, the scalar's own text after its marker
    }
    if (++tokens > MAX_FRONT_MATTER_TOKENS) {
      throw new LimitError(`has more than ${MAX_FRONT_MATTER_TOKENS} keys, values and indicators (- ? : , [ { & ! *)`);
    }
  }
}

/** The key a mapping's JS object gets for a key node (as the YAML library names it), for finding duplicates. */
function propertyOf(key: unknown): string {
  if (key === null || key === undefined) return '';
  if (isScalar(key)) return key.value === null ? '' : typeof key.value === 'object' ? JSON.stringify(key.value) : String(key.value);
  return String(key);
}

/** The line (from 1) of an offset in the text. */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}

/** The YAML's data: limits checked before parsing, then keys counted, depth measured and duplicates found, in one walk. */
function parseYaml(matter: string): unknown {
  checkYamlTokens(matter);
  // Without prettyErrors: it places every error in the text, thousands for a line of commas.
  const document = parseDocument(matter, { uniqueKeys: false, prettyErrors: false });
  const [error] = document.errors;
  if (error !== undefined) throw new Error(`${error.message} at line ${lineOf(matter, error.pos[0])}`);
  let keys = 0;
  const stack: { node: unknown; depth: number }[] = [{ node: document.contents, depth: 1 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { node, depth } = next;
    if (isMap(node)) {
      if (depth > MAX_FRONT_MATTER_DEPTH) throw nestedTooDeep();
      const seen = new Set<string>();
      for (const { key, value } of node.items) {
        if (++keys > MAX_FRONT_MATTER_KEYS) throw tooManyKeys();
        const property = propertyOf(key);
        if (seen.has(property)) {
          const line = isScalar(key) && key.range ? ` (line ${lineOf(matter, key.range[0])})` : '';
          throw new Error(`the key ${JSON.stringify(property)} appears twice in one mapping${line}`);
        }
        seen.add(property);
        stack.push({ node: key, depth: depth + 1 }, { node: value, depth: depth + 1 });
      }
    } else if (isSeq(node)) {
      if (depth > MAX_FRONT_MATTER_DEPTH) throw nestedTooDeep();
      for (const item of node.items) stack.push({ node: item, depth: depth + 1 });
    }
  }
  return document.toJS({ maxAliasCount: 100 });
}

/** The TOML's data: smol-toml parses in linear time, its inline nesting bounded; the keys and the depth of dotted keys and tables are counted after. */
function parseTomlChecked(matter: string): unknown {
  const data = parseToml(matter, { maxDepth: MAX_FRONT_MATTER_DEPTH });
  let keys = 0;
  const stack: { value: unknown; depth: number }[] = [{ value: data, depth: 1 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, depth } = next;
    if (value === null || typeof value !== 'object' || value instanceof Date) continue;
    if (depth > MAX_FRONT_MATTER_DEPTH) throw nestedTooDeep();
    const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
    if (!Array.isArray(value)) {
      keys += children.length;
      if (keys > MAX_FRONT_MATTER_KEYS) throw tooManyKeys();
    }
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
  return data;
}
