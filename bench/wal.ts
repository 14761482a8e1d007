/**
 * WAL per create (#32) and the PostgreSQL settings a benchmark ran with.
 *
 * `measureWalPerCreate` sends N creates to a running server (the API or the floor) right after a
 * CHECKPOINT, reading `pg_current_wal_lsn()` before and after: `pg_wal_lsn_diff` over N is the WAL
 * per create as the issue defines it. That position is the whole cluster's, so other work on the
 * same PostgreSQL server (other databases' tests) inflates it; with `pg_walinspect` (PostgreSQL
 * 15+, created in the scratch database) the records are also read back and counted when a block
 * they touch is in the bench's database, or their transaction touched one (its commit record):
 * that figure is the bench's own, and its full-page images are shown apart. The CHECKPOINT first
 * makes runs comparable: the first change to each page after a checkpoint writes the whole page.
 */
import { randomBytes } from 'node:crypto';
import type postgres from 'postgres';
import { createPost } from './client.js';
import { onCleanup } from './lifecycle.js';
import { fmt, median, table } from './report.js';
import { postInput } from './text.js';

export interface WalRun {
  server: string;
  round: number;
  creates: number;
  seconds: number;
  /** `pg_wal_lsn_diff(after, before)`: every database on the server. */
  lsnBytes: number;
  /** The records of the bench's own database (pg_walinspect), null without the extension. */
  ownBytes: number | null;
  /** Of which full-page images. */
  ownFpiBytes: number | null;
  /** The bench database's bytes by resource manager (Heap, Btree, Gin, Transaction, …). */
  ownByKind: Record<string, number> | null;
}

/** `CREATE EXTENSION pg_walinspect` in the scratch database; false when it is not available. */
export async function enableWalInspect(sql: postgres.Sql): Promise<boolean> {
  try {
    await sql.unsafe('create extension if not exists pg_walinspect');
    return true;
  } catch {
    return false;
  }
}

async function currentLsn(sql: postgres.Sql): Promise<string> {
  const [row] = await sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
  return row!.lsn;
}

/** WAL bytes between two positions that belong to this database (see the module comment). */
async function ownWal(
  sql: postgres.Sql,
  from: string,
  to: string,
): Promise<{ bytes: number; fpi: number; byKind: Record<string, number> }> {
  const rows = await sql<{ kind: string; bytes: string; fpi: string }[]>`
    with r as (
      select xid, resource_manager, record_length, fpi_length,
             (regexp_match(block_ref, 'rel \\d+/(\\d+)/'))[1]::oid as db
      from pg_get_wal_records_info(${from}::pg_lsn, least(${to}::pg_lsn, pg_current_wal_flush_lsn()))
    ), me as (select oid from pg_database where datname = current_database()),
    mine as (select distinct xid from r where db = (select oid from me) and xid <> '0')
    select resource_manager as kind, sum(record_length)::text as bytes, sum(fpi_length)::text as fpi from r
    where db = (select oid from me) or (xid <> '0' and xid in (select xid from mine))
    group by resource_manager`;
  const byKind = Object.fromEntries(rows.map((r) => [r.kind, Number(r.bytes)]));
  const sum = (pick: (r: { bytes: string; fpi: string }) => string) => rows.reduce((n, r) => n + Number(pick(r)), 0);
  return { bytes: sum((r) => r.bytes), fpi: sum((r) => r.fpi), byKind };
}

