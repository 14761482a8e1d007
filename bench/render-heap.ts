/**
 * The render worker's heap on the worst bodies within RENDER_LIMITS (#40 item 2): each body, made
 * to the longest the renderer takes (1 Mi characters), is rendered whole (no time budget) by the
 * built worker (dist/markdown-worker.js, `make build` first) under the render pool's heap limit,
 * in a process of its own run with --trace-gc; printed are the time, the HTML's length or the
 * refusal, the most heap used at a collection and the most kept after a full one (what was live).
 * Then what a worker that fills its heap does to its process on this Node.
 *
 *   npx tsx bench/render-heap.ts                 every body (minutes: the slow ones take 10-90 s)
 *   BENCH_RENDER_CASES=paragraphs,refs npx tsx bench/render-heap.ts
 *   BENCH_RENDER_HEAP_MB=256 …                   under another old-generation limit (1536 is the pool's)
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORKER = `${ROOT}dist/markdown-worker.js`;
const CHARS = 1024 * 1024;
const HEAP_MB = Number(process.env.BENCH_RENDER_HEAP_MB ?? 1536);

/** `unit` repeated to at most `chars` characters. */
const upTo = (unit: string, chars = CHARS) => unit.repeat(Math.floor(chars / unit.length));

/** Bodies of at most 1 Mi characters, each a shape markdown-it or sanitize-html makes much of. */
const BODIES: Record<string, () => string> = {
  prose: () => upTo('Lorem ipsum dolor sit amet, consectetur adipiscing elit. '),
  paragraphs: () => upTo('a\n\n'),
  lists: () => upTo('- a\n'),
  'nested quotes': () => upTo('> '.repeat(100) + 'a\n\n'),
  'quotes and lists': () => upTo('> - '.repeat(50) + 'a\n\n'),
  'table 8 columns': () => '|a|b|c|d|e|f|g|h|\n|-|-|-|-|-|-|-|-|\n' + upTo('|a|b|c|d|e|f|g|h|\n', CHARS - 40),
  'table padded': () => '|' + upTo('a|', 4000) + '\n|' + upTo('-|', 4000) + '\n' + upTo('a\n', CHARS - 8010),
  emphasis: () => upTo('*a* '),
  'emphasis run': () => upTo('*a'),
  'strong nested': () => upTo('**a'),
  'mixed delimiters': () => upTo('*_~'),
  'inline links': () => upTo('[a](b) '),
  'reference uses': () => '[a]: /b\n\n' + upTo('[a]', CHARS - 9),
  'reference uses, longest text': () => '[a]: /bbbbbbbb\n\n' + upTo('[a]', CHARS - 20),
  'reference of 400 KB used 1200 times': () => `[a]: https://x.example/${'a'.repeat(400_000)}\n\n${'![a]'.repeat(1200)}`,
  'unclosed divs': () => Array.from({ length: 148_000 }, () => '<div>').join('\n'),
  'one char too long': () => 'a'.repeat(CHARS + 1),
};

interface Rendered {
  body: string;
  chars: number;
  ms: number;
  outcome: string;
}

/** In the child: renders one body in the built worker under the heap limit, and prints what came of it. */
async function renderOne(name: string): Promise<void> {
  const markdown = BODIES[name]!();
  const worker = new Worker(WORKER, { resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } });
  const lost = new Promise<string>((resolve) => {
    worker.on('error', (error: NodeJS.ErrnoException) => resolve(`worker error ${error.code ?? error.message}`));
    worker.on('exit', (code) => resolve(`worker exit ${code}`));
  });
  await new Promise((resolve) => worker.once('message', resolve));
  const started = performance.now();
  const replied = new Promise<string>((resolve) => {
    worker.on('message', (reply: { html?: string; refused?: string; error?: string }) => {
      if (reply.html !== undefined) resolve(`${reply.html.length} chars of HTML`);
      else resolve(reply.refused !== undefined ? `refused: ${reply.refused}` : `error: ${reply.error}`);
    });
  });
  worker.postMessage({ id: 1, markdown, siteUrl: 'https://blog.example.com', media: [] });
  const outcome = await Promise.race([replied, lost]);
  const rendered: Rendered = { body: name, chars: markdown.length, ms: Math.round(performance.now() - started), outcome };
  console.log(`RESULT ${JSON.stringify(rendered)}`);
  await worker.terminate();
}

/** The most heap used at a collection, and the most kept after a full one, in MB, from --trace-gc lines. */
function heapOf(trace: string): { peakMb: number; liveMb: number } {
  const before = [...trace.matchAll(/(?:Scavenge|Mark-Compact)[^\n]*? ([\d.]+) \([\d.]+\) ->/g)].map((match) => Number(match[1]));
  const after = [...trace.matchAll(/Mark-Compact[^\n]*? -> ([\d.]+) \(/g)].map((match) => Number(match[1]));
  return { peakMb: Math.max(0, ...before), liveMb: Math.max(0, ...after) };
}

/** A worker that fills a 64 MB heap with many objects, or with one growing array: what becomes of its process. */
const EXHAUSTION: Record<string, string> = {
  'many objects': 'const kept = []; for (;;) kept.push({ n: Math.random() });',
  'one growing array': 'const kept = []; for (let i = 0; ; i++) kept.push(i + 0.5);',
};

function exhaust(fill: string): void {
  const worker = new Worker(fill, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 64 } });
  worker.on('error', (error: NodeJS.ErrnoException) => console.log(`the worker failed with ${error.code}; the process lives`));
}

const [mode, arg] = process.argv.slice(2);
if (mode === '--case') await renderOne(arg!);
else if (mode === '--exhaust') exhaust(EXHAUSTION[arg!]!);
else {
  if (!existsSync(WORKER)) throw new Error(`${WORKER} is missing: run make build first`);
  const chosen = process.env.BENCH_RENDER_CASES?.split(',') ?? Object.keys(BODIES);
  console.log(`Node ${process.version}; each body rendered whole by ${WORKER} under maxOldGenerationSizeMb ${HEAP_MB}`);
  console.log('body | chars | ms | outcome | most heap used at a GC (MB) | most kept after a full GC (MB)');
  for (const name of chosen) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--trace-gc', fileURLToPath(import.meta.url), '--case', name], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    const line = /^RESULT (.*)$/m.exec(child.stdout)?.[1];
    const { peakMb, liveMb } = heapOf(child.stdout);
    if (line === undefined) {
      console.log(
        `${name} | process ended by ${child.signal ?? `exit ${child.status}`}: ${child.stderr.split('\n').find((l) => l.includes('FATAL')) ?? ''}`,
      );
      continue;
    }
    const rendered = JSON.parse(line) as Rendered;
    console.log(`${name} | ${rendered.chars} | ${rendered.ms} | ${rendered.outcome} | ${peakMb.toFixed(0)} | ${liveMb.toFixed(0)}`);
  }
  for (const name of Object.keys(EXHAUSTION)) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--exhaust', name], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const fatal = child.stderr.split('\n').find((l) => l.includes('FATAL ERROR'));
    const ended =
      child.signal !== null ? `the process was aborted (${child.signal}): ${fatal ?? ''}` : child.stdout.trim() || `exit ${child.status}`;
    console.log(`a worker of 64 MB filled with ${name}: ${ended}`);
  }
}
