/**
 * The floor: the least a server could do for the benchmarked routes, to measure the API against.
 *
 * Hono + @hono/node-server + postgres.js, no ORM, no validation, no auth, no logging. Each route
 * is one statement (the list is two: the page and its count up to 1,001 rows, as in the API). Plain JavaScript so
 * that it runs under `node` like the built API (`dist/main.js`), without a TypeScript loader.
 *
 * Media files (#31) are Hono's `serveStatic` of the same bytes from disk: `BENCH_MEDIA_DIR/<id>/<name>`
 * at the Content API's path.
 *
 * Environment: DATABASE_URL (required), PORT (8080), HOST (127.0.0.1), DB_POOL_SIZE (10),
 * BENCH_MEDIA_DIR (no media route without it).
 */
import { randomBytes } from 'node:crypto';
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import postgres from 'postgres';
import { ulid } from 'ulid';

const sql = postgres(process.env.DATABASE_URL, {
  max: Number(process.env.DB_POOL_SIZE || 10),
  onnotice: () => undefined,
});

/**
 * What the schema asks of a create's search column: before full-text search (#32) a lowercased
 * `search_text`; after it a tsvector `search`, which the API computes in JavaScript (title, then
 * excerpt and tags, then body, by weight) and the floor here in SQL with the `simple` configuration,
 * so that both maintain the same GIN index.
 */
const [columns] = await sql`select
  exists (select 1 from information_schema.columns where table_name = 'posts' and column_name = 'search_text') as "searchText",
  exists (select 1 from information_schema.columns where table_name = 'posts' and column_name = 'search') as "search",
  exists (select 1 from information_schema.columns where table_name = 'revisions' and column_name = 'body' and is_nullable = 'YES') as "revisionBodyByDifference"`;

/**
 * A create's revision body, as the API stores it: from migration 0017 none (the newest revision's
 * body is the post's), before it a copy of the post's.
 */
const revisionBody = columns.revisionBodyByDifference ? sql`null` : sql`body`;

function searchColumn(title, excerpt, body, tags) {
  if (columns.searchText) return { name: sql`search_text,`, value: sql`${`${title}\n${excerpt}\n${body}`.toLowerCase()},` };
  if (!columns.search) return { name: sql``, value: sql`` };
  const value = sql`setweight(to_tsvector('simple', ${title}), 'A')
    || setweight(to_tsvector('simple', ${`${excerpt} ${tags.join(' ')}`}), 'B')
    || setweight(to_tsvector('simple', ${body}), 'C'),`;
  return { name: sql`search,`, value };
}

const SUMMARY = sql`id, title, slug, excerpt, tags, status, version, word_count as "wordCount",
  created_at as "createdAt", updated_at as "updatedAt", published_at as "publishedAt"`;
const ACTOR = { id: 'bench-floor', name: 'Bench Floor' };

/** base64url of `[updatedAtIso, id]`: the keyset of the last item of a page (as in seed.ts). */
const encodeFloorCursor = (updatedAt, id) => Buffer.from(JSON.stringify([updatedAt, id])).toString('base64url');
const decodeFloorCursor = (cursor) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));

function slugOf(title) {
  const base = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
  return `${base || 'post'}-${randomBytes(4).toString('hex')}`;
}

const countWords = (text) => text.split(/\s+/).filter((w) => w !== '').length;

const app = new Hono();

app.get('/api/v1/healthz', (c) => c.json({ status: 'ok' }));

app.get('/api/v1/posts/:id', async (c) => {
  const [post] = await sql`select ${SUMMARY}, body from posts where id = ${c.req.param('id')}`;
  return post ? c.json(post) : c.json({ title: 'Not found' }, 404);
});

