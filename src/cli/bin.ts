// The `margin` program: runs one command line with the process's streams and exits with its code.
import { setFlagsFromString } from 'node:v8';
import { run } from './cli.js';

// Node's fetch parses HTTP with a WebAssembly module, which V8 recompiles in the background once
// it has run; a process that ends waits for that compilation, about half a second on a busy
// 2-core machine, longer than the whole call. The baseline compiler alone is plenty for a CLI.
setFlagsFromString('--liftoff-only');

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const code = await run(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  stdin: readStdin,
  isTty: Boolean(process.stdin.isTTY),
  errIsTty: Boolean(process.stderr.isTTY),
});

// Node's fetch keeps its idle keep-alive connection referenced for up to a second or two after the
// last answer, and the process would wait for it: exit once both streams have written what they hold.
process.exitCode = code;
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
