/** Every string `code` along an error's `.cause` chain (Drizzle wraps the driver's error; postgres.js puts ECONNREFUSED, CONNECTION_CLOSED… on it). */
export function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let e = error; typeof e === 'object' && e !== null; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}
