/**
 * Images in the site's files.
 * - An export writes each media a post shows (its cover, and every media of the library its body
 *   links, whichever of the media's files the link names) once, as the media's original, beside
 *   the post, and rewrites every link to a file of that media to the relative path of that
 *   original. The file is named by the original's SHA-256 (its first 16 hex digits, the whole
 *   hash should two media of one export share them): the same image has the same name in every
 *   export, whatever id a store gives it, so export → import → export writes the same files.
 * - An import finds the images a post shows (markdown image links, and the cover's front-matter
 *   keys: `cover_image`, `image`, `cover` as a path or as a mapping of `image` and `alt`), each a
 *   relative path (from the post's folder) or a path from the site's root (looked up under Hugo's
 *   `static/`, Astro's `public/` and the archive's top, where Jekyll's `assets/` is), resolves
 *   them to files of the archive, and rewrites the links once the images are stored.
 */
import { MEDIA_EXTENSIONS, type CoverImage, type Media, type Post } from '../domain/index.js';
import type { ExportLayout } from './manifest.js';

/** The path of our media files under the API's address (the HTTP adapter serves them there). */
const MEDIA_ROOT = '/api/v1/content/media';

/**
 * A link to one of our media files in a body: an http(s) origin (and a path before the media root,
 * for an API behind a prefix), or none; then `<root>/<id>/<file>`. It starts where a URL may start
 * in markdown or HTML (after a space, `(`, `<`, a quote, `=`, `]`) and ends with the file's name.
 */
const MEDIA_URL = new RegExp(
  `(?<=^|[\\s(<"'=\\]])(?:https?:)?(?://[^/?#\\s()<>"'\\]]+)?[^:?#\\s()<>"'\\]]*?${MEDIA_ROOT}/([a-z2-7]{26})/[a-z0-9][a-z0-9.]{0,39}(?![a-z0-9.])`,
  'g',
);

/** The ids of the media a post shows: its cover's first, then those its body links, each once. */
export function mediaIdsOf(post: Pick<Post, 'body'> & { coverImage?: CoverImage | null }): string[] {
  const ids = new Set<string>();
  if (post.coverImage) ids.add(post.coverImage.mediaId);
  for (const match of post.body.matchAll(MEDIA_URL)) ids.add(match[1]!);
  return [...ids];
}

/** The body with each link to a file of a media that `pathOf` knows replaced by that path. */
export function rewriteMediaLinks(body: string, pathOf: (mediaId: string) => string | undefined): string {
  return body.replace(MEDIA_URL, (link, mediaId: string) => pathOf(mediaId) ?? link);
}

/** A media of the library and its original's bytes, as an export reads them. */
export interface ExportImage {
  media: Pick<Media, 'id' | 'contentType' | 'sha256'>;
  bytes: Uint8Array;
}

/** Reads a media and its original, or null when the library has no such media. */
export type ReadImage = (mediaId: string) => Promise<ExportImage | null>;

/** What an export writes for one post: its file's path, its body and cover as the file links them, and the images beside it. */
export interface ExportedPostImages {
  /** The post's file: for Hugo, `content/posts/<slug>/index.md` when images go beside it (a page bundle). */
  bundle: boolean;
  body: string;
  /** Front-matter keys: `cover_image` (a relative path) and `cover_alt`, or none. */
  cover: { cover_image: string; cover_alt: string } | null;
  files: { path: string; bytes: Uint8Array; mtime: Date }[];
}

const HASH_NAME_LENGTH = 16;

/**
 * The images of one export: names each media once (the same name for the whole export) and, in the
 * flat layout, writes each original once into `media/`. Holds a name per media, never its bytes.
 */
export class ExportImages {
  readonly #read: ReadImage;
  readonly #layout: ExportLayout;
  /** Media id → its file's name in the archive, or null when the library has no such media. */
  readonly #names = new Map<string, string | null>();
  /** File name → the media it names, to tell two media whose hashes begin alike apart. */
  readonly #taken = new Map<string, string>();
  readonly #mtime: Date;

  constructor(read: ReadImage, layout: ExportLayout, mtime: Date) {
    this.#read = read;
    this.#layout = layout;
    this.#mtime = mtime;
  }

