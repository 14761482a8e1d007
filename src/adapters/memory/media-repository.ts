import { checkedBatchLimit, checkedIds, checkedPageLimit, compareUtf8, hasCursor, pageOf } from '../../domain/index.js';
import { decodeCursor, encodeCursor } from '../../domain/cursor.js';
import { DuplicateIdError } from '../../domain/errors.js';
import type { Media, MediaUse } from '../../domain/media.js';
import {
  MEDIA_POSITION,
  mediaCursorScope,
  type MediaChanges,
  type MediaRepository,
  type NewMedia,
} from '../../domain/ports/media-repository.js';
import type { Post } from '../../domain/post.js';
import { copyDate, type MemoryDatabase } from './state.js';

function copyMedia(m: Media): Media {
  return { ...m, createdAt: copyDate(m.createdAt), files: m.files.map((f) => ({ ...f })) };
}

/** Newest first: `createdAt` descending, ties by id descending (byte order). */
function newestFirst(a: { at: number; id: string }, b: { at: number; id: string }): number {
  return b.at - a.at || compareUtf8(b.id, a.id);
}

/** The media holding either hash: the one with the same `sourceSha256` first (the port's rule). */
function identical(all: Iterable<Media>, hashes: { sha256: string; sourceSha256: string }): Media | undefined {
  let bySha: Media | undefined;
  for (const m of all) {
    if (m.sourceSha256 === hashes.sourceSha256) return m;
    if (m.sha256 === hashes.sha256) bySha ??= m;
  }
  return bySha;
}

/** Each call is one synchronous step under the store's lock, so a create is atomic. */
export class MemoryMediaRepository implements MediaRepository {
  readonly #db: MemoryDatabase;

  constructor(db: MemoryDatabase) {
    this.#db = db;
  }

  #exec<T>(fn: (library: Map<string, Media>, posts: Map<string, Post>) => T): Promise<T> {
    return this.#db.autoCommit.exec((data) => fn(this.#db.library.media, data.posts));
  }

  create(media: NewMedia): Promise<{ media: Media; created: boolean }> {
    return this.#exec((library) => {
      const existing = identical(library.values(), media);
      if (existing !== undefined) return { media: copyMedia(existing), created: false };
      if (library.has(media.id)) throw new DuplicateIdError(media.id);
      library.set(media.id, copyMedia(media));
      return { media: copyMedia(media), created: true };
    });
  }

  findByHash(sha256: string): Promise<Media | null> {
    return this.#exec((library) => {
      const found = identical(library.values(), { sha256, sourceSha256: sha256 });
      return found === undefined ? null : copyMedia(found);
    });
  }

  get(id: string): Promise<Media | null> {
    return this.#exec((library) => {
      const found = library.get(id);
      return found === undefined ? null : copyMedia(found);
    });
  }

  getMany(ids: readonly string[]): Promise<Media[]> {
    return this.#exec((library) =>
      checkedIds(ids).flatMap((id) => {
        const found = library.get(id);
        return found === undefined ? [] : [copyMedia(found)];
      }),
    );
  }

  list(query: { limit: number; cursor?: string | null }): Promise<{ items: Media[]; nextCursor: string | null }> {
    return this.#exec((library) => {
      checkedPageLimit(query.limit);
      const scope = mediaCursorScope();
      let after: { at: number; id: string } | null = null;
      if (hasCursor(query.cursor)) {
        const [iso, id] = decodeCursor(query.cursor, scope, MEDIA_POSITION) as [string, string];
        after = { at: Date.parse(iso), id };
      }
      const rest = [...library.values()]
        .map((media) => ({ media, at: media.createdAt.getTime(), id: media.id }))
        .sort(newestFirst)
        .filter((k) => after === null || newestFirst(k, after) > 0);
      const page = pageOf(rest, query.limit, (last) => encodeCursor(scope, [last.media.createdAt.toISOString(), last.id]));
      return { items: page.items.map((k) => copyMedia(k.media)), nextCursor: page.nextCursor };
    });
  }

  update(id: string, changes: MediaChanges): Promise<Media | null> {
    return this.#exec((library) => {
      const found = library.get(id);
      if (found === undefined) return null;
      const updated: Media = {
        ...copyMedia(found),
        ...(changes.alt !== undefined ? { alt: changes.alt } : {}),
        ...(changes.caption !== undefined ? { caption: changes.caption } : {}),
      };
      library.set(id, updated);
      return copyMedia(updated);
    });
  }

  delete(id: string): Promise<boolean> {
    return this.#exec((library) => library.delete(id));
  }

  uses(id: string, limit: number): Promise<MediaUse[]> {
    return this.#exec((_library, posts) => {
      const most = checkedBatchLimit(limit);
      const path = `/media/${id}/`;
      return [...posts.values()]
        .filter((post) => post.coverImage?.mediaId === id || post.body.includes(path))
        .sort((a, b) => compareUtf8(a.id, b.id))
        .slice(0, most)
        .map((post) => ({ postId: post.id, title: post.title, slug: post.slug }));
    });
  }
}
