/**
 * The Node.js releases the server runs on, as `engines` in package.json states them (a test keeps
 * the two in step): per release line, its first supported version. A major release newer than the
 * last listed is let through; an older or unlisted line is not.
 *
 * `main.ts` imports this before anything else, so it uses nothing an old Node lacks.
 */
const SUPPORTED_LINES: readonly (readonly [major: number, minor: number])[] = [
  [20, 19],
  [22, 12],
  [24, 0],
];

/** Why the server cannot run on Node `version` (`process.versions.node`, e.g. "18.19.1"), in plain words; null when it can. */
export function nodeVersionProblem(version: string): string | null {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  const newest = SUPPORTED_LINES[SUPPORTED_LINES.length - 1]![0];
  if (major > newest) return null;
  const line = SUPPORTED_LINES.find(([m]) => m === major);
  if (line !== undefined && minor >= line[1]) return null;
  const wanted = SUPPORTED_LINES.map(([m, n]) => `${m}.${n}+`).join(', ');
  return [
    `MarginCMS cannot run on Node.js ${version}: it needs Node.js ${wanted} (or a newer major release).`,
    'Install a supported Node.js (https://nodejs.org/, or e.g. `nvm install 22`) and start it again.',
  ].join('\n');
}
