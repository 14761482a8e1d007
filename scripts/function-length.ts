/**
 * Lists the production functions of src/ longer than a screen (MAX_LINES, counted from the line of
 * the function's first token to the line of its last): `make lint` fails while any is listed.
 * Tests, the contract suites and the Drizzle store's own cases are test code and are not counted.
 *
 *   tsx scripts/function-length.ts            # fail on any function over the limit
 *   tsx scripts/function-length.ts --top 5    # also print the five longest
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_LINES = 120;

export interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Whether `file` (relative to the root) is production code: under src/, neither a test nor a contract suite. */
export function isProduction(file: string): boolean {
  return (
    file.startsWith('src/') &&
    /\.tsx?$/.test(file) &&
    !/\.test\.tsx?$/.test(file) &&
    !file.endsWith('.contract.ts') &&
    !file.endsWith('.d.ts') &&
    !file.startsWith('src/adapters/contract/') &&
    file !== 'src/adapters/drizzle/store-cases.ts'
  );
}

/** Every function-like node of a source text (declarations, methods, arrows, accessors), with its length in lines. */
export function functionLengths(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, name: nameOf(node), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isPrivateIdentifier(named.name))) return named.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter(isProduction)
    .sort();
}

/** Every production function of src/, longest first. */
export function productionFunctions(): FunctionLength[] {
  const all = sourceFiles(join(ROOT, 'src')).flatMap((file) => functionLengths(file, readFileSync(join(ROOT, file), 'utf8')));
  return all.sort((a, b) => b.lines - a.lines);
}

function main(args: string[]): number {
  const top = args[0] === '--top' ? Number(args[1] ?? 5) : 0;
  const all = productionFunctions();
  const show = (f: FunctionLength) => `  ${f.lines} lines  ${f.file}:${f.line}  ${f.name}`;
  if (top > 0) console.log(`The ${top} longest production functions of src/:\n${all.slice(0, top).map(show).join('\n')}`);
  const tooLong = all.filter((f) => f.lines > MAX_LINES);
  if (tooLong.length === 0) return 0;
  console.error(`Functions of src/ longer than ${MAX_LINES} lines (split them):\n${tooLong.map(show).join('\n')}`);
  return 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));
