/**
 * Debian's Chromium for browser tests, driven by playwright-core (no browser is downloaded).
 * Where none is installed the test file is skipped with a message; under CI=true that is a
 * failure instead (`.ci/run` installs it).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);

/** The browser's path, or null after saying why `file` is skipped (throws under CI=true). */
export function chromiumPath(file: string): string | null {
  const found = CANDIDATES.find((p) => existsSync(p));
  if (found !== undefined) return found;
  if (process.env.CI === 'true') throw new Error(`No Chromium at ${CANDIDATES.join(', ')}: CI must install it (apt-get install chromium).`);
  console.warn(`${file} skipped: no Chromium at ${CANDIDATES.join(', ')} (apt-get install chromium, or set CHROMIUM_PATH)`);
  return null;
}

/**
 * Headless Chromium as this machine runs it: as root it needs --no-sandbox, and without the
 * background-networking flags it tries to reach Google's hosts, which this network refuses.
 */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
