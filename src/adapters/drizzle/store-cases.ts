/**
 * Cases particular to the Drizzle adapter (SQL-side decisions the contract suite cannot see),
 * run by both `store.pglite.test.ts` and `store.postgres.test.ts`. What the contract suites in
 * `../contract` already assert is not repeated here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NotFoundError, UnavailableError } from '../../domain/errors.js';
import type { NewPost, PostChanges } from '../../domain/ports/post-repository.js';
import { revisionOf } from '../../domain/ports/revision-repository.js';
import type { UpdateActivityType } from '../../domain/post.js';
import type { Store } from '../../domain/ports/store.js';
import type { MakeStore } from '../contract/index.js';

const T0 = Date.parse('2025-03-01T10:00:00.123Z');
const at = (ms: number) => new Date(T0 + ms);

function newPost(n: number, over: Partial<NewPost> = {}): NewPost {
  return {
    id: `P${String(n).padStart(4, '0')}`,
    title: `Post ${n}`,
    slug: `post-${n}`,
    excerpt: '',
    body: `body ${n}`,
    tags: [],
    status: 'draft',
    wordCount: 2,
    createdAt: at(n * 1000),
    publishedAt: null,
    publishAt: null,
    ...over,
  };
}

/** Runs one SQL statement on the store's database and gives its rows. */
export type RawQuery = (text: string) => Promise<Record<string, unknown>[]>;

/**
 * @param backfill `backfillSearch` on the store's database, with a batch size
 */
