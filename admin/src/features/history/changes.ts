import type { RevisionSummary } from './queries';

const FIELDS = ['title', 'slug', 'excerpt', 'tags', 'status'] as const;

const sameTags = (a: string[], b: string[]) => a.length === b.length && a.every((tag) => b.includes(tag));

/**
 * What a revision changed from the one before it, as far as the listed summaries tell: the fields
 * that differ and the word count. A summary has no body, so an edit of the body that keeps the word
 * count (or of the schedule) shows as "Body or schedule". `previous` is undefined when the older
 * revision is not loaded yet (then null: not known).
 */
export function changesOf(revision: RevisionSummary, previous: RevisionSummary | undefined): string | null {
  if (revision.version === 1) return 'Created';
  if (!previous) return null;
  const changed: string[] = FIELDS.filter((name) =>
    name === 'tags' ? !sameTags(revision.tags, previous.tags) : revision[name] !== previous[name],
  );
  if (revision.wordCount !== previous.wordCount) changed.push(`body (${previous.wordCount} → ${revision.wordCount} words)`);
  if (changed.length === 0) return 'Body or schedule';
  const text = changed.join(', ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
