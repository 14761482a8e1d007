/**
 * What the contract suites cannot see of the Drizzle store's webhooks and preview links: the
 * outbox trigger's JSON, the events left when deliveries go, the foreign keys pg-errors maps.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { usePglite } from '../../../test/support/stores.js';
import type { Store } from '../../domain/ports/store.js';
import { minute, newPost } from '../contract/fixtures.js';
import { drain, newSubscription } from '../contract/webhook-fixtures.js';
import { MAPPED_FOREIGN_KEYS } from './driver/pg-errors.js';
import { backfillSearch } from './schema/search-backfill.js';

const { make, connection } = usePglite();
const query = async (text: string) => (await connection().client.query<Record<string, unknown>>(text)).rows;

describe('Drizzle webhooks (PGlite)', () => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('the outbox trigger stores the posts row as JSON, its search column left out', async () => {
    store = await make();
    await store.webhooks.create(newSubscription(1));
    await store.posts.create(newPost(1, { status: 'published' }));
    const columns = await query(
      `select column_name as name from information_schema.columns where table_name = 'posts' and column_name not like 'search%'`,
    );
    const [event] = await query(`select post from webhook_events`);
    expect(Object.keys(event!.post as object).sort()).toEqual(columns.map((c) => c.name).sort());
  });

  it('the trigger writes nothing for a draft that stays a draft, even with a subscription listening', async () => {
    store = await make();
    await store.webhooks.create(newSubscription(1));
    await store.posts.create(newPost(1));
    await store.posts.update(newPost(1).id, 1, { title: 'Edited' }, minute(30));
    expect(await query(`select count(*)::int as n from webhook_events`)).toEqual([{ n: 0 }]);
  });

  it('a write that leaves the version as it was (the search backfill) is no event, even to a published post', async () => {
    store = await make();
    await store.posts.create(newPost(1, { status: 'published' }));
    await store.webhooks.create(newSubscription(1));
    await query(`update posts set search = null`);
    expect(await backfillSearch(connection().db)).toBe(1);
    expect(await query(`select count(*)::int as n from webhook_events`)).toEqual([{ n: 0 }]);
    await store.posts.update(newPost(1).id, 1, { title: 'Edited' }, minute(30));
    expect(await query(`select type from webhook_events`)).toEqual([{ type: 'post.updated' }]);
  });

  it('purge deletes the events no delivery refers to any more (those of a deleted subscription too), and keeps the others', async () => {
    store = await make();
    const id = newPost(1).id;
    await store.webhooks.create(newSubscription(1));
    await store.webhooks.create(newSubscription(2, { events: ['post.published'] }));
    await store.posts.create(newPost(1, { status: 'published' })); // to 1 and 2
    await store.posts.update(id, 1, { title: 'Edited' }, minute(30)); // to 1
    await store.webhooks.create(newSubscription(3));
    await store.webhooks.update(newSubscription(1).id, { enabled: false }, minute(31));
    await store.posts.update(id, 2, { title: 'To 3' }, minute(31)); // to 3 alone
    await store.webhooks.delete(newSubscription(3).id);
    await store.webhooks.update(newSubscription(1).id, { enabled: true }, minute(32));
    expect(await drain(store)).toHaveLength(3);
    await store.posts.update(id, 3, { title: 'Pending' }, minute(41)); // to 1, left pending
    expect(await query(`select count(*)::int as n from webhook_events`)).toEqual([{ n: 4 }]);
    expect(await store.webhooks.purge(minute(41), 100)).toBe(3);
    expect(await query(`select post->>'title' as title from webhook_events`)).toEqual([{ title: 'Pending' }]);
  });

  it('holds every foreign key that pg-errors maps', async () => {
    const rows = await query(`select conname from pg_constraint where contype = 'f'`);
    const names = rows.map((r) => r.conname);
    for (const name of MAPPED_FOREIGN_KEYS) expect(names).toContain(name);
  });
});
