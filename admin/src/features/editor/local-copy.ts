import { DRAFT_PREFIX } from '../../lib/local-drafts';
import { EMPTY_SEO, type Fields } from './fields';

/**
 * The author's unsaved work on one post, kept in this browser's localStorage while the form has
 * changes, so that a crash, a closed tab or a lost session loses nothing; removed once saved or
 * discarded, and every copy is dropped on sign-out (lib/local-drafts.ts). Only the post's fields are
 * kept (never a token). Storage that is full, disabled or
 * holds something unreadable is treated as empty: the copy is a safety net, not a requirement.
 */
export interface LocalCopy {
  fields: Fields;
  /** The version the edit started from (null for a new post). */
  baseVersion: number | null;
  /** When it was kept (ISO 8601). */
  keptAt: string;
}

const keyOf = (postId: string | null) => `${DRAFT_PREFIX}${postId ?? 'new'}`;

export function readLocalCopy(postId: string | null): LocalCopy | null {
  try {
    const stored = localStorage.getItem(keyOf(postId));
    if (stored === null) return null;
    const copy = JSON.parse(stored) as Partial<LocalCopy>;
    const fields = copy.fields;
    if (!fields || typeof fields.title !== 'string' || typeof fields.body !== 'string' || !Array.isArray(fields.tags)) return null;
    // A copy kept before the editor knew publish times, covers or SEO fields has none.
    return {
      fields: {
        ...fields,
        publishAt: fields.publishAt ?? null,
        coverImage: fields.coverImage ?? null,
        seo: { ...EMPTY_SEO, ...fields.seo },
      },
      baseVersion: copy.baseVersion ?? null,
      keptAt: String(copy.keptAt),
    };
  } catch {
    return null;
  }
}

export function keepLocalCopy(postId: string | null, fields: Fields, baseVersion: number | null): void {
  try {
    const copy: LocalCopy = { fields, baseVersion, keptAt: new Date().toISOString() };
    localStorage.setItem(keyOf(postId), JSON.stringify(copy));
  } catch {
    // Full or disabled storage: the form itself still holds the work.
  }
}

export function dropLocalCopy(postId: string | null): void {
  try {
    localStorage.removeItem(keyOf(postId));
  } catch {
    // Nothing to drop where there is no storage.
  }
}
