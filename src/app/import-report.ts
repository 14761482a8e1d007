/** What a site import reports of each file (a leaf: the import and its images both use it), and its summary in words. */
import type { PostStatus } from '../domain/index.js';

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
  /** What becomes of the file, in words (`summaryOf`). */
  summary: string;
  reason: ImportSkipReason | null;
  detail: string | null;
}

export type ImportMode = 'dry-run' | 'apply';

/** A post's status and schedule, as a summary names it. */
interface Stated {
  status: PostStatus;
  publishAt: Date | null;
}

/** The words a summary gives a field that changes (`status` is said on its own). */
const FIELD_WORDS: Record<ComparedField, { name: string; plural: boolean }> = {
  title: { name: 'title', plural: false },
  slug: { name: 'slug', plural: false },
  excerpt: { name: 'excerpt', plural: false },
  body: { name: 'body', plural: false },
  tags: { name: 'tags', plural: true },
  status: { name: 'status', plural: false },
  publishAt: { name: 'schedule', plural: false },
  coverImage: { name: 'cover', plural: false },
  seo: { name: 'SEO fields', plural: true },
};

/** The post a status makes: "a draft" (scheduled, "a draft scheduled for <instant>"), "a published post", "an archived post". */
function postOf({ status, publishAt }: Stated): string {
  if (status === 'published') return 'a published post';
  if (status === 'archived') return 'an archived post';
  return publishAt === null ? 'a draft' : `a draft scheduled for ${publishAt.toISOString()}`;
}

/** What a status is, as an adjective: "a draft", "published", "archived". */
const isNow = (status: PostStatus) => (status === 'draft' ? 'a draft' : status);

/** "its body changes", "its title and tags change", "its title, body and cover changed". */
function changesOf(fields: readonly ComparedField[], mode: ImportMode): string {
  const words = fields.filter((field) => field !== 'status').map((field) => FIELD_WORDS[field]);
  const names = words.map((word) => word.name);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  const verb = mode === 'apply' ? 'changed' : words.length === 1 && !words[0]!.plural ? 'changes' : 'change';
  return words.length === 0 ? '' : `its ${list} ${verb}`;
}

/** What becomes of one file of an import, as its item's `summary` says it: in a dry run what the apply would do, else what it did. */
export type Becomes =
  | { post: 'create'; as: Stated }
  | { post: 'update'; from: Stated; as: Stated; changed: readonly ComparedField[] }
  | { post: 'unchanged'; as: Stated }
  | { image: 'create' | 'unchanged' }
  | { skip: true };

/** The summary of what becomes of a file, in words. */
export function summaryOf(becomes: Becomes, mode: ImportMode): string {
  const dry = mode === 'dry-run';
  if ('skip' in becomes) return dry ? 'Will not be imported.' : 'Not imported.';
  if ('image' in becomes) {
    if (becomes.image === 'unchanged') return 'Already in the media library.';
    return dry ? 'Will be stored in the media library.' : 'Stored in the media library.';
  }
  switch (becomes.post) {
    case 'create':
      return `${dry ? 'Will be created' : 'Created'} as ${postOf(becomes.as)}.`;
    case 'unchanged':
      return dry ? `Will stay ${postOf(becomes.as)}; nothing changes.` : `Unchanged: still ${postOf(becomes.as)}.`;
    case 'update': {
      const changes = changesOf(becomes.changed, mode);
      const moved = becomes.from.status !== becomes.as.status;
      const head = moved
        ? `${dry ? 'Will become' : 'Became'} ${postOf(becomes.as)} (${dry ? 'now' : 'was'} ${isNow(becomes.from.status)})`
        : `${dry ? 'Will stay' : 'Still'} ${postOf(becomes.as)}`;
      return `${head}${changes === '' ? '' : `; ${changes}`}.`;
    }
  }
}