app.get('/api/v1/posts', async (c) => {
  const limit = Number(c.req.query('limit') || 20);
  const cursor = c.req.query('cursor');
  const after = cursor ? decodeFloorCursor(cursor) : null;
  const rows = after
    ? await sql`select ${SUMMARY} from posts
        where (updated_at, id) < (${after[0]}::timestamptz, ${after[1]})
        order by updated_at desc, id desc limit ${limit + 1}`
    : await sql`select ${SUMMARY} from posts order by updated_at desc, id desc limit ${limit + 1}`;
  // Counted up to 1,001 rows, as the API's contract counts (`total` up to 1,000, `totalExact`).
  const [{ counted }] = await sql`select count(*)::int as counted from (select 1 from posts limit 1001) matches`;
  const total = Math.min(counted, 1000);
  const totalExact = counted <= 1000;
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor = rows.length > limit && last ? encodeFloorCursor(last.updatedAt.toISOString(), last.id) : null;
  return c.json({ items, nextCursor, total, totalExact });
});

app.post('/api/v1/posts', async (c) => {
  const input = await c.req.json();
  const title = input.title;
  const excerpt = input.excerpt ?? '';
  const body = input.body ?? '';
  const tags = input.tags ?? [];
  const status = input.status ?? 'draft';
  const now = new Date();
  const search = searchColumn(title, excerpt, body, tags);
  const [post] = await sql`
    with p as (
      insert into posts (id, title, slug, excerpt, body, ${search.name} tags, status, version,
                         word_count, created_at, updated_at, published_at)
      values (${ulid()}, ${title}, ${slugOf(title)}, ${excerpt}, ${body},
              ${search.value} ${tags}::text[], ${status}, 1,
              ${countWords(body)}, ${now}, ${now}, ${status === 'published' ? now : null})
      returning *
    ), r as (
      insert into revisions (post_id, version, title, slug, excerpt, body, tags, status,
                             word_count, created_at, actor_id, actor_name)
      select id, version, title, slug, excerpt, ${revisionBody}, tags, status, word_count, created_at,
             ${ACTOR.id}, ${ACTOR.name}
      from p
    ), a as (
      insert into activity_events (id, type, post_id, post_title, post_version, actor_id,
                                   actor_name, occurred_at)
      select ${ulid()}, 'created', id, title, version, ${ACTOR.id}, ${ACTOR.name}, created_at from p
    )
    select ${SUMMARY}, body from p`;
  return c.json(post, 201);
});

// The Content API's shapes: a published post by slug; the newest published page and its count.
const VISIBLE = sql`status = 'published' and published_at <= now()`;
const CONTENT_SUMMARY = sql`id, title, slug, excerpt, tags, word_count as "wordCount",
  published_at as "publishedAt", updated_at as "updatedAt"`;

app.get('/api/v1/content/posts/slug/:slug', async (c) => {
  const [post] = await sql`select ${CONTENT_SUMMARY}, body from posts where slug = ${c.req.param('slug')} and ${VISIBLE}`;
  return post ? c.json(post) : c.json({ title: 'Not found' }, 404);
});

app.get('/api/v1/content/posts', async (c) => {
  const limit = Number(c.req.query('limit') || 20);
  const rows = await sql`select ${CONTENT_SUMMARY} from posts where ${VISIBLE}
    order by published_at desc nulls last, id desc nulls last limit ${limit + 1}`;
  const [{ counted }] = await sql`select count(*)::int as counted from (select 1 from posts where ${VISIBLE} limit 1001) matches`;
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor = rows.length > limit && last ? encodeFloorCursor(last.publishedAt.toISOString(), last.id) : null;
  return c.json({ items, nextCursor, total: Math.min(counted, 1000), totalExact: counted <= 1000 });
});

const MEDIA_ROOT = '/api/v1/content/media';
if (process.env.BENCH_MEDIA_DIR) {
  const root = process.env.BENCH_MEDIA_DIR;
  app.use(`${MEDIA_ROOT}/*`, serveStatic({ root, rewriteRequestPath: (path) => path.slice(MEDIA_ROOT.length) }));
}

serve({
  fetch: app.fetch,
  hostname: process.env.HOST || '127.0.0.1',
  port: Number(process.env.PORT || 8080),
});

// Nothing to drain: the benchmark stops the floor between cells.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(0));