/** N creates of the bench's usual posts (about 1 KB of markdown, 1–3 tags) by `concurrency` clients. */
async function sendCreates(baseUrl: string, token: string, creates: number, concurrency: number, label: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < creates) {
      next += 1;
      const n = next;
      await createPost(baseUrl, token, postInput(n, `${label} `));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export interface WalTarget {
  server: string;
  baseUrl: string;
  token: string;
}

/**
 * A physical replication slot that keeps the server's WAL from the current position until it is
 * dropped, so that pg_walinspect can still read the run's WAL when other work on the server
 * checkpoints and recycles segments meanwhile; null when the server cannot make one.
 */
async function reserveWal(sql: postgres.Sql): Promise<string | null> {
  const slot = `margin_bench_wal_${randomBytes(6).toString('hex')}`;
  try {
    await sql`select pg_create_physical_replication_slot(${slot}, true, false)`;
    return slot;
  } catch {
    return null;
  }
}

async function dropSlot(sql: postgres.Sql, slot: string): Promise<void> {
  await sql`select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = ${slot}`;
}

/** The run's own WAL (see `ownWal`), or null when it could not be read back. */
async function ownWalOrNull(sql: postgres.Sql, from: string, to: string): Promise<Awaited<ReturnType<typeof ownWal>> | null> {
  try {
    return await ownWal(sql, from, to);
  } catch (error) {
    console.error(`pg_walinspect could not read the run's WAL back: ${(error as Error).message}`);
    return null;
  }
}

/** CHECKPOINT, then N creates on `target` between two WAL positions (see the module comment). */
export async function measureWalPerCreate(
  sql: postgres.Sql,
  target: WalTarget,
  round: number,
  creates: number,
  inspect: boolean,
): Promise<WalRun> {
  const slot = inspect ? await reserveWal(sql) : null;
  // A slot left behind would keep the server's WAL for ever: dropped on Ctrl-C too.
  const forget = slot === null ? () => undefined : onCleanup(() => dropSlot(sql, slot));
  try {
    await sql.unsafe('CHECKPOINT');
    const before = await currentLsn(sql);
    const t0 = performance.now();
    await sendCreates(target.baseUrl, target.token, creates, 8, `wal ${target.server} ${round}`);
    const seconds = (performance.now() - t0) / 1000;
    const after = await currentLsn(sql);
    const [diff] = await sql<{ bytes: string }[]>`select pg_wal_lsn_diff(${after}::pg_lsn, ${before}::pg_lsn)::text as bytes`;
    const own = inspect ? await ownWalOrNull(sql, before, after) : null;
    return {
      server: target.server,
      round,
      creates,
      seconds,
      lsnBytes: Number(diff!.bytes),
      ownBytes: own?.bytes ?? null,
      ownFpiBytes: own?.fpi ?? null,
      ownByKind: own?.byKind ?? null,
    };
  } finally {
    forget();
    if (slot !== null) await dropSlot(sql, slot);
  }
}

/** The settings that shape write and vacuum costs, as `SHOW` gives them. */
export const SHOWN_SETTINGS = [
  'server_version',
  'autovacuum',
  'shared_buffers',
  'synchronous_commit',
  'fsync',
  'full_page_writes',
  'wal_compression',
  'checkpoint_timeout',
  'max_wal_size',
  'work_mem',
  'maintenance_work_mem',
  'effective_cache_size',
  'random_page_cost',
  'default_text_search_config',
] as const;

/** `name=value` for each of SHOWN_SETTINGS, one line. */
export async function postgresSettings(sql: postgres.Sql): Promise<string> {
  const rows = await sql<{ name: string; setting: string }[]>`
    select name, current_setting(name) as setting from unnest(${SHOWN_SETTINGS as unknown as string[]}::text[]) as name`;
  return rows.map((r) => `${r.name}=${r.setting}`).join(', ');
}

/** The target for the API: at most 6 KB (6,000 bytes) of WAL per create. */
export const WAL_TARGET_BYTES = 6000;

/** The figure judged: the bench database's own records when pg_walinspect read them, else the LSN difference. */
export const judgedBytes = (run: WalRun): number => (run.ownBytes ?? run.lsnBytes) / run.creates;

const spread = (xs: readonly number[], digits = 0) =>
  xs.length > 1 ? `${fmt(median(xs), digits)} (${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)})` : fmt(xs[0], digits);

/** `Gin 8,900, Heap 3,100, …`: the median bytes per create of each resource manager, largest first, over 1 % only. */
function byKind(runs: readonly WalRun[]): string {
  const kinds = [...new Set(runs.flatMap((r) => Object.keys(r.ownByKind ?? {})))];
  const total = median(runs.map((r) => r.ownBytes! / r.creates));
  return kinds
    .map((kind) => [kind, median(runs.map((r) => (r.ownByKind?.[kind] ?? 0) / r.creates))] as const)
    .filter(([, bytes]) => bytes >= total / 100)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, bytes]) => `${kind} ${fmt(bytes)}`)
    .join(', ');
}

/** One row per server: bytes per create by LSN and by the bench database's records, FPI share, creates/s. */
export function walTable(runs: readonly WalRun[]): string {
  const servers = [...new Set(runs.map((r) => r.server))];
  const rows = servers.map((server) => {
    const mine = runs.filter((r) => r.server === server);
    const own = mine.filter((r) => r.ownBytes !== null);
    return [
      server,
      String(mine.length),
      spread(mine.map((r) => r.lsnBytes / r.creates)),
      own.length > 0 ? `**${spread(own.map((r) => r.ownBytes! / r.creates))}**` : '–',
      own.length > 0 ? `${spread(own.map((r) => (100 * r.ownFpiBytes!) / Math.max(1, r.ownBytes!)))} %` : '–',
      own.length > 0 ? byKind(own) : '–',
      spread(mine.map((r) => r.creates / r.seconds)),
    ];
  });
  return table(
    [
      'server',
      'runs',
      'WAL B/create (LSN diff, whole server)',
      'WAL B/create (bench database)',
      'of which full pages',
      'B/create by kind (median)',
      'creates/s (8 clients)',
    ],
    rows,
  );
}

/** `WAL per create …: N B — target ≤ 6,000 B: met` for the API's runs (median). */
export function walTargetLine(runs: readonly WalRun[], server = 'api'): string {
  const mine = runs.filter((r) => r.server === server);
  if (mine.length === 0) return `WAL per create: no ${server} run`;
  const value = median(mine.map(judgedBytes));
  const source = mine.every((r) => r.ownBytes !== null) ? 'bench database, pg_walinspect' : 'LSN difference, whole server';
  return (
    `WAL per create (${server}, median of ${mine.length}, ${source}): **${fmt(value)} B** — target ≤ ${fmt(WAL_TARGET_BYTES)} B: ` +
    `${value <= WAL_TARGET_BYTES ? 'met' : 'NOT met'}`
  );
}
