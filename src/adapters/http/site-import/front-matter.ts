/**
 * Markdown files with front matter, as static-site generators write them: YAML between `---`
 * lines (Hugo, Jekyll, Astro, MarginCMS) or TOML between `+++` lines (Hugo), parsed by the YAML
 * and TOML libraries. The body is everything after the closing line, byte for byte.
 */
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';

export type FrontMatter = { data: Record<string, unknown>; body: string } | { error: string };

const FENCES = { '---': 'YAML', '+++': 'TOML' } as const;

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
  let data: unknown;
  try {
    data = fence === '---' ? parseYaml(matter, { uniqueKeys: true, maxAliasCount: 100 }) : parseToml(matter);
  } catch (error) {
    return { error: `the ${FENCES[fence]} front matter does not parse: ${(error as Error).message.split('\n')[0]}` };
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data))
    return { error: `the ${FENCES[fence]} front matter is not a mapping of keys to values` };
  return { data: data as Record<string, unknown>, body };
}
