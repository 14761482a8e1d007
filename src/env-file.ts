import { resolve } from 'node:path';

/**
 * Reads `.env` (of the working directory, as `.env.example` says: "Copy to .env") into
 * `process.env`, before `loadConfig` reads the environment. A variable the environment already
 * has wins over the file, even when set empty: Node's `process.loadEnvFile` never overrides one.
 * Returns the file's absolute path, or null when there is none.
 */
export function loadEnvFile(path = '.env'): string | null {
  try {
    process.loadEnvFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return resolve(path);
}
