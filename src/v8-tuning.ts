import { setFlagsFromString } from 'node:v8';

/**
 * Garbage-collector tuning for the server process, applied when this module is evaluated: it is
 * the first import of `main.ts`, so it runs before the server allocates anything of note. Both
 * flags change only where and when memory is reclaimed, never what the program computes. Measured
 * with `--trace-gc-nvp` and `make bench` (figures in the #8 closing note).
 *
 * `--no-allocation-site-pretenuring`: V8 watches which allocation sites produce objects that
 * survive a young-generation collection and, past a threshold, allocates everything from such a
 * site straight in the old generation. Under saturated load a request's rows (postgres.js parses
 * each `text[]` through one array literal) are still in flight at most collections, so those
 * sites were pretenured: every page's arrays then went to the old generation and stayed there
 * until a full collection. On a list-20 load: 0.45 MB promoted per scavenge and a peak RSS of
 * 181 MiB with pretenuring; with it off, a few KB and 134 MiB, at the same throughput.
 *
 * `--heap-growing-percent=50`: after a full collection V8 lets the old generation grow to up to
 * 4 × what survived before the next one. What a saturated server promotes (requests still in
 * flight at a young collection, about 3 MB/s) then piled up to 100 MB before it was reclaimed.
 * Growing by half instead took the peak RSS under a GET then list load from 165 to 134 MiB, for
 * 8 full collections instead of 3 in 20 s (30 ms of pauses in all) and no change in throughput.
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
