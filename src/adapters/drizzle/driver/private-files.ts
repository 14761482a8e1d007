import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Owner only: what a data directory and everything in it are kept at. */
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `dir` (and missing parents) if needed and makes it 0700 whatever the umask, so that
 * nothing inside can be reached by other users. Parents that already exist are left as they are.
 */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * Makes every folder under `dir` (and `dir` itself) 0700 and every other entry 0600. Symbolic
 * links are neither followed nor changed.
 */
export function makePrivateTree(dir: string): void {
  chmodSync(dir, PRIVATE_DIR_MODE);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) makePrivateTree(path);
    else chmodSync(path, PRIVATE_FILE_MODE);
  }
}
