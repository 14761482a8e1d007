import { checkedPageLimit, hasCursor, pageOf } from '../../domain/index.js';
import { decodeCursor, encodeCursor, REVISION_POSITION, revisionCursorScope } from '../../domain/cursor.js';
import { VersionConflictError } from '../../domain/errors.js';
import { compareStates } from '../../domain/revision-diff.js';
import type { Revision, RevisionPage, RevisionRepository, RevisionSummary } from '../../domain/ports/revision-repository.js';
import { copyDate, type Session } from './state.js';

function copyRevision(r: Revision): Revision {
  return {
    postId: r.postId,
    version: r.version,
    title: r.title,
    slug: r.slug,
    excerpt: r.excerpt,
    body: r.body,
    tags: [...r.tags],
    status: r.status,
    wordCount: r.wordCount,
    coverImage: r.coverImage === null ? null : { mediaId: r.coverImage.mediaId, alt: r.coverImage.alt },
    seo: { title: r.seo.title, description: r.seo.description, canonicalUrl: r.seo.canonicalUrl },
    createdAt: copyDate(r.createdAt),
    actor: { id: r.actor.id, name: r.actor.name },
    autosaveSince: r.autosaveSince === null ? null : copyDate(r.autosaveSince),
  };
}

/** `r` as listed, compared with `previous` (the next lower version stored, if any). */
function summarize(r: Revision, previous: Revision | undefined): RevisionSummary {
  const { body: _body, ...summary } = copyRevision(r);
  return { ...summary, changed: previous === undefined ? [] : compareStates(previous, r).changed };
}

export class MemoryRevisionRepository implements RevisionRepository {
  readonly #session: Session;

  constructor(session: Session) {
    this.#session = session;
  }

  append(revision: Revision): Promise<void> {
    return this.#session.exec((data) => {
      let history = data.revisions.get(revision.postId);
      if (history === undefined) {
        history = new Map();
        data.revisions.set(revision.postId, history);
      }
      if (history.has(revision.version)) {
        throw new VersionConflictError(revision.version, Math.max(...history.keys()));
      }
      history.set(revision.version, copyRevision(revision));
    });
  }

  list(postId: string, page: { limit: number; cursor?: string | null }): Promise<RevisionPage> {
    return this.#session.exec((data) => {
      checkedPageLimit(page.limit);
      const scope = revisionCursorScope(postId);
      const before = hasCursor(page.cursor) ? (decodeCursor(page.cursor, scope, REVISION_POSITION)[0] as number) : null;
      const rest = [...(data.revisions.get(postId)?.values() ?? [])]
        .filter((r) => before === null || r.version < before)
        .sort((a, b) => b.version - a.version);
      const found = pageOf(rest, page.limit, (last) => encodeCursor(scope, [last.version]));
      return { items: found.items.map((r, i) => summarize(r, rest[i + 1])), nextCursor: found.nextCursor };
    });
  }

  get(postId: string, version: number): Promise<Revision | null> {
    return this.#session.exec((data) => {
      const revision = data.revisions.get(postId)?.get(version);
      return revision === undefined ? null : copyRevision(revision);
    });
  }

  deleteForPost(postId: string): Promise<void> {
    return this.#session.exec((data) => {
      data.revisions.delete(postId);
    });
  }
}
