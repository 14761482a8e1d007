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

export type PostFieldName = keyof typeof FIELD_LABELS;

/** The label of `name` within a sentence: "cover image", but "SEO" keeps its capitals. */
export const inSentence = (label: string): string => (/^[A-Z][a-z]/.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label);
