/** What a site import reports of each file (a leaf: the import and its images both use it). */

export type ImportSkipReason =
  | 'not_a_post'
  | 'page'
  | 'too_large'
  | 'invalid_front_matter'
  | 'invalid_post'
  | 'slug_taken'
  | 'duplicate'
  | 'checksum_mismatch'
  | 'conflict'
  | 'deleted'
  | 'image_refused'
  | 'image_limit';

export type ImportAction = 'create' | 'update' | 'unchanged' | 'skip';

/** The fields an import compares and may change, in the report's order. */
export const COMPARED = ['title', 'slug', 'excerpt', 'body', 'tags', 'status', 'publishAt', 'coverImage', 'seo'] as const;
export type ComparedField = (typeof COMPARED)[number];

export interface ImportItem {
  path: string;
  action: ImportAction;
  id: string | null;
  slug: string | null;
  changed: ComparedField[];
  reason: ImportSkipReason | null;
  detail: string | null;
}

export type ImportMode = 'dry-run' | 'apply';
