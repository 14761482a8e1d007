// The `margin` program: runs one command line with the process's streams and sets the exit code.
import { run } from './cli.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

process.exitCode = await run(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  stdin: readStdin,
  isTty: Boolean(process.stdin.isTTY),
  errIsTty: Boolean(process.stderr.isTTY),
});
