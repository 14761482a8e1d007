#!/usr/bin/env node
// `make dev`: the development loop in one command, stopped together with Ctrl-C:
//   [api]  the server under `tsx watch`, restarted when a file under src/ or the bundle changes;
//   [spec] a watcher of openapi/ that lints the spec and, when the lint passes, regenerates
//          generated/ (bundle, types), which restarts [api] and reloads [mock]; a spec that fails
//          the lint prints its problems and leaves generated/, and so the running server, as they were;
//   [mock] the Prism mock of generated/openapi.json on MOCK_PORT (4010), reloaded by Prism itself
//          when the bundle changes, behind scripts/mock.mjs (as `make mock`: its 422s list the
//          request's own violations);
//   [admin] the admin app under Vite with hot reload on ADMIN_PORT (5173), at /admin/; its `/api`
//          goes to the mock unless ADMIN_API=server sends it to [api] (admin/vite.config.ts), and
//          its development panel adds `Prefer` to the next request (admin/src/dev/).
// Output is prefixed by concurrently. The server runs on the embedded default unless DATABASE_URL is set.
import concurrently from 'concurrently';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => `"${root}node_modules/.bin/${name}"`;
const mockPort = process.env.MOCK_PORT || '4010';

const { result } = concurrently(
  [
    {
      name: 'api',
      command: `${bin('tsx')} watch --clear-screen=false --include generated/openapi.json src/main.ts`,
      prefixColor: 'cyan',
    },
    { name: 'spec', command: `node scripts/watch-spec.mjs`, prefixColor: 'magenta' },
    {
      name: 'mock',
      command: `node scripts/mock.mjs --host 127.0.0.1 --port ${mockPort}`,
      prefixColor: 'yellow',
    },
    { name: 'admin', command: `${bin('vite')} admin --clearScreen false`, prefixColor: 'green' },
  ],
  { cwd: root, prefix: 'name', killOthersOn: ['failure'], handleInput: false },
);

result.then(
  () => process.exit(0),
  (events) => {
    // Ctrl-C ends every command with a signal: that is the normal way out.
    const byUser = events.every((e) => e.killed || e.exitCode === 'SIGINT' || e.exitCode === 'SIGTERM' || e.exitCode === 130);
    process.exit(byUser ? 0 : 1);
  },
);
