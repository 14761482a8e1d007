/** Seeding: through the API (the main benchmark) or by SQL (the scale test), and a deep cursor. */
import type postgres from 'postgres';
import { createPost, listPosts } from './client.js';
import { postInput, sentences, TAGS, TOPIC_MULTIPLIERS, TOPIC_STRIDE, TOPIC_WINDOW, topicWords } from './text.js';

/** Creates `count` posts through the API with `concurrency` requests in flight; returns their ids. */
export async function seedThroughApi(baseUrl: string, token: string, count: number, concurrency = 16): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      ids[n] = await createPost(baseUrl, token, postInput(n + 1));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}

export interface DeepPosition {
  /** The API's cursor after about half of the posts (by -updatedAt). */
  apiCursor: string;
  /** The same position in the floor's cursor format. */
  floorCursor: string;
  depth: number;
}

/** Walks the API's list with limit=100 to about the middle and keeps the cursor found there. */
export async function findDeepPosition(baseUrl: string, token: string, total: number): Promise<DeepPosition> {
  const pages = Math.max(1, Math.floor(total / 2 / 100));
  let cursor: string | null = null;
  let last: { id: string; updatedAt: string } | undefined;
  for (let i = 0; i < pages; i += 1) {
    const page = await listPosts(baseUrl, token, `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
    last = page.items[page.items.length - 1];
  }
  if (cursor === null || last === undefined) throw new Error('too few posts for a deep cursor');
  return {
    apiCursor: cursor,
    floorCursor: Buffer.from(JSON.stringify([last.updatedAt, last.id])).toString('base64url'),
    depth: pages * 100,
  };
}

/**
 * The scale posts as one statement with $n parameters (sentences, tags, first and last number,
 * topic words), so that postgres.js (`seedBySql`) and PGlite (bench/admin-tti.ts) seed the same
 * rows. `searchText`: the schema before full-text search (#32) has a `search_text` column to fill;
 * after it, `search` is the application's tsvector, left NULL here and filled by the migration
 * runner's backfill (`fillSearch`).
 */
export function seedPostsSql(searchText: boolean): string {
  const topic = (m: number) => `v[1 + i / ${TOPIC_STRIDE} + (i * ${m}) % ${TOPIC_WINDOW}]`;
  const [t1, t2, t3, t4] = TOPIC_MULTIPLIERS.map(topic);
  return `
  with words as (select $1::text[] as s, $2::text[] as t, $5::text[] as v)
  insert into posts (id, title, slug, excerpt, body, ${searchText ? 'search_text, ' : ''}tags, status, version,
                     word_count, created_at, updated_at, published_at)
  select id, title, slug, excerpt, body, ${searchText ? "lower(title || E'\\n' || excerpt || E'\\n' || body), " : ''}
         tags, status, 1, array_length(regexp_split_to_array(body, '\\s+'), 1),
         created_at, updated_at, case when status = 'published' then created_at + interval '1 hour' end
  from (
    select '01J' || lpad(upper(to_hex(i)), 23, '0') as id,
           'Scale post ' || i || ': ' || rtrim(s[1 + i % 300], '.') || ' (' || ${t1} || ')' as title,
           'scale-post-' || i as slug,
           s[1 + (i * 7) % 300] as excerpt,
           '# Scale post ' || i || E'\\n\\n'
             || (select string_agg(s[1 + (i * 31 + k * 17) % 300], ' ') from generate_series(1, 6) k)
             || ' On ' || ${t2} || '.'
             || E'\\n\\n## Details\\n\\n'
             || (select string_agg(s[1 + (i * 13 + k * 41) % 300], ' ') from generate_series(1, 6) k)
             || ' See ' || ${t3} || ' and ' || ${t4} || '.' as body,
           case when i % 4 = 0 then array[t[1 + i % 10]]
                else array[t[1 + i % 10], t[1 + (i % 10 + 1 + (i / 10) % 9) % 10]] end as tags,
           case when (i::bigint * 2654435761) % 10 < 6 then 'published' else 'draft' end as status,
           timestamptz '2023-01-01 00:00:00+00' + i * interval '1 minute' as created_at,
           timestamptz '2023-01-01 00:00:00+00' + i * interval '1 minute'
             + ((i * 7919) % 59000) * interval '1 millisecond' as updated_at
    from words, generate_series($3::int, $4::int) i
  ) p`;
}

/** The parameters of `seedPostsSql` for posts number from + 1 to `to`. */
export function seedPostsParams(from: number, to: number): [string[], string[], number, number, string[]] {
  return [sentences(300), [...TAGS], from + 1, to, topicWords()];
}

/** Whether `posts` still has the `search_text` column (the schema before full-text search). */
export async function hasSearchText(sql: postgres.Sql): Promise<boolean> {
  const rows = await sql`select 1 from information_schema.columns
    where table_schema = current_schema() and table_name = 'posts' and column_name = 'search_text'`;
  return rows.length > 0;
}

/**
 * Inserts posts number `from + 1` to `to` with one INSERT … SELECT generate_series: bodies of
 * about 1 KB assembled from a few hundred sentences plus four topic words (text.ts), 1–2 tags,
 * 60% published, distinct timestamps, ULID-shaped ids. Posts rows only (no revisions or
 * activity): the scale test reads. `fillSearch` then runs (the migration runner, which writes
 * the search vector of rows without one, with the application's tokenizer). Both tables are
 * vacuumed and analysed afterwards, as autovacuum keeps a live site's.
 */
export async function seedBySql(sql: postgres.Sql, from: number, to: number, fillSearch: () => Promise<void>): Promise<void> {
  await sql.unsafe(seedPostsSql(await hasSearchText(sql)), seedPostsParams(from, to));
  await fillSearch();
  // post_tags is filled by the posts trigger: without its statistics and visibility map (what
  // autovacuum gives a live site), a tag's count reads every entry of the tag instead of an
  // index-only scan stopping at the cap (measured in NOTES.md).
  await sql.unsafe('VACUUM (ANALYZE) posts, post_tags');
}