export function describeDrizzleStoreCases(
  name: string,
  make: MakeStore,
  query: RawQuery,
  backfill: (batch: number) => Promise<number>,
): void {
  describe(`${name}: Drizzle adapter specifics`, () => {
    let store: Store;
    const open = async () => (store = await make());
    afterEach(async () => {
      await store?.close();
    });

    // The contract updates a missing post with a content field, which this adapter decides by a
    // read before the write; with no content field NotFound is decided after the guarded UPDATE.
    it('update without content fields: NotFound decided after the guarded write', async () => {
      await open();
      await store.posts.create(newPost(1));
      await expect(store.posts.update('missing', 1, {}, at(1))).rejects.toBeInstanceOf(NotFoundError);
    });

    it('keeps the search text in step when only some content fields change', async () => {
      await open();
      await store.posts.create(newPost(1, { title: 'Alpha', excerpt: 'Bravo', body: 'Charlie' }));
      await store.posts.update('P0001', 1, { title: 'Delta' }, at(1));
      const q = (text: string) => store.posts.list({ q: text, sort: { key: 'updatedAt', direction: 'desc' }, limit: 10 });
      expect((await q('alpha')).total).toBe(0);
      expect((await q('DELTA')).total).toBe(1);
      expect((await q('bravo')).total).toBe(1);
      await store.posts.update('P0001', 2, { body: 'Écho' }, at(2));
      expect((await q('charlie')).total).toBe(0);
      expect((await q('ÉCHO')).total).toBe(1);
      expect((await q('delta')).total).toBe(1);
      await store.posts.update('P0001', 3, { tags: ['foxtrot'] }, at(3));
      expect((await q('foxtrot')).total).toBe(1);
      expect((await q('delta echo foxtrot')).total).toBe(1);
    });

    // SQL cannot run the domain's tokenizer: rows from before migration 0015 get `search` after
    // migrating, from `backfillSearch`, by the same rule as a write.
    it('backfillSearch fills every post without a search column, a batch at a time, by the rule a write follows', async () => {
      await open();
      for (let n = 1; n <= 5; n += 1) {
        await store.posts.create(
          newPost(n, { title: `Été ${n}`, excerpt: 'far', tags: ['e-mail'], body: `postgres ${'x '.repeat(50)} production` }),
        );
      }
      const written = await query(`select id, search::text as search from posts order by id`);
      await query(`update posts set search = null where id <> 'P0003'`);
      const q = (text: string) => store.posts.list({ q: text, sort: { key: 'relevance', direction: 'desc' }, limit: 10 });
      expect((await q('production postgres')).total).toBe(1);
      expect(await backfill(2)).toBe(4);
      expect(await query(`select id, search::text as search from posts order by id`)).toEqual(written);
      expect((await q('production postgres')).total).toBe(5);
      expect((await q('ete "e mail"')).total).toBe(5);
      expect(await backfill(2)).toBe(0);
    });

    it('read models: tagCounts keeps tags differing in case apart; slugsLike returns slugs in byte order', async () => {
      await open();
      await store.posts.create(newPost(1, { slug: 'hello', tags: ['b', 'a'] }));
      await store.posts.create(newPost(2, { slug: 'hello-2', tags: ['b', 'B'] }));
      await store.posts.create(newPost(3, { slug: 'hello-world', tags: ['a'] }));
      await store.posts.create(newPost(4, { slug: 'hello-10', tags: ['c'] }));
      expect(await store.posts.tagCounts()).toEqual(
        [
          { name: 'a', count: 2 },
          { name: 'b', count: 2 },
          { name: 'B', count: 1 },
          { name: 'c', count: 1 },
        ].sort((x, y) => y.count - x.count || (x.name < y.name ? -1 : 1)),
      );
      expect(await store.posts.slugsLike('hello')).toEqual(['hello', 'hello-10', 'hello-2']);
    });

    it('idempotency: headers replay in their stored order; expiry at expiresAt and lease end are exact', async () => {
      await open();
      const claim = { userId: 'u1', key: 'k1', fingerprint: 'f', now: at(0), leaseMs: 30_000, expiresAt: at(86_400_000) };
      expect(await store.idempotency.claim(claim)).toEqual({ outcome: 'claimed', progress: null });
      const response = { status: 201, headers: { 'z-last': '1', 'content-type': 'application/json', a: '2' }, body: '{"é":1}' };
      await store.idempotency.complete('u1', 'k1', at(0), response);
      const replay = await store.idempotency.claim({ ...claim, now: at(1) });
      expect(replay).toEqual({ outcome: 'completed', response });
      expect(Object.keys((replay as { response: { headers: object } }).response.headers)).toEqual(['z-last', 'content-type', 'a']);
      expect(await store.idempotency.claim({ ...claim, now: at(86_400_000) })).toEqual({ outcome: 'claimed', progress: null });
      expect(await store.idempotency.claim({ ...claim, now: at(86_400_001) })).toEqual({ outcome: 'in_flight', retryAfterMs: 29_999 });
      // Past the lease, another request may not take the key over; a retry of the same one may.
      expect(await store.idempotency.claim({ ...claim, fingerprint: 'g', now: at(86_400_000 + 30_000) })).toEqual({ outcome: 'mismatch' });
      expect(await store.idempotency.claim({ ...claim, now: at(86_400_000 + 30_000) })).toEqual({ outcome: 'claimed', progress: null });
    });

    describe('a revision stores its body only once the post moves past it (migration 0017)', () => {
      const actor = { id: 'U1', name: 'Ada' };
      let event = 0;
      const record = (type: UpdateActivityType = 'updated') => ({ actor, eventId: `E${++event}`, occurredAt: at(event * 1000), type });
      const stored = async () =>
        (await query(`select version, body from revisions where post_id = 'P0001' order by version`)).map((r) => [r.version, r.body]);
      const bodyOf = async (version: number) => (await store.revisions.get('P0001', version))?.body;
      const changedOf = async () =>
        (await store.revisions.list('P0001', { limit: 100 })).items.map((r) => [r.version, r.changed.includes('body')]);
      const edit = async (changes: PostChanges, type?: UpdateActivityType) =>
        store.posts.updateRecorded((await store.posts.get('P0001'))!, changes, record(type));

      it('a create stores its revision without the body, yet version 1 reads back with it', async () => {
        await open();
        await store.posts.createRecorded(newPost(1, { body: 'first' }), record());
        expect(await stored()).toEqual([[1, null]]);
        expect(await bodyOf(1)).toBe('first');
        expect(await changedOf()).toEqual([[1, false]]);
      });

      it('a title-only edit or a publish stores no body at all', async () => {
        await open();
        await store.posts.createRecorded(newPost(1, { body: 'first' }), record());
        await edit({ title: 'Renamed' });
        await edit({ status: 'published', publishedAt: at(9000) }, 'published');
        expect(await stored()).toEqual([
          [1, null],
          [2, null],
          [3, null],
        ]);
        expect([await bodyOf(1), await bodyOf(2), await bodyOf(3)]).toEqual(['first', 'first', 'first']);
      });

      it('after a body edit the version before holds the old body; each version reads back its own, and only the edit is a body change', async () => {
        await open();
        await store.posts.createRecorded(newPost(1, { body: 'first' }), record());
        await edit({ body: 'second' });
        expect(await stored()).toEqual([
          [1, 'first'],
          [2, null],
        ]);
        expect([await bodyOf(1), await bodyOf(2)]).toEqual(['first', 'second']);
        expect(await changedOf()).toEqual([
          [2, true],
          [1, false],
        ]);
      });

      it('restoring version 1 after several edits gives back the body of version 1', async () => {
        await open();
        await store.posts.createRecorded(newPost(1, { title: 'One', body: 'first' }), record());
        await edit({ body: 'second' });
        await edit({ title: 'Two' });
        await edit({ body: 'third' });
        const v1 = (await store.revisions.get('P0001', 1))!;
        expect(v1.body).toBe('first');
        const restored = await edit({ title: v1.title, body: v1.body }, 'restored');
        expect(restored.body).toBe('first');
        expect(await Promise.all([1, 2, 3, 4, 5].map(bodyOf))).toEqual(['first', 'second', 'second', 'third', 'first']);
        expect(await changedOf()).toEqual([
          [5, true],
          [4, true],
          [3, false],
          [2, true],
          [1, false],
        ]);
      });

      it('a chain of title-only edits, then a body edit: every version reads back its body, and a page compares across its edge', async () => {
        await open();
        await store.posts.createRecorded(newPost(1, { body: 'first' }), record());
        for (let n = 2; n <= 5; n += 1) await edit({ title: `Title ${n}` });
        await edit({ body: 'second' });
        await edit({ title: 'Last' });
        expect(await stored()).toEqual([
          [1, null],
          [2, null],
          [3, null],
          [4, null],
          [5, 'first'],
          [6, null],
          [7, null],
        ]);
        expect(await Promise.all([1, 2, 3, 4, 5, 6, 7].map(bodyOf))).toEqual([
          'first',
          'first',
          'first',
          'first',
          'first',
          'second',
          'second',
        ]);
        expect(await changedOf()).toEqual([7, 6, 5, 4, 3, 2, 1].map((v) => [v, v === 6]));
        // A page ending at version 6 reads version 5 to compare with; the next page starts below it.
        const first = await store.revisions.list('P0001', { limit: 2 });
        expect(first.items.map((r) => [r.version, r.changed.includes('body')])).toEqual([
          [7, false],
          [6, true],
        ]);
        const second = await store.revisions.list('P0001', { limit: 2, cursor: first.nextCursor });
        expect(second.items.map((r) => [r.version, r.changed.includes('body')])).toEqual([
          [5, false],
          [4, false],
        ]);
      });

      it('a post deleted without its history leaves its revisions their bodies', async () => {
        await open();
        await store.posts.createRecorded(newPost(1, { body: 'first' }), record());
        await edit({ title: 'Renamed' });
        await store.posts.delete('P0001', 2);
        expect(await stored()).toEqual([
          [1, null],
          [2, 'first'],
        ]);
        expect(await Promise.all([1, 2].map(bodyOf))).toEqual(['first', 'first']);
      });

      it('an unrecorded body edit keeps the old body too, and an appended revision keeps the body it was given', async () => {
        await open();
        await store.posts.createRecorded(newPost(1, { body: 'first' }), record());
        const after = await store.posts.update('P0001', 1, { body: 'second' }, at(5000));
        // The revision a write by `actor` at the edit's time would record (createdAt = updatedAt).
        await store.revisions.append(revisionOf(after, actor));
        expect(await stored()).toEqual([
          [1, 'first'],
          [2, 'second'],
        ]);
        await edit({ body: 'third' });
        expect(await Promise.all([1, 2, 3].map(bodyOf))).toEqual(['first', 'second', 'third']);
      });
    });

    // A row of up to a page stays inline and uncompressed (migration 0008): a `q` search reads
    // every matching row's search column, and decompressing it (pglz) would cost each search.
    it('stores a post of a few KB with its body and search column uncompressed, a long one compressed', async () => {
      await open();
      const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 97} text${i % 13}`).join(' ');
      await store.posts.create(newPost(1, { body: words(200) })); // ~3 KB body: a ~6 KB row
      await store.posts.create(newPost(2, { body: words(2000) })); // ~30 KB body
      const rows = await query(
        `select id, pg_column_compression(body) as body, pg_column_compression(search) as search from posts order by id`,
      );
      expect(rows).toEqual([
        { id: 'P0001', body: null, search: null },
        { id: 'P0002', body: 'pglz', search: null },
      ]);
    });

    // The bytes travel as base64 text (see blob-store.ts): what is stored must be the bytes, not that text.
    it('stores a blob as bytea holding the bytes themselves, and the files of a media as a jsonb array', async () => {
      await open();
      await store.blobs.put('media/x/original.png', Uint8Array.from([0, 255, 10, 92, 120]), 'image/png');
      expect(await query(`select octet_length(bytes) as n, encode(bytes, 'hex') as hex from blobs`)).toEqual([{ n: 5, hex: '00ff0a5c78' }]);
      const file = { name: 'original.png', contentType: 'image/png' as const, width: 1, height: 1, bytes: 5, sha256: 'f'.repeat(64) };
      await store.media.create({ ...file, id: 'x', sourceSha256: 'e'.repeat(64), alt: '', caption: '', createdAt: at(0), files: [file] });
      expect(await query(`select jsonb_typeof(files) as kind, files->0->>'name' as name from media`)).toEqual([
        { kind: 'array', name: 'original.png' },
      ]);
    });

    it('after close, calls throw UnavailableError', async () => {
      await open();
      await store.close();
      await expect(store.ping()).rejects.toBeInstanceOf(UnavailableError);
      await expect(store.posts.get('x')).rejects.toBeInstanceOf(UnavailableError);
      await expect(store.unitOfWork.run(async () => 1)).rejects.toBeInstanceOf(UnavailableError);
    });
  });
}
