const MASK = '***';

/**
 * `url` with its password (in the userinfo or a `password` query parameter) replaced by `***`,
 * fit for logs. A string that is not a URL comes back with the `user:password@` part masked.
 */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.includes('//')
      ? url.replace(/(\/\/[^:/@]*):[^@]*@/, `$1:${MASK}@`)
      : url.replace(/((?:^|\s)[^:/@\s]*):[^@\s]*@/, `$1:${MASK}@`);
  }
  if (parsed.password !== '') parsed.password = MASK;
  for (const key of [...parsed.searchParams.keys()]) {
    if (key.toLowerCase() === 'password') parsed.searchParams.set(key, MASK);
  }
  return parsed.toString();
}
