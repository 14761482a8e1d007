import { setFlagsFromString } from 'node:v8';

/**
 * Garbage-collector tuning for the server process, applied when this module is evaluated: it is
 * the first import of `server.ts`, so it runs before the server allocates anything of note. Both
 * flags change only where and when memory is reclaimed, never what the program computes. Measured
 * with `--trace-gc-nvp` and `make bench`; the figures are in bench/NOTES.md.
 *
 * `--no-allocation-site-pretenuring`: V8 watches which allocation sites produce objects that
 * survive a young-generation collection and, past a threshold, allocates everything from such a
 * site straight in the old generation. Under saturated load a request's rows (postgres.js parses
 * each `text[]` through one array literal) are still in flight at most collections, so those
 * sites were pretenured: every page's arrays then went to the old generation and stayed there
 * until a full collection. With it off, little is promoted and the peak RSS is lower, at the same
 * throughput.
 *
 * `--heap-growing-percent=50`: after a full collection V8 lets the old generation grow to up to
 * 4 × what survived before the next one. What a saturated server promotes (requests still in
 * flight at a young collection) then piles up before it is reclaimed. Growing by half instead
 * lowers the peak RSS for a few more (short) full collections and no change in throughput.
 *
 * A flag the process was started with (on the command line or in NODE_OPTIONS) wins.
 */
const GC_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring', '--heap-growing-percent=50'];

const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map(nameOf);
for (const flag of GC_FLAGS) {
  if (!given.includes(nameOf(flag))) setFlagsFromString(flag);
}

/** `--no-foo`, `--foo=1` and `--foo_bar` all name `foo` / `foo-bar`. */
function nameOf(flag: string): string {
  return flag
    .replace(/=.*$/, '')
    .replace(/^--(no-)?/, '')
    .replaceAll('_', '-');
}
