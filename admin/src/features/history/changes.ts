import type { RevisionSummary } from './queries';

/**
 * What a revision changed from the one before it, as the API lists it (`changed`), the body with
 * its word counts when the older revision is loaded (`previous`) and they differ. A write that
 * changed none of the listed fields moved the schedule, or nothing.
 */
export function changesOf(revision: RevisionSummary, previous: RevisionSummary | undefined): string {
  if (revision.version === 1) return 'Created';
  if (revision.changed.length === 0) return 'Schedule only, or nothing';
  const names = revision.changed.map((field) =>
    field === 'body' && previous !== undefined && previous.wordCount !== revision.wordCount
      ? `body (${previous.wordCount} → ${revision.wordCount} words)`
      : field,
  );
  const text = names.join(', ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
