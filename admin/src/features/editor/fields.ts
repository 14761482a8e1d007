import type { Post, UpdatePostRequest } from '../../../../src/client/index.js';

/** What the author edits of a post. */
export interface Fields {
  title: string;
  slug: string;
  excerpt: string;
  tags: string[];
  status: Post['status'];
  /** When a draft publishes itself (the API's UTC timestamp); null when it is not scheduled. */
  publishAt: string | null;
  body: string;
}

export type FieldName = keyof Fields;

/** The fields in the order the form and the conflict banner show them. */
const FIELD_NAMES: readonly FieldName[] = ['title', 'slug', 'excerpt', 'tags', 'status', 'publishAt', 'body'];

export const EMPTY_FIELDS: Fields = { title: '', slug: '', excerpt: '', tags: [], status: 'draft', publishAt: null, body: '' };

export function fieldsOf(post: Post): Fields {
  return {
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    tags: [...post.tags],
    status: post.status,
    publishAt: post.publishAt,
    body: post.body,
  };
}

const same = (a: Fields, b: Fields, name: FieldName): boolean =>
  name === 'tags' ? a.tags.length === b.tags.length && a.tags.every((tag, i) => tag === b.tags[i]) : a[name] === b[name];

/** The names of the fields that differ between `a` and `b`, in form order. */
export function differingFields(a: Fields, b: Fields): FieldName[] {
  return FIELD_NAMES.filter((name) => !same(a, b, name));
}

/** The patch of what the author changed from `base`: only those fields, so a save never reverts another's edit of the rest. */
export function patchOf(base: Fields, draft: Fields): UpdatePostRequest {
  const patch: UpdatePostRequest = {};
  for (const name of differingFields(base, draft)) Object.assign(patch, { [name]: draft[name] });
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

/** Words in the markdown as typed (the server counts the rendered text, which the saved post then says). */
export function wordCount(body: string): number {
  const words = body.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu);
  return words ? words.length : 0;
}

/** The field a 422's pointer names (`/body/title`, `/body/tags/2`), if it is one of the form's. */
export function fieldOfPointer(pointer: string): FieldName | undefined {
  const match = /^\/body\/([A-Za-z]+)(?:\/|$)/.exec(pointer);
  const name = match?.[1] as FieldName | undefined;
  return name !== undefined && FIELD_NAMES.includes(name) ? name : undefined;
}
