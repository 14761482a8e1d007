import { checkedPageLimit, compareUtf8, hasCursor, pageOf, postPosition } from '../../domain/index.js';
import {
  matchClass,
  matchesDocument,
  parseSearchQuery,
  searchDocument,
  type SearchDocument,
  type SearchQuery,
} from '../../domain/search.js';
import { decodeCursor, decodeRelevanceCursor, encodeCursor, postCursorScope, postPositionShape } from '../../domain/cursor.js';
import { DuplicateIdError, NotFoundError, SlugTakenError, VersionConflictError } from '../../domain/errors.js';
import { checkedIds, countedTotal, countLimitOf } from '../../domain/paging.js';
import { NO_SEO, type CoverImage, type PostSeo } from '../../domain/media.js';
import { isVisibleToReaders, POST_STATUSES, type Post, type PostStatus, type PostSummary } from '../../domain/post.js';
import { continuesBurst, revisionOf, type Revision } from '../../domain/ports/revision-repository.js';
import type {
  ChangeRecord,
  CreationRecord,
  NewPost,
  PostChanges,
  PostCounts,
  PostFilter,
  PostPage,
  PostQuery,
  PostRepository,
  PostSortKey,
  TagCount,
  UpdateRecord,
} from '../../domain/ports/post-repository.js';
import type { ActivityType } from '../../domain/post.js';
import { copyDate, copyNullableDate, type MemoryData, type Session } from './state.js';

function copyPost(p: Post): Post {
  return {
    id: p.id,
    title: p.title,
    slug: p.slug,
    excerpt: p.excerpt,
    body: p.body,
    tags: [...p.tags],
    status: p.status,
    version: p.version,
    wordCount: p.wordCount,
    createdAt: copyDate(p.createdAt),
    updatedAt: copyDate(p.updatedAt),
    publishedAt: copyNullableDate(p.publishedAt),
    publishAt: copyNullableDate(p.publishAt),
    coverImage: copyCover(p.coverImage),
    seo: copySeo(p.seo),
  };
}

function copyCover(cover: CoverImage | null): CoverImage | null {
  return cover === null ? null : { mediaId: cover.mediaId, alt: cover.alt };
}

function copySeo(seo: PostSeo): PostSeo {
  return { title: seo.title, description: seo.description, canonicalUrl: seo.canonicalUrl };
}

function summarize(p: Post): PostSummary {
  const { body: _body, ...summary } = copyPost(p);
  return summary;
}

function slugHolder(data: MemoryData, slug: string): Post | undefined {
  for (const post of data.posts.values()) {
    if (post.slug === slug) return post;
  }
  return undefined;
}

/** The keyset of a post under a sort key: instants as epoch ms, titles as strings. */
interface SortKey {
  value: number | string | null;
  id: string;
}

function sortKeyOf(post: Post, key: Exclude<PostSortKey, 'relevance'>): SortKey {
  switch (key) {
    case 'title':
      return { value: post.title, id: post.id };
    case 'createdAt':
      return { value: post.createdAt.getTime(), id: post.id };
    case 'updatedAt':
      return { value: post.updatedAt.getTime(), id: post.id };
    case 'publishedAt':
      return { value: post.publishedAt?.getTime() ?? null, id: post.id };
    case 'publishAt':
      return { value: post.publishAt?.getTime() ?? null, id: post.id };
  }
}

function sortKeyFromPosition(position: unknown[], key: PostSortKey): SortKey {
  const [value, id] = position as [string | number | null, string];
  if (key === 'title' || key === 'relevance' || value === null || typeof value === 'number') return { value, id };
  return { value: Date.parse(value), id };
}

/** Sort key order, ties by id, both in `direction`; a null value comes last either way. */
function compareSortKeys(a: SortKey, b: SortKey, direction: 'asc' | 'desc'): number {
  const sign = direction === 'asc' ? 1 : -1;
  if (a.value === null || b.value === null) {
    if (a.value !== null) return -1;
    if (b.value !== null) return 1;
  } else {
    const c =
      typeof a.value === 'number' && typeof b.value === 'number' ? a.value - b.value : compareUtf8(String(a.value), String(b.value));
    if (c !== 0) return sign * c;
  }
  return sign * compareUtf8(a.id, b.id);
}

/** The search query of a list (`parseSearchQuery`), or null without `q`. */
function searchOf(query: Pick<PostQuery, 'q'>): SearchQuery | null {
  return query.q !== undefined && query.q !== '' ? parseSearchQuery(query.q) : null;
}

