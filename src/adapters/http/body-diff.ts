import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import type { components } from '../../../generated/api.js';

type BodyDiff = components['schemas']['BodyDiff'];

/**
 * Past this many edited lines the diff is given up. Myers' algorithm takes time in the square of
 * the edits and runs on the event loop (times in bench/NOTES.md).
 */
export const MAX_EDIT_LINES = 1_000;
/** And past this much time, on a machine slow enough to need it. */
const MAX_DIFF_MS = 250;
/** Past this much text the unified diff ends at the last whole hunk that fitted. */
export const MAX_UNIFIED_CHARS = 1024 * 1024;

/**
 * The markdown bodies of two states compared line by line with jsdiff: a unified diff with three
 * lines of context whose `---`/`+++` headers name the versions, and its added and removed line
 * counts; bounded as the contract says (`BodyDiff`).
 */
export function diffBodies(from: { body: string; label: string }, to: { body: string; label: string }): BodyDiff {
  if (from.body === to.body) return { changed: false, additions: 0, deletions: 0, unified: '', truncated: false };
  const patch = structuredPatch(from.label, to.label, from.body, to.body, undefined, undefined, {
    context: 3,
    maxEditLength: MAX_EDIT_LINES,
    timeout: MAX_DIFF_MS,
  });
  if (patch === undefined) return { changed: true, additions: null, deletions: null, unified: '', truncated: true };
  let additions = 0;
  let deletions = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) additions++;
      else if (line.startsWith('-')) deletions++;
    }
  }
  const format = (hunks: number) => formatPatch({ ...patch, hunks: patch.hunks.slice(0, hunks) }, FILE_HEADERS_ONLY);
  let unified = format(patch.hunks.length);
  const truncated = unified.length > MAX_UNIFIED_CHARS;
  if (truncated) {
    // The most whole hunks that fit, found by bisection (each try formats the patch once).
    let fits = 0;
    let tooMany = patch.hunks.length;
    while (tooMany - fits > 1) {
      const middle = (fits + tooMany) >> 1;
      if (format(middle).length <= MAX_UNIFIED_CHARS) fits = middle;
      else tooMany = middle;
    }
    unified = format(fits);
  }
  return { changed: true, additions, deletions, unified, truncated };
}
