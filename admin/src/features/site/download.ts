/**
 * Offers `blob` for download as `filename`: an object URL (same origin, so the admin's CSP, which
 * governs what the page fetches and not what it saves, lets it through) on an `<a download>` that
 * is clicked once. The caller keeps the URL for a "save again" link and revokes it when done.
 */
export function offerDownload(blob: Blob, filename: string): string {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  return url;
}

/** Bytes as people read them: 812 bytes, 12.4 KB, 3.1 MB. */
export function sizeOf(bytes: number): string {
  if (bytes < 1000) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