/** The documents of the posts one list searches, each made once (`searchDocument`). */
function documents(): (post: Post) => SearchDocument {
  const made = new Map<Post, SearchDocument>();
  return (post) => {
    let doc = made.get(post);
    if (doc === undefined) made.set(post, (doc = searchDocument(post)));
    return doc;
  };
}

function matcher(query: PostQuery, search: SearchQuery | null, documentOf: (post: Post) => SearchDocument): (post: Post) => boolean {
  const statuses = query.status !== undefined && query.status.length > 0 ? query.status : null;
  const visibleAt = query.visibleAt;
  return (post) =>
    (statuses === null || statuses.includes(post.status)) &&
    (query.scheduled === undefined || query.scheduled === (post.publishAt !== null)) &&
    (visibleAt === undefined || isVisibleToReaders(post, visibleAt)) &&
    (query.tag === undefined || post.tags.includes(query.tag)) &&
    (search === null || matchesDocument(documentOf(post), search));
}

/**
 * How a relevance list goes on: in the order its cursor carries, or from the start ranked unless
 * more posts match than it counts (`tooMany`), then newest published first; with the position to
 * resume after.
 */
function relevanceOrder(query: PostQuery, tooMany: boolean): { order: 'rank' | 'newest'; after?: SortKey } {
  if (!hasCursor(query.cursor)) return { order: tooMany ? 'newest' : 'rank' };
  const position = decodeRelevanceCursor(query.cursor, query);
  const { value, id } = position;
  return { order: position.order, after: { value: typeof value === 'string' ? Date.parse(value) : value, id } };
}

const SUFFIX = /^[0-9]+$/;

/** A duplicate id, then a taken slug, throws as the port says. */
function checkInsertable(data: MemoryData, post: NewPost): void {
  if (data.posts.has(post.id)) throw new DuplicateIdError(post.id);
  if (slugHolder(data, post.slug) !== undefined) throw new SlugTakenError(post.slug);
}

/** Stores `post` at version 1 (the checks of `create` first) and returns the stored object. */
function insert(data: MemoryData, post: NewPost): Post {
  checkInsertable(data, post);
  const stored = copyPost({
    ...post,
    version: 1,
    updatedAt: post.updatedAt ?? post.createdAt,
    coverImage: post.coverImage ?? null,
    seo: post.seo ?? NO_SEO,
  });
  data.posts.set(stored.id, stored);
  return stored;
}

/** The post as it stands at `expectedVersion`, as the guarded writes check it. */
function guarded(data: MemoryData, id: string, expectedVersion: number): Post {
  const current = data.posts.get(id);
  if (current === undefined) throw new NotFoundError('post', id);
  if (current.version !== expectedVersion) throw new VersionConflictError(expectedVersion, current.version);
  return current;
}

/** The post `update` would store (the checks of `update` first); nothing is stored yet. */
function updated(data: MemoryData, id: string, expectedVersion: number, changes: PostChanges, at: Date): Post {
  const current = guarded(data, id, expectedVersion);
  if (changes.slug !== undefined) {
    const holder = slugHolder(data, changes.slug);
    if (holder !== undefined && holder.id !== id) throw new SlugTakenError(changes.slug);
  }
  return copyPost({
    ...current,
    title: changes.title ?? current.title,
    slug: changes.slug ?? current.slug,
    excerpt: changes.excerpt ?? current.excerpt,
    body: changes.body ?? current.body,
    tags: changes.tags ?? current.tags,
    status: changes.status ?? current.status,
    wordCount: changes.wordCount ?? current.wordCount,
    publishedAt: changes.publishedAt !== undefined ? changes.publishedAt : current.publishedAt,
    publishAt: changes.publishAt !== undefined ? changes.publishAt : current.publishAt,
    coverImage: changes.coverImage !== undefined ? changes.coverImage : current.coverImage,
    seo: changes.seo ?? current.seo,
    version: current.version + 1,
    updatedAt: at,
  });
}

/** A recorded write's event id already in the log throws, before anything is written. */
function checkEventId(data: MemoryData, record: ChangeRecord): void {
  if (data.activity.has(record.eventId)) throw new DuplicateIdError(record.eventId);
}

