import { asc, isNull, sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { documentVectorText, searchDocument } from '../../../domain/search.js';
import { posts } from './schema.js';

/** How many posts one backfill statement fills. */
const BACKFILL_BATCH = 200;

/**
 * Fills `posts.search` where it is null (rows written before migration 0015), `batch` posts per
 * statement in id order, with the domain's tokenizer: SQL cannot run it, so this runs after the
 * migrations, wherever they are applied. A row written meanwhile already has its column and is
 * left alone; running it again finds nothing to do. Returns how many posts it filled.
 */
export async function backfillSearch(db: PgDatabase<PgQueryResultHKT>, batch = BACKFILL_BATCH): Promise<number> {
  let filled = 0;
  for (;;) {
    const rows = await db
      .select({ id: posts.id, title: posts.title, excerpt: posts.excerpt, tags: posts.tags, body: posts.body })
      .from(posts)
      .where(isNull(posts.search))
      .orderBy(asc(posts.id))
      .limit(batch);
    if (rows.length === 0) return filled;
    const list = (values: string[]) =>
      sql.join(
        values.map((value) => sql`${value}`),
        sql`, `,
      );
    const ids = list(rows.map((row) => row.id));
    const vectors = list(rows.map((row) => documentVectorText(searchDocument(row))));
    await db.execute(sql`
      UPDATE ${posts} SET search = v.search::tsvector
      FROM unnest(ARRAY[${ids}]::text[], ARRAY[${vectors}]::text[]) AS v(id, search)
      WHERE ${posts.id} = v.id AND ${posts.search} IS NULL`);
    filled += rows.length;
  }
}
