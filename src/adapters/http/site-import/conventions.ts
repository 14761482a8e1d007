/**
 * What the front matter of a file means, by who wrote it:
 * - a MarginCMS export: `flat` files carry every stored field (`id`, `status`, `createdAt`,
 *   `updatedAt`, `publishedAt`, `publishAt`); `hugo` files carry Hugo's keys and ours under `margin`.
 * - Hugo (`content/**`): `title`, `slug`, `description` or `summary`, `tags`, `draft`, `date`,
 *   `publishDate`, `lastmod`; a page bundle's `index.md` is named by its folder, a section's
 *   `_index.md` is not a post.
 * - Jekyll (`_posts/YYYY-MM-DD-slug.md`, `_drafts/slug.md`): `title`, `slug`, `excerpt` or
 *   `description`, `tags` (a list, or words in one string), `published: false` for a draft, `date`
 *   (else the file name's), `last_modified_at`.
 * - Astro (`src/content/**`): `title`, `slug`, `description`, `tags`, `draft`, `pubDate`,
 *   `updatedDate`.
 * Dates are RFC 3339, a YAML/TOML date, `YYYY-MM-DD HH:MM:SS +HHMM` (Jekyll) or `Jul 08 2022`
 * (Astro's starter); one without a zone is UTC.
 */
import type { ImportedPost, ImportSkipReason } from '../../../app/site-import.js';
import { isUlid, isValidSlug, slugify, type PostStatus } from '../../../domain/index.js';

export type Source = 'margincms' | 'markdown';

type Outcome = { post: ImportedPost } | { skip: { reason: ImportSkipReason; detail: string; slug?: string | null } };

class FrontMatterError extends Error {}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ]+(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|z|[+-]\d{2}:?\d{2})?)?$/;
const MONTH_DAY_YEAR = /^([A-Za-z]{3})[a-z]*\.? (\d{1,2}),? (\d{4})$/;

/** An instant from a front-matter value, or null for an absent one. */
export function dateOf(key: string, value: unknown): Date | null {
  if (value === undefined || value === null || value === '') return null;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new FrontMatterError(`${key} is not a date`);
    return new Date(value.getTime());
  }
  if (typeof value !== 'string') throw new FrontMatterError(`${key} is not a date: ${JSON.stringify(value)}`);
  const text = value.trim();
  const full = DATE_TIME.exec(text);
  const spoken = full ? null : MONTH_DAY_YEAR.exec(text);
  const fields = full
    ? full.slice(1, 7).map((part) => Number(part ?? 0))
    : spoken
      ? [Number(spoken[3]), MONTHS.indexOf(spoken[1]!.toLowerCase()) + 1, Number(spoken[2]), 0, 0, 0]
      : null;
  if (fields === null) throw new FrontMatterError(`${key} is not a date: ${JSON.stringify(value)}`);
  const [year, month, day, hour, minute, second] = fields as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) {
    throw new FrontMatterError(`${key} is not a date: ${JSON.stringify(value)}`);
  }
  const milliseconds = full?.[7] ? Math.floor(Number(`0${full[7]}`) * 1000) : 0;
  const zone = full?.[8]?.toUpperCase() ?? 'Z';
  const offsetMinutes = zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, milliseconds) - offsetMinutes * 60_000);
}

function text(key: string, value: unknown, fallback: string): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new FrontMatterError(`${key} is not text`);
}

function tagsOf(value: unknown, words: boolean): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.split(words ? /[\s,]+/ : /\s*,\s*/).filter((tag) => tag !== '');
  if (Array.isArray(value)) return value.map((tag) => text('tags', tag, ''));
  throw new FrontMatterError('tags is not a list');
}

function mapping(key: string, value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof Date) throw new FrontMatterError(`${key} is not a mapping`);
  return value as Record<string, unknown>;
}