/** Appends the event of a recorded write about `post` (as the write leaves it, or as it was). */
function appendEvent(data: MemoryData, record: ChangeRecord, type: ActivityType, post: Post): void {
  data.activity.set(record.eventId, {
    id: record.eventId,
    type,
    postId: post.id,
    postTitle: post.title,
    postVersion: post.version,
    actor: { id: record.actor.id, name: record.actor.name },
    occurredAt: copyDate(record.occurredAt),
  });
}

export class MemoryPostRepository implements PostRepository {
  readonly #session: Session;

  constructor(session: Session) {
    this.#session = session;
  }

  create(post: NewPost): Promise<Post> {
    return this.#session.exec((data) => copyPost(insert(data, post)));
  }

  createRecorded(post: NewPost, record: CreationRecord): Promise<Post> {
    return this.#session.exec((data) => {
      // Every check before the first write: the session's call is atomic, so throwing stores nothing.
      checkInsertable(data, post);
      checkEventId(data, record);
      const history = data.revisions.get(post.id) ?? new Map<number, Revision>();
      if (history.has(1)) throw new VersionConflictError(1, Math.max(...history.keys()));
      const stored = insert(data, post);
      history.set(1, { ...revisionOf(stored, record.actor), createdAt: copyDate(record.occurredAt) });
      data.revisions.set(post.id, history);
      appendEvent(data, record, 'created', stored);
      return copyPost(stored);
    });
  }

  get(id: string): Promise<Post | null> {
    return this.#session.exec((data) => {
      const post = data.posts.get(id);
      return post === undefined ? null : copyPost(post);
    });
  }

  getMany(ids: readonly string[]): Promise<Post[]> {
    return this.#session.exec((data) =>
      checkedIds(ids).flatMap((id) => {
        const post = data.posts.get(id);
        return post === undefined ? [] : [copyPost(post)];
      }),
    );
  }

  getBySlug(slug: string): Promise<Post | null> {
    return this.#session.exec((data) => {
      const post = slugHolder(data, slug);
      return post === undefined ? null : copyPost(post);
    });
  }

  async listWithLastChange(query: PostQuery): Promise<PostPage & { lastChange: Date | null }> {
    const page = await this.list(query);
    const lastChange = await this.#session.exec((data) => {
      let newest: Date | null = null;
      for (const event of data.activity.values()) if (newest === null || event.occurredAt > newest) newest = event.occurredAt;
      return newest === null ? null : new Date(newest.getTime());
    });
    return { ...page, lastChange };
  }

  list(query: PostQuery): Promise<PostPage> {
    return this.#session.exec((data) => {
      checkedPageLimit(query.limit);
      const countLimit = countLimitOf(query);
      const search = searchOf(query);
      const documentOf = documents();
      const found = [...data.posts.values()].filter(matcher(query, search, documentOf));
      const relevance = query.sort.key === 'relevance' ? relevanceOrder(query, found.length > countLimit) : null;
      // Relevance is best first; past the count limit it lists newest published first (the port's rules).
      const key = relevance?.order === 'newest' ? 'publishedAt' : query.sort.key;
      const direction = key === 'relevance' || relevance !== null ? 'desc' : query.sort.direction;
      const scope = postCursorScope(query, relevance?.order === 'newest' ? 'newest' : undefined);
      const after =
        relevance !== null
          ? (relevance.after ?? null)
          : hasCursor(query.cursor)
            ? sortKeyFromPosition(decodeCursor(query.cursor, scope, postPositionShape(key)), key)
            : null;
      // The rank is the class alone (`matchClass`): equal ranks fall back to the id.
      const keyOf = (post: Post): SortKey =>
        key !== 'relevance' ? sortKeyOf(post, key) : { value: search === null ? 0 : matchClass(documentOf(post), search), id: post.id };
      const matches = found.map((post) => ({ post, key: keyOf(post) })).sort((a, b) => compareSortKeys(a.key, b.key, direction));
      const rest = after === null ? matches : matches.filter((m) => compareSortKeys(m.key, after, direction) > 0);
      const page = pageOf(rest, query.limit, (last) =>
        encodeCursor(scope, key === 'relevance' ? [last.key.value, last.post.id] : postPosition(last.post, key)),
      );
      return { items: page.items.map((m) => summarize(m.post)), nextCursor: page.nextCursor, ...countedTotal(matches.length, query) };
    });
  }

  walk(filter: PostFilter, afterId: string | null, limit: number): Promise<Post[]> {
    return this.#session.exec((data) => {
      checkedPageLimit(limit);
      const matches = matcher({ ...filter, sort: { key: 'createdAt', direction: 'asc' }, limit }, null, searchDocument);
      return [...data.posts.values()]
        .filter((post) => (afterId === null || compareUtf8(post.id, afterId) > 0) && matches(post))
        .sort((a, b) => compareUtf8(a.id, b.id))
        .slice(0, limit)
        .map(copyPost);
    });
  }

  update(id: string, expectedVersion: number, changes: PostChanges, at: Date): Promise<Post> {
    return this.#session.exec((data) => {
      const next = updated(data, id, expectedVersion, changes, at);
      data.posts.set(id, next);
      return copyPost(next);
    });
  }

  updateRecorded(before: Post, changes: PostChanges, record: UpdateRecord): Promise<Post> {
    return this.#session.exec((data) => {
      // Every check before the first write: the session's call is atomic, so throwing stores nothing.
      const next = updated(data, before.id, before.version, changes, record.occurredAt);
      const history = data.revisions.get(next.id) ?? new Map<number, Revision>();
      if (history.has(next.version)) throw new VersionConflictError(next.version, Math.max(...history.keys()));
      const burst = record.autosave === true ? history.get(before.version) : undefined;
      // A continued burst appends no event, so its event id is not checked.
      const continued = burst !== undefined && continuesBurst(burst, record.actor, record.occurredAt);
      if (!continued) checkEventId(data, record);
      data.posts.set(next.id, next);
      if (continued) {
        history.delete(before.version);
        history.set(next.version, revisionOf(next, record.actor, burst.autosaveSince));
      } else {
        history.set(next.version, revisionOf(next, record.actor, record.autosave === true ? record.occurredAt : null));
        appendEvent(data, record, record.type, next);
      }
      data.revisions.set(next.id, history);
      return copyPost(next);
    });
  }

  delete(id: string, expectedVersion: number): Promise<Post> {
    return this.#session.exec((data) => {
      const current = guarded(data, id, expectedVersion);
      data.posts.delete(id);
      return copyPost(current);
    });
  }

  deleteRecorded(id: string, expectedVersion: number, record: ChangeRecord): Promise<Post> {
    return this.#session.exec((data) => {
      const current = guarded(data, id, expectedVersion);
      checkEventId(data, record);
      data.posts.delete(id);
      data.revisions.delete(id);
      appendEvent(data, record, 'deleted', current);
      return copyPost(current);
    });
  }

  slugsLike(base: string): Promise<string[]> {
    return this.#session.exec((data) =>
      [...data.posts.values()]
        .map((post) => post.slug)
        .filter((slug) => slug === base || (slug.startsWith(`${base}-`) && SUFFIX.test(slug.slice(base.length + 1))))
        .sort(compareUtf8),
    );
  }

  tagCounts(visibleAt?: Date): Promise<TagCount[]> {
    return this.#session.exec((data) => {
      const counts = new Map<string, number>();
      for (const post of data.posts.values()) {
        if (visibleAt !== undefined && !isVisibleToReaders(post, visibleAt)) continue;
        for (const tag of new Set(post.tags)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
      }
      return [...counts].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || compareUtf8(a.name, b.name));
    });
  }

  publishDue(now: Date, limit: number): Promise<Post[]> {
    return this.#session.exec((data) => {
      const due = [...data.posts.values()]
        .filter((post) => post.status === 'draft' && post.publishAt !== null && post.publishAt.getTime() <= now.getTime())
        .sort((a, b) => a.publishAt!.getTime() - b.publishAt!.getTime() || compareUtf8(a.id, b.id))
        .slice(0, limit);
      return due.map((current) => {
        const next = copyPost({
          ...current,
          status: 'published',
          publishedAt: current.publishedAt ?? current.publishAt,
          publishAt: null,
          version: current.version + 1,
          updatedAt: now,
        });
        data.posts.set(next.id, next);
        return copyPost(next);
      });
    });
  }

  countByStatus(): Promise<PostCounts> {
    return this.#session.exec((data) => {
      const counts: PostCounts = { ...(Object.fromEntries(POST_STATUSES.map((s) => [s, 0])) as Record<PostStatus, number>), scheduled: 0 };
      for (const post of data.posts.values()) {
        counts[post.status] += 1;
        if (post.publishAt !== null) counts.scheduled += 1;
      }
      return counts;
    });
  }

  wordsPublished(): Promise<number> {
    return this.#session.exec((data) => {
      let sum = 0;
      for (const post of data.posts.values()) {
        if (post.status === 'published') sum += post.wordCount;
      }
      return sum;
    });
  }
}
