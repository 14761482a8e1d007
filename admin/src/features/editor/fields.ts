import type { components, Post, UpdatePostRequest } from '../../../../src/client/index.js';

export type CoverImage = components['schemas']['CoverImage'];

/** The SEO fields as the form edits them: an empty one means "use the post's own" (null in the API). */
export interface SeoFields {
  title: string;
  description: string;
  canonicalUrl: string;
}

export const EMPTY_SEO: SeoFields = { title: '', description: '', canonicalUrl: '' };

/** What the author edits of a post. */
export interface Fields {
  title: string;
  slug: string;
  excerpt: string;
  tags: string[];
  status: Post['status'];
  /** When a draft publishes itself (the API's UTC timestamp); null when it is not scheduled. */
  publishAt: string | null;
  /** The image at the post's top (a media of the library, with this post's alt text for it), or null. */
  coverImage: CoverImage | null;
  seo: SeoFields;
  body: string;
}

export type FieldName = keyof Fields;

/** The fields in the order the form and the conflict banner show them. */
const FIELD_NAMES: readonly FieldName[] = ['title', 'slug', 'excerpt', 'tags', 'status', 'publishAt', 'coverImage', 'seo', 'body'];

export const EMPTY_FIELDS: Fields = {
  title: '',
  slug: '',
  excerpt: '',
  tags: [],
  status: 'draft',
  publishAt: null,
  coverImage: null,
  seo: EMPTY_SEO,
  body: '',
};

export function fieldsOf(post: Post): Fields {
  return {
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    tags: [...post.tags],
    status: post.status,
    publishAt: post.publishAt,
    coverImage: post.coverImage ? { mediaId: post.coverImage.mediaId, alt: post.coverImage.alt } : null,
    seo: {
      title: post.seo.title ?? '',
      description: post.seo.description ?? '',
      canonicalUrl: post.seo.canonicalUrl ?? '',
    },
    body: post.body,
  };
}

const sameCover = (a: CoverImage | null, b: CoverImage | null): boolean =>
  a === null || b === null ? a === b : a.mediaId === b.mediaId && a.alt === b.alt;

const same = (a: Fields, b: Fields, name: FieldName): boolean => {
  if (name === 'tags') return a.tags.length === b.tags.length && a.tags.every((tag, i) => tag === b.tags[i]);
  if (name === 'coverImage') return sameCover(a.coverImage, b.coverImage);
  if (name === 'seo')
    return a.seo.title === b.seo.title && a.seo.description === b.seo.description && a.seo.canonicalUrl === b.seo.canonicalUrl;
  return a[name] === b[name];
};

const orNull = (value: string): string | null => (value.trim() === '' ? null : value);

/** The API's SEO input for the form's: an empty field is null (the post's own title, excerpt or URL). */
export const seoInputOf = (seo: SeoFields) => ({
  title: orNull(seo.title),
  description: orNull(seo.description),
  canonicalUrl: orNull(seo.canonicalUrl.trim()),
});

/** What a field is sent as: the cover as `{ mediaId, alt }` or null, the SEO fields with null for empty. */
function wireValue(draft: Fields, name: FieldName): unknown {
  if (name === 'seo') return seoInputOf(draft.seo);
  if (name === 'coverImage') return draft.coverImage ? { mediaId: draft.coverImage.mediaId, alt: draft.coverImage.alt } : null;
  return draft[name];
}

/** The names of the fields that differ between `a` and `b`, in form order. */
export function differingFields(a: Fields, b: Fields): FieldName[] {
  return FIELD_NAMES.filter((name) => !same(a, b, name));
}

/** The patch of what the author changed from `base`: only those fields, so a save never reverts another's edit of the rest. */
export function patchOf(base: Fields, draft: Fields): UpdatePostRequest {
  const patch: UpdatePostRequest = {};
  for (const name of differingFields(base, draft)) Object.assign(patch, { [name]: wireValue(draft, name) });
  return patch;
}

/**
 * A slug suggested from a title, as the server would derive it: lowercase ASCII words joined by
 * single hyphens (accents dropped, anything else a separator).
 */
export function suggestSlug(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
}
