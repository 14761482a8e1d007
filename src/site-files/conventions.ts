/**
 * What the front matter of a file means, by who wrote it:
 * - a MarginCMS export: every file of it is a post, whatever its path or layout, read as the
 *   post file it is (post-file.ts). A file that is not what its manifest lists (edited by hand,
 *   or added) is read by its own front matter, as in an archive without a manifest.
 * - MarginCMS's own post file anywhere (`isMarginCmsFile`: a post id and a status, or a `margin`
 *   mapping with a post id): read as that post file, but for its id outside an export, whose
 *   manifest alone makes the ids an archive's (without it the post is matched by its slug).
 * - Hugo (`content/**`): `title`, `slug`, `description` or `summary`, `tags`, `draft`, `date`,
 *   `publishDate`, `lastmod`; a page bundle's `index.md` is named by its folder, a section's
 *   `_index.md` is not a post. Posts are the files of a section (`content/posts/`, `content/blog/`,
 *   any folder under `content/`); a file or a bundle directly under `content/` (`about.md`,
 *   `index.md`, `about/index.md`) belongs to the home page and is a page, and so is a file of the
 *   `page` or `pages` section (Hugo's type is its section's name unless the front matter sets
 *   `type`).
 * - Jekyll (`_posts/YYYY-MM-DD-slug.md`, `_drafts/slug.md`): `title`, `slug`, `excerpt` or
 *   `description`, `tags` (a list, or words in one string) then `categories` (the same) and
 *   `category`, `published: false` for a draft, `date` (else the file name's), `last_modified_at`.
 *   In a Jekyll site (see `writerOf`), every other markdown file (`about.md`, `index.markdown`,
 *   `_pages/…`) is a page.
 * - Astro (`src/content/**`): `title`, `slug`, `description`, `tags`, `draft`, `pubDate`,
 *   `updatedDate`; a markdown file under `src/pages/` is a page.
 * - Every generator: `status: draft` or `status: archived` (MarginCMS's key, which WordPress's
 *   exporters write too) makes a draft or an archived post, whatever else says published.
 * - Every generator: SEO fields from `seo_title`/`meta_title`, `seo_description`/`meta_description`
 *   and `canonical_url`/`canonicalURL`/`canonical` (see `seoOf`).
 * - Anywhere but in a MarginCMS export, `layout: page` or `type: page` makes a page. Markdown files
 *   of no generator's layout (a zip of loose `.md` files) are posts.
 * Dates are RFC 3339, a YAML/TOML date, `YYYY-MM-DD HH:MM:SS +HHMM` (Jekyll) or `Jul 08 2022`
 * (Astro's starter); one without a zone is UTC.
 */
import type { ImportedPost, ImportSkipReason } from '../app/site-import.js';
import { isUlid, isValidSlug, normalizeTag, slugify, TAGS_MAX, type PostStatus } from '../domain/index.js';
import { dateOf, FrontMatterError, seoOf, tagsOf, text } from './front-matter-values.js';
import { postOfFile } from './post-file.js';

export type Source = 'margincms' | 'markdown';

/** Who wrote an archive's files: a MarginCMS export, a Jekyll site, or markdown told apart by each file's path (Hugo, Astro, loose files). */
export type Writer = 'margincms' | 'jekyll' | 'markdown';

/**
 * Whether a front matter is MarginCMS's own post file's (post-file.ts): in the flat layout a post
 * id (a ULID) and one of its statuses, in the Hugo layout a `margin` mapping with a post id. A
 * generator's `id: 123` or `status: publish` (WordPress) is not.
 */
export function isMarginCmsFile(data: Record<string, unknown>): boolean {
  const ulid = (value: unknown) => typeof value === 'string' && isUlid(value);
  const { margin } = data;
  if (margin !== null && typeof margin === 'object' && !Array.isArray(margin) && !(margin instanceof Date)) {
    return ulid((margin as Record<string, unknown>).id);
  }
  return ulid(data.id) && (data.status === 'draft' || data.status === 'published' || data.status === 'archived');
}

/** The status a generator's file states: `status: archived`, else a draft by any key that says so, else published. */
function generatorStatusOf(data: Record<string, unknown>, segments: string[]): PostStatus {
  if (data.status === 'archived') return 'archived';
  const draft = data.status === 'draft' || data.draft === true || data.published === false || segments.includes('_drafts');
  return draft ? 'draft' : 'published';
}

const JEKYLL_CONFIG = /^_config\.(yml|yaml|toml)$/;

