/**
 * What the admin calls each field of a post, as the editor labels it: the history and the
 * validation messages name a field by the same words the author sees in the form.
 */
export const FIELD_LABELS = {
  title: 'Title',
  slug: 'Slug',
  excerpt: 'Excerpt',
  tags: 'Tags',
  status: 'Status',
  publishAt: 'Publish at',
  coverImage: 'Cover image',
  seo: 'Search and sharing (SEO)',
  body: 'Body',
} as const;

/** The label of `name` within a sentence: "cover image", but "SEO" keeps its capitals. */
export const inSentence = (label: string): string => (/^[A-Z][a-z]/.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label);

/** A field error of a 422 (RFC 9457 `errors[]`): where, and what is wrong in words after the field's name. */
interface FieldError {
  pointer: string;
  message: string;
}

/** What names the value at `rest` (the pointer past the field) within the field `label`: a tag by its place. */
function subjectOf(label: string, rest: string[]): string {
  if (rest.length === 0) return label;
  if (label === FIELD_LABELS.tags && /^\d+$/.test(rest[0]!)) return `Tag ${Number(rest[0]) + 1}`;
  if (label === FIELD_LABELS.coverImage && rest[0] === 'alt') return 'The cover’s alt text';
  if (label === FIELD_LABELS.coverImage && rest[0] === 'mediaId') return 'The cover image';
  return label;
}

/**
 * The errors of one field as sentences, in words: "Title must not be empty.", "Slug must be at most
 * 100 characters long and may contain only lowercase letters, …", "Tag 3 must not be empty.".
 * `field` is the field's own pointer (`/body/title`); `label` names it as the form does.
 */
export function fieldSentences(field: string, label: string, errors: readonly FieldError[]): string | undefined {
  const byPointer = new Map<string, string[]>();
  for (const { pointer, message } of errors) {
    if (pointer !== field && !pointer.startsWith(`${field}/`)) continue;
    byPointer.set(pointer, [...(byPointer.get(pointer) ?? []), message]);
  }
  const sentences = [...byPointer].map(([pointer, messages]) => {
    const rest = pointer.slice(field.length).split('/').filter(Boolean);
    return `${subjectOf(label, rest)} ${messages.join(' and ')}.`;
  });
  return sentences.length === 0 ? undefined : sentences.join(' ');
}
