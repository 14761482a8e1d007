/**
 * Where the CLI keeps its session: `credentials.json` in the user's config directory
 * (`$XDG_CONFIG_HOME/margin` on Linux, `~/Library/Preferences/margin` on macOS, `%APPDATA%\margin`
 * on Windows; `MARGIN_CONFIG_DIR` overrides it). The directory is created 0700 and the file 0600,
 * written to a temporary name and renamed, so a crash never leaves half a token behind.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';

export interface Credentials {
  /** The API root the tokens belong to, e.g. `http://localhost:8080/api/v1`. */
  baseUrl: string;
  email: string;
  accessToken: string;
  refreshToken: string;
}

function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.MARGIN_CONFIG_DIR ?? envPaths('margin', { suffix: '' }).config;
}

export function credentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'credentials.json');
}

/** The saved session, or null when there is none (never logged in, logged out, or an unreadable file). */
export function loadCredentials(env: NodeJS.ProcessEnv = process.env): Credentials | null {
  let text: string;
  try {
    text = readFileSync(credentialsFile(env), 'utf8');
  } catch {
    return null;
  }
  try {
    const value = JSON.parse(text) as Partial<Credentials>;
    const complete = ['baseUrl', 'email', 'accessToken', 'refreshToken'].every(
      (key) => typeof value[key as keyof Credentials] === 'string',
    );
    return complete ? (value as Credentials) : null;
  } catch {
    return null;
  }
}

export function saveCredentials(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): void {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = credentialsFile(env);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  // The mode given to writeFileSync is masked by the umask; this is not.
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

export function forgetCredentials(env: NodeJS.ProcessEnv = process.env): void {
  rmSync(credentialsFile(env), { force: true });
}