/** The archive's writer, from its source and the paths of its files: a Jekyll site has a file under `_posts/` or `_drafts/`, or a `_config.yml`. */
export function writerOf(source: Source, paths: readonly string[]): Writer {
  if (source === 'margincms') return 'margincms';
  const jekyll = paths.some((path) => {
    const segments = path.split('/');
    return segments.includes('_posts') || segments.includes('_drafts') || JEKYLL_CONFIG.test(segments.at(-1)!);
  });
  return jekyll ? 'jekyll' : 'markdown';
}

type Outcome = { post: ImportedPost } | { skip: { reason: ImportSkipReason; detail: string; slug?: string | null } };

/** A tag as the domain stores it, to tell two apart; one the tag rule refuses is kept as it is (the post is then refused as the API would). */
function tagKey(tag: string): string {
  try {
    return normalizeTag(tag);
  } catch {
    return tag;
  }
}

/**
 * A Jekyll post's tags then its `categories` (a list, or words in one string) and `category`:
 * a category that is already a tag (as the tag rule writes it) is left out, and categories stop at
 * `TAGS_MAX` tags. The post's own tags are never cut.
 */
function jekyllTagsOf(data: Record<string, unknown>): string[] {
  const tags = tagsOf(data.tags, true);
  const categories = [
    ...tagsOf(data.categories, true, 'categories'),
    ...(typeof data.category === 'string' ? [data.category] : tagsOf(data.category, false, 'category')),
  ];
  const seen = new Set(tags.map(tagKey));
  for (const category of categories) {
    const key = tagKey(category);
    if (seen.has(key)) continue;
    if (seen.size >= TAGS_MAX) break;
    seen.add(key);
    tags.push(category);
  }
  return tags;
}

const INDEX = /^index\.(md|markdown)$/i;

/** Why a markdown file of a site is a page, not a post, or null for a post (see the conventions above). */
function pageOf(segments: string[], data: Record<string, unknown>, writer: Writer): string | null {
  if (writer === 'jekyll' && !segments.includes('_posts') && !segments.includes('_drafts')) {
    return 'outside _posts/ and _drafts/ of a Jekyll site';
  }
  if (data.layout === 'page') return 'its front matter says layout: page';
  if (data.type === 'page') return 'its front matter says type: page';
  const astroPages = segments.findIndex((segment, i) => segment === 'pages' && segments[i - 1] === 'src');
  if (astroPages !== -1) return "under Astro's src/pages/";
  const content = segments.findIndex((segment, i) => segment === 'content' && segments[i - 1] !== 'src');
  if (content < 0) return null;
  const inside = segments.slice(content + 1);
  if (inside.length === 1) return "directly under Hugo's content/";
  if (inside.length === 2 && INDEX.test(inside[1]!)) return "a page bundle directly under Hugo's content/";
  if (inside[0] === 'page' || inside[0] === 'pages') return `in Hugo's ${inside[0]} section`;
  return null;
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
export function importedPostOf(path: string, data: Record<string, unknown>, body: string, writer: Writer): Outcome {
  const segments = path.split('/');
  const explicitSlug = typeof data.slug === 'string' ? data.slug : null;
  const page = writer === 'margincms' ? null : pageOf(segments, data, writer);
  if (page !== null) return { skip: { reason: 'page', detail: `A page, not a post: ${page}.` } };
  try {
    const slug = explicitSlug ?? slugFromPath(segments);
    if (writer === 'margincms') return { post: postOfFile(data, body, slug) };
    // MarginCMS's own file outside an export: all it states but its id.
    if (isMarginCmsFile(data)) return { post: { ...postOfFile(data, body, slug), id: null } };
    const title = text('title', data.title, '');
    const jekyll = segments.includes('_posts') || segments.includes('_drafts');
    const nameDate = jekyll ? (JEKYLL_NAME.exec(segments.at(-1)!)?.[1] ?? null) : null;
    const date =
      dateOf('date', data.date) ??
      dateOf('pubDate', data.pubDate) ??
      dateOf('publishDate', data.publishDate) ??
      dateOf('file name', nameDate);
    const status = generatorStatusOf(data, segments);
    return {
      post: {
        id: null,
        title,
        slug,
        excerpt: text('excerpt', data.excerpt ?? data.description ?? data.summary, ''),
        body,
        tags: jekyll ? jekyllTagsOf(data) : tagsOf(data.tags, false),
        status,
        createdAt: date,
        updatedAt:
          dateOf('lastmod', data.lastmod) ?? dateOf('updatedDate', data.updatedDate) ?? dateOf('last_modified_at', data.last_modified_at),
        publishedAt: status === 'published' ? date : null,
        publishAt: null,
        seo: seoOf(data, 'generator'),
      },
    };
  } catch (error) {
    if (!(error instanceof FrontMatterError)) throw error;
    return { skip: { reason: 'invalid_front_matter', detail: `The front matter's ${error.message}.`, slug: explicitSlug } };
  }
}