  #nameOf(image: ExportImage): string {
    const { id, sha256, contentType } = image.media;
    const extension = MEDIA_EXTENSIONS[contentType];
    let name = `${sha256.slice(0, HASH_NAME_LENGTH)}.${extension}`;
    const holder = this.#taken.get(name);
    if (holder !== undefined && holder !== id) name = `${sha256}.${extension}`;
    this.#taken.set(name, id);
    this.#names.set(id, name);
    return name;
  }

  /** The post's images: read, named, linked by relative paths; `dir` is the post's folder in a Hugo export. */
  async of(post: Pick<Post, 'body'> & { coverImage?: CoverImage | null }, dir: string): Promise<ExportedPostImages> {
    const links = new Map<string, string>();
    const files: ExportedPostImages['files'] = [];
    for (const id of mediaIdsOf(post)) {
      const known = this.#names.get(id);
      if (known === null) continue;
      if (known !== undefined && this.#layout === 'flat') {
        links.set(id, `media/${known}`);
        continue;
      }
      const image = await this.#read(id);
      if (image === null) {
        this.#names.set(id, null);
        continue;
      }
      const name = known ?? this.#nameOf(image);
      const path = this.#layout === 'flat' ? `media/${name}` : `${dir}/${name}`;
      links.set(id, this.#layout === 'flat' ? path : name);
      files.push({ path, bytes: image.bytes, mtime: this.#mtime });
    }
    const cover = post.coverImage ? links.get(post.coverImage.mediaId) : undefined;
    return {
      bundle: this.#layout === 'hugo' && files.length > 0,
      body: rewriteMediaLinks(post.body, (id) => links.get(id)),
      cover: cover === undefined ? null : { cover_image: cover, cover_alt: post.coverImage!.alt },
      files,
    };
  }
}

// --- Import -------------------------------------------------------------------------------------

/** The file names an image may have in a site (SVG among them: found, so that it is reported as refused). */
export const IMAGE_FILE = /\.(jpe?g|png|webp|avif|gif|svg)$/i;

/** An image link of a body: where its destination is in the text, and what it says. */
export interface ImageLink {
  /** Offsets of the destination in the body (without its `<` `>`). */
  start: number;
  end: number;
  target: string;
  alt: string;
}

/** A markdown image: `![alt](destination "title")`, the destination bare or in `<` `>`. */
const IMAGE_LINK =
  /!\[((?:[^\]\\\n]|\\.){0,1000})\]\([ \t]*(<[^<>\n]*>|[^\s()<>]+)(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)/dg;

/** The body's markdown image links, in order. */
export function imageLinksOf(body: string): ImageLink[] {
  const links: ImageLink[] = [];
  for (const match of body.matchAll(IMAGE_LINK)) {
    const destination = match[2]!;
    const [from] = match.indices![2]!;
    const bracketed = destination.startsWith('<');
    const target = bracketed ? destination.slice(1, -1) : destination;
    const start = from + (bracketed ? 1 : 0);
    links.push({ start, end: start + target.length, target, alt: match[1]! });
  }
  return links;
}

/** The body with the destinations of `links` replaced by `urlOf`'s answer (a link it answers null for stays as it is). */
export function rewriteImageLinks(body: string, links: readonly ImageLink[], urlOf: (link: ImageLink) => string | null): string {
  let out = '';
  let at = 0;
  for (const link of links) {
    const url = urlOf(link);
    if (url === null) continue;
    out += body.slice(at, link.start) + url;
    at = link.end;
  }
  return out + body.slice(at);
}

/**
 * The cover a front matter names: `cover_image`, `image` or `cover`, each a path or a mapping of
 * `image` (Hugo themes' `cover`) or `path` (jekyll-seo-tag's `image`) and `alt`; the alt text is
 * the mapping's, else `cover_alt`.
 */
export function coverOf(data: Record<string, unknown>): { target: string; alt: string } | null {
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  const mappingOf = (value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
      ? (value as Record<string, unknown>)
      : null;
  for (const key of ['cover_image', 'image', 'cover']) {
    const value = data[key];
    const nested = mappingOf(value);
    const target = text(value) ?? text(nested?.image) ?? text(nested?.path);
    if (target !== null) return { target, alt: text(nested?.alt) ?? text(data.cover_alt) ?? '' };
  }
  return null;
}

/** Where a site keeps files served from its root: Hugo's `static/`, Astro's `public/`, and the top (Jekyll's `assets/`). */
const ROOTS = ['static/', 'public/', ''];

/** The segments of `path` with `.` and `..` resolved, or null when it climbs out of the archive. */
function normalised(segments: string[]): string | null {
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(segment);
  }
  return out.length === 0 ? null : out.join('/');
}

/**
 * The archive's file an image link of the post at `postPath` names, or null: a URL (with a scheme,
 * or `//`) names none; a path from the root is looked up under each of `ROOTS`; a relative path
 * from the post's folder, then (as Hugo reads a front matter's `images/x.jpg`) from each root.
 */
export function archivePathOf(postPath: string, target: string, has: (path: string) => boolean): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null;
  let path = target.replace(/[?#].*$/s, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    // Not percent-encoded: the path as written.
  }
  const candidates: (string | null)[] = [];
  if (!path.startsWith('/')) candidates.push(normalised([...postPath.split('/').slice(0, -1), ...path.split('/')]));
  for (const root of ROOTS) candidates.push(normalised([...root.split('/'), ...path.split('/')]));
  return candidates.find((candidate): candidate is string => candidate !== null && IMAGE_FILE.test(candidate) && has(candidate)) ?? null;
}
