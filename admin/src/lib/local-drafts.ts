/**
 * The editor's unsaved work kept in this browser's localStorage, one key per post under one
 * prefix (the editor's local-copy.ts writes them). Signing out counts them, to ask first, and
 * drops them all: the next person to sign in on this browser is offered none of them.
 */
export const DRAFT_PREFIX = 'margincms:unsaved:';

function draftKeys(): string[] {
  try {
    return Array.from({ length: localStorage.length }, (_, index) => localStorage.key(index)).filter(
      (key): key is string => key !== null && key.startsWith(DRAFT_PREFIX),
    );
  } catch {
    return [];
  }
}

/** How many posts have unsaved work kept in this browser. */
export function localDraftCount(): number {
  return draftKeys().length;
}

/** Drops every post's unsaved work kept in this browser. */
export function dropLocalDrafts(): void {
  for (const key of draftKeys()) {
    try {
      localStorage.removeItem(key);
    } catch {
      // Nothing to drop where there is no storage.
    }
  }
}
