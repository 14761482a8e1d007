import { FIELD_LABELS, inSentence } from '../../lib/post-fields';
import type { RevisionSummary } from './queries';

/**
 * What a revision changed from the one before it, as the API lists it (`changed`), the body with
 * its word counts when the older revision is loaded (`previous`) and they differ. A write that
 * changed none of the listed fields moved the schedule, or nothing.
 */
export function changesOf(revision: RevisionSummary, previous: RevisionSummary | undefined): string {
  if (revision.version === 1) return 'Created';
  if (revision.changed.length === 0) return 'Schedule only, or nothing';
  // Named as the editor labels them ("Cover image", "Search and sharing (SEO)").
  const names = revision.changed.map((field, i) => {
    const label = i === 0 ? FIELD_LABELS[field] : inSentence(FIELD_LABELS[field]);
    return field === 'body' && previous !== undefined && previous.wordCount !== revision.wordCount
      ? `${label} (${previous.wordCount} → ${revision.wordCount} words)`
      : label;
  });
  return names.join(', ');
}
