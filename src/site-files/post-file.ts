/**
 * The MarginCMS post file: a markdown file with YAML front matter (written by the YAML library),
 * then the body unchanged. Three shapes of front matter, one writer:
 * - `flat` (an export): every field MarginCMS stores, read back by an import (the SEO fields as
 *   `seo_title`, `seo_description` and `canonical_url`, each only when set);
 * - `hugo` (an export for Hugo): the keys Hugo reads, with MarginCMS's own under `margin` (the SEO
 *   fields as in `flat`), read back too;
 * - `standalone` (one post downloaded on its own): the keys every generator reads (title, slug,
 *   description, date, tags), none of MarginCMS's own.
 * One file-name rule names them all (`postFileName`), and places them in an export (`postFilePath`).
 */
import { stringify as toYaml } from 'yaml';
import { isValidSlug, type Post } from '../domain/index.js';
import type { ImportedPost } from '../app/site-import.js';
import { dateOf, idOf, mapping, seoFrontMatter, seoOf, statusOf, tagsOf, text } from './front-matter-values.js';
import type { ExportLayout } from './manifest.js';

export type PostFileLayout = ExportLayout | 'standalone';

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** Where a Hugo export puts its posts. */
const HUGO_POSTS = 'content/posts';

/**
 * The name of a post's file without `.md` (and of its folder as a Hugo page bundle): its slug. A
 * slug is valid by every write's rules; should a stored one ever not be, the post's id (a ULID)
 * names it instead, so nothing a store holds can break a path in an archive or a
 * Content-Disposition header.
 */
function postStem(post: Post): string {
  return isValidSlug(post.slug) ? post.slug : post.id;
}

/** The file name of a post: `<slug>.md` (`postStem`). */
export function postFileName(post: Post): string {
  return `${postStem(post)}.md`;
}

/** A post's folder as a Hugo page bundle, `content/posts/<slug>`: its images and its `index.md`. */
export function postBundleDir(post: Post): string {
  return `${HUGO_POSTS}/${postStem(post)}`;
}

/**
 * A post's path in an export: its file name; for Hugo, under `content/posts/`, or `index.md` in
 * its bundle folder when `bundle` (its images go beside it).
 */
export function postFilePath(post: Post, layout: ExportLayout, bundle = false): string {
  if (layout === 'flat') return postFileName(post);
  return bundle ? `${postBundleDir(post)}/index.md` : `${HUGO_POSTS}/${postFileName(post)}`;
}

function frontMatterOf(post: Post, layout: PostFileLayout): Record<string, unknown> {
  // The date a generator sorts by: when the post was published, else when it was written.
  const date = iso(post.publishedAt ?? post.createdAt);
  switch (layout) {
    case 'flat':
      return {
        id: post.id,
        title: post.title,
        slug: post.slug,
        excerpt: post.excerpt,
        tags: post.tags,
        status: post.status,
        createdAt: iso(post.createdAt),
        updatedAt: iso(post.updatedAt),
        publishedAt: iso(post.publishedAt),
        publishAt: iso(post.publishAt),
        ...seoFrontMatter(post.seo),
      };
    case 'hugo':
      return {
        title: post.title,
        slug: post.slug,
        description: post.excerpt,
        date,
        lastmod: iso(post.updatedAt),
        ...(post.publishAt !== null ? { publishDate: iso(post.publishAt) } : {}),
        draft: post.status !== 'published',
        tags: post.tags,
        ...seoFrontMatter(post.seo),
        margin: { id: post.id, status: post.status, createdAt: iso(post.createdAt) },
      };
    case 'standalone':
      return { title: post.title, description: post.excerpt, date, tags: post.tags, slug: post.slug };
  }
}

/** The post as a markdown file of `layout`; `extra` keys (an export's `cover_image` and `cover_alt`) come last. */
export function postFileOf(post: Post, layout: PostFileLayout, extra: Record<string, unknown> = {}): string {
  return `---\n${toYaml({ ...frontMatterOf(post, layout), ...extra }, { lineWidth: 0 })}---\n${post.body}`;
}

/**
 * The post a MarginCMS export's file describes, from its front matter (`data`) and body: the Hugo
 * layout when it has a `margin` key, else the flat one. `slug` is the front matter's, else the one
 * its path suggests. Throws a `FrontMatterError` for a value that is not what its key asks for.
 */
export function postOfFile(data: Record<string, unknown>, body: string, slug: string): ImportedPost {
  const title = text('title', data.title, '');
  if (data.margin !== undefined) {
    const margin = mapping('margin', data.margin);
    const status = statusOf('margin.status', margin.status);
    const date = dateOf('date', data.date);
    return {
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
      seo: seoOf(data, 'margincms'),
    };
  }
  return {
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
    seo: seoOf(data, 'margincms'),
  };
}
