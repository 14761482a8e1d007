/**
 * What `node dist/main.js` (and `tsx src/main.ts`) runs. It checks the Node version first, in
 * plain words, before anything that needs a newer Node is loaded (a static import would fail at
 * link time with a SyntaxError naming a missing export); then reads `.env`; then loads the server
 * (`server.ts`, the composition root) and starts it.
 */
import { loadEnvFile } from './env-file.js';
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem !== null) {
  console.error(problem);
  process.exit(1);
}
let envFile: string | null = null;
try {
  envFile = loadEnvFile();
} catch (error) {
  console.error(`MarginCMS could not start: cannot read .env: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const { run } = await import('./server.js');
await run(envFile);