function statusOf(key: string, value: unknown): PostStatus {
  if (value === 'draft' || value === 'published' || value === 'archived') return value;
  throw new FrontMatterError(`${key} is not draft, published or archived: ${JSON.stringify(value)}`);
}

function idOf(key: string, value: unknown): string {
  if (typeof value !== 'string' || !isUlid(value)) throw new FrontMatterError(`${key} is not a post id (a ULID): ${JSON.stringify(value)}`);
  return value;
}

const JEKYLL_NAME = /^(\d{4}-\d{2}-\d{2})-(.+)$/;

/** The slug a file's path suggests: its name, its folder's for an `index.md`, less a Jekyll date. */
function slugFromPath(segments: string[]): string {
  const file = segments.at(-1)!.replace(/\.(md|markdown)$/i, '');
  const name = file === 'index' && segments.length > 1 ? segments.at(-2)! : file;
  const bare = JEKYLL_NAME.exec(name)?.[2] ?? name;
  return isValidSlug(bare) ? bare : slugify(bare);
}

/**
 * The post a markdown file describes, or why it describes none: its front matter read by the
 * conventions of the archive's source and of the generator its path names.
 */
export function importedPostOf(path: string, data: Record<string, unknown>, body: string, source: Source): Outcome {
  const segments = path.split('/');
  const explicitSlug = typeof data.slug === 'string' ? data.slug : null;
  try {
    const title = text('title', data.title, '');
    const slug = explicitSlug ?? slugFromPath(segments);
    if (source === 'margincms') {
      const margin = mapping('margin', data.margin);
      const hugoLayout = data.margin !== undefined;
      if (hugoLayout) {
        const status = statusOf('margin.status', margin.status);
        const date = dateOf('date', data.date);
        return {
          post: {
            id: idOf('margin.id', margin.id),
            title,
            slug,
            excerpt: text('description', data.description, ''),
            body,
            tags: tagsOf(data.tags, false),
            status,
            createdAt: dateOf('margin.createdAt', margin.createdAt),
            updatedAt: dateOf('lastmod', data.lastmod),
            publishedAt: status === 'draft' ? null : date,
            publishAt: dateOf('publishDate', data.publishDate),
          },
        };
      }
      return {
        post: {
          id: idOf('id', data.id),
          title,
          slug,
          excerpt: text('excerpt', data.excerpt, ''),
          body,
          tags: tagsOf(data.tags, false),
          status: statusOf('status', data.status),
          createdAt: dateOf('createdAt', data.createdAt),
          updatedAt: dateOf('updatedAt', data.updatedAt),
          publishedAt: dateOf('publishedAt', data.publishedAt),
          publishAt: dateOf('publishAt', data.publishAt),
        },
      };
    }
    const jekyll = segments.includes('_posts') || segments.includes('_drafts');
    const draft = data.draft === true || data.published === false || segments.includes('_drafts');
    const nameDate = jekyll ? (JEKYLL_NAME.exec(segments.at(-1)!)?.[1] ?? null) : null;
    const date =
      dateOf('date', data.date) ??
      dateOf('pubDate', data.pubDate) ??
      dateOf('publishDate', data.publishDate) ??
      dateOf('file name', nameDate);
    const status: PostStatus = draft ? 'draft' : 'published';
    return {
      post: {
        id: null,
        title,
        slug,
        excerpt: text('excerpt', data.excerpt ?? data.description ?? data.summary, ''),
        body,
        tags: tagsOf(data.tags, jekyll),
        status,
        createdAt: date,
        updatedAt:
          dateOf('lastmod', data.lastmod) ?? dateOf('updatedDate', data.updatedDate) ?? dateOf('last_modified_at', data.last_modified_at),
        publishedAt: status === 'published' ? date : null,
        publishAt: null,
      },
    };
  } catch (error) {
    if (!(error instanceof FrontMatterError)) throw error;
    return { skip: { reason: 'invalid_front_matter', detail: `The front matter's ${error.message}.`, slug: explicitSlug } };
  }
}
