/**
 * The PostgreSQL schema shared by the PGlite and PostgreSQL modes. Every constraint and index is
 * named explicitly: `pg-errors.ts` maps violations by constraint name, and migrations stay
 * readable.
 *
 * Kept free of imports from the rest of the code base so that drizzle-kit can load it on its own.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  customType,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
} from 'drizzle-orm/pg-core';

/**
 * A `tsvector`, written by the application as its input text (`documentVectorText` of the domain's
 * search rule), never made by PostgreSQL's parser.
 */
const tsvector = customType<{ data: string; driverData: string }>({
  dataType: () => 'tsvector',
});

/** `text COLLATE "C"`: compares and sorts by UTF-8 bytes whatever the database locale. */
const textC = customType<{ data: string; driverData: string }>({
  dataType: () => 'text COLLATE "C"',
});

/** `bytea`, a `Uint8Array` in and out (postgres.js and PGlite both answer one). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (value instanceof Uint8Array ? value : new Uint8Array(value as ArrayLike<number>)),
});

/** Millisecond precision in UTC, a `Date` in and out. */
const instant = (name: string) => timestamp(name, { precision: 3, withTimezone: true, mode: 'date' });

/** Kept in step with `POST_STATUSES` (a test checks it). */
export const STATUS_SQL_VALUES = ['draft', 'published', 'archived'] as const;
/** Kept in step with `ACTIVITY_TYPES` (a test checks it). */
export const ACTIVITY_TYPE_SQL_VALUES = [
  'created',
  'updated',
  'published',
  'unpublished',
  'archived',
  'deleted',
  'restored',
  'scheduled',
  'unscheduled',
] as const;

const inList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', '));

export const posts = pgTable(
  'posts',
  {
    id: textC('id').notNull(),
    title: textC('title').notNull(),
    /** Byte order, so that the unique index also serves `slugsLike`'s prefix search. */
    slug: textC('slug').notNull(),
    excerpt: text('excerpt').notNull(),
    body: text('body').notNull(),
    /**
     * The post as `q` searches it (`searchDocument` of title, excerpt, tags and body: weights A, B,
     * C), written by the application with every write of those fields. Null only for rows written
     * before it existed, until the backfill after migrating (`backfillSearch`) fills them.
     */
    search: tsvector('search'),
    tags: text('tags').array().notNull(),
    status: text('status').notNull(),
    version: integer('version').notNull(),
    wordCount: integer('word_count').notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
    publishedAt: instant('published_at'),
    /** When a scheduled draft publishes itself; null when not scheduled. */
    publishAt: instant('publish_at'),
    /** The cover image: a media id (no foreign key: a forced media delete leaves the post as it was) and its alt text. */
    coverMediaId: textC('cover_media_id'),
    coverAlt: text('cover_alt'),
    seoTitle: text('seo_title'),
    seoDescription: text('seo_description'),
    seoCanonicalUrl: text('seo_canonical_url'),
  },
  (t) => [
    primaryKey({ name: 'posts_pkey', columns: [t.id] }),
    unique('posts_slug_key').on(t.slug),
    check('posts_status_check', sql`${t.status} IN (${inList(STATUS_SQL_VALUES)})`),
    check('posts_version_check', sql`${t.version} >= 1`),
    check('posts_word_count_check', sql`${t.wordCount} >= 0`),
    check('posts_publish_at_check', sql`${t.publishAt} IS NULL OR ${t.status} = 'draft'`),
    check('posts_cover_check', sql`(${t.coverMediaId} IS NULL) = (${t.coverAlt} IS NULL)`),
    // One index per sort key; each serves both directions except publishedAt, whose nulls come
    // last in both directions and so needs one index per direction.
    index('posts_updated_at_id_idx').on(t.updatedAt, t.id),
    index('posts_created_at_id_idx').on(t.createdAt, t.id),
    index('posts_published_at_asc_id_idx').on(t.publishedAt.asc().nullsLast(), t.id.asc()),
    index('posts_published_at_desc_id_idx').on(t.publishedAt.desc().nullsLast(), t.id.desc()),
    // What readers see, newest published first: only published rows, so a reader's page is an
    // index scan without a status filter and its count an index-only scan.
    index('posts_published_published_at_id_idx')
      .on(t.publishedAt.desc().nullsLast(), t.id.desc())
      .where(sql`${t.status} = 'published'`),
    index('posts_title_id_idx').on(t.title, t.id),
    index('posts_status_idx').on(t.status),
    // The posts a media is the cover of (a media delete asks for them).
    index('posts_cover_media_id_idx')
      .on(t.coverMediaId)
      .where(sql`${t.coverMediaId} IS NOT NULL`),
    // The scheduler's queue: only scheduled drafts are in it.
    index('posts_publish_at_id_idx')
      .on(t.publishAt, t.id)
      .where(sql`${t.publishAt} IS NOT NULL`),
    index('posts_tags_idx').using('gin', t.tags),
    // `q`: the words of every post. fastupdate (the default) queues new entries in a pending list
    // that VACUUM or the list's size limit merges into the tree: far less WAL per write than
    // placing each word in the tree at once.
    index('posts_search_idx').using('gin', t.search),
    // The rows the backfill has still to fill: empty once it has run, so a write never touches it.
    index('posts_search_missing_idx')
      .on(t.id)
      .where(sql`${t.search} IS NULL`),
  ],
);

/**
 * One row per tag of each post, with the post's status: kept by the trigger `posts_post_tags_sync`
 * (migration 0005) in the transaction that writes the post, never written by the application.
 * A tag filter counts its matches here with an index-only scan, up to the count limit, instead of
 * testing the tags of post after post until enough match (at 100,000 posts, 6,000 posts read for
 * a tag on one post in six).
 */
export const postTags = pgTable(
  'post_tags',
  {
    tag: text('tag').notNull(),
    status: text('status').notNull(),
    postId: textC('post_id').notNull(),
  },
  (t) => [primaryKey({ name: 'post_tags_pkey', columns: [t.tag, t.status, t.postId] }), index('post_tags_post_id_idx').on(t.postId)],
);

/**
 * A post's revisions, one per recorded write. A revision row's `body` is NULL when it is the same
 * as the next newer revision's body, or, for the newest, the post's current body. Reading resolves
 * it: the first non-null body among the newer revisions of the post, else the post's body. So a
 * write stores its revision without the body, and a body is stored once, in `posts`, until it
 * changes or the post is deleted without its history: then the triggers `posts_revision_body_kept`
 * and `…_delete` (migration 0017) put the old body into the newest revision that left it out, in
 * the transaction of the change. A non-null body is always
 * valid (revisions written before 0017, or appended with their body).
 */
export const revisions = pgTable(
  'revisions',
  {
    postId: textC('post_id').notNull(),
    version: integer('version').notNull(),
    title: text('title').notNull(),
    slug: text('slug').notNull(),
    excerpt: text('excerpt').notNull(),
    body: text('body'),
    tags: text('tags').array().notNull(),
    status: text('status').notNull(),
    wordCount: integer('word_count').notNull(),
    createdAt: instant('created_at').notNull(),
    actorId: text('actor_id').notNull(),
    actorName: text('actor_name').notNull(),
    coverMediaId: text('cover_media_id'),
    coverAlt: text('cover_alt'),
    seoTitle: text('seo_title'),
    seoDescription: text('seo_description'),
    seoCanonicalUrl: text('seo_canonical_url'),
    /**
     * When the autosave burst the revision records began; NULL for a write that was not an
     * autosave. A burst's next autosave moves its row to the new version (`updateRecorded`).
     */
    autosaveSince: instant('autosave_since'),
  },
  (t) => [
    primaryKey({ name: 'revisions_pkey', columns: [t.postId, t.version] }),
    check('revisions_status_check', sql`${t.status} IN (${inList(STATUS_SQL_VALUES)})`),
  ],
);

export const activityEvents = pgTable(
  'activity_events',
  {
    id: textC('id').notNull(),
    type: text('type').notNull(),
    postId: textC('post_id').notNull(),
    postTitle: text('post_title').notNull(),
    postVersion: integer('post_version').notNull(),
    actorId: text('actor_id').notNull(),
    actorName: text('actor_name').notNull(),
    occurredAt: instant('occurred_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'activity_events_pkey', columns: [t.id] }),
    check('activity_events_type_check', sql`${t.type} IN (${inList(ACTIVITY_TYPE_SQL_VALUES)})`),
    index('activity_events_occurred_at_id_idx').on(t.occurredAt, t.id),
    index('activity_events_post_id_occurred_at_id_idx').on(t.postId, t.occurredAt, t.id),
    index('activity_events_type_occurred_at_id_idx').on(t.type, t.occurredAt, t.id),
  ],
);

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: text('user_id').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    /** 'in_flight' while its request runs, 'completed' once the response is stored. */
    state: text('state').notNull(),
    claimedAt: instant('claimed_at').notNull(),
    /** While in flight, no other request may take the key before this instant. */
    leaseUntil: instant('lease_until').notNull(),
    /** After this instant the record is forgotten: the key is free again. */
    expiresAt: instant('expires_at').notNull(),
    responseStatus: integer('response_status'),
    /** The response headers as a JSON object, kept as text so they replay exactly. */
    responseHeaders: text('response_headers'),
    responseBody: text('response_body'),
    /**
     * What a request that works in several steps (bulk) has done so far, saved with each step so
     * that a retry taking the key over goes on from there; opaque to the store.
     */
    progress: text('progress'),
  },
  (t) => [
    primaryKey({ name: 'idempotency_keys_pkey', columns: [t.userId, t.key] }),
    check('idempotency_keys_state_check', sql`${t.state} IN ('in_flight', 'completed')`),
    check(
      'idempotency_keys_response_check',
      sql`(${t.state} = 'completed') = (${t.responseStatus} IS NOT NULL AND ${t.responseHeaders} IS NOT NULL AND ${t.responseBody} IS NOT NULL)`,
    ),
    index('idempotency_keys_expires_at_idx').on(t.expiresAt),
  ],
);

export const users = pgTable(
  'users',
  {
    id: text('id').notNull(),
    /** Stored lowercased. */
    email: text('email').notNull(),
    name: text('name').notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
    /** Goes up by one when every session of the user ends (a password reset, logoutAll). */
    sessionVersion: integer('session_version').notNull().default(0),
  },
  (t) => [primaryKey({ name: 'users_pkey', columns: [t.id] }), unique('users_email_key').on(t.email)],
);

export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: text('id').notNull(),
    familyId: text('family_id').notNull(),
    userId: text('user_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    consumedAt: instant('consumed_at'),
    revokedAt: instant('revoked_at'),
    /** The sealed answer of the rotation that consumed this token (see the port). */
    replay: text('replay'),
    /** The user's session version when the token's login began; a token of an older one is dead. */
    sessionVersion: integer('session_version').notNull().default(0),
  },
  (t) => [
    primaryKey({ name: 'refresh_tokens_pkey', columns: [t.id] }),
    unique('refresh_tokens_token_hash_key').on(t.tokenHash),
    index('refresh_tokens_family_id_idx').on(t.familyId),
    index('refresh_tokens_user_id_idx').on(t.userId),
    // For housekeeping: expired tokens, revoked ones, and used ones still holding a replay.
    index('refresh_tokens_expires_at_idx').on(t.expiresAt),
    index('refresh_tokens_revoked_at_idx')
      .on(t.revokedAt)
      .where(sql`${t.revokedAt} IS NOT NULL`),
    index('refresh_tokens_consumed_at_replay_idx')
      .on(t.consumedAt)
      .where(sql`${t.replay} IS NOT NULL`),
  ],
);

/** One row per login attempt, for a login throttle (counts per key over a recent window). */
export const loginAttempts = pgTable(
  'login_attempts',
  {
    id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    key: text('key').notNull(),
    attemptedAt: instant('attempted_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'login_attempts_pkey', columns: [t.id] }),
    index('login_attempts_key_attempted_at_idx').on(t.key, t.attemptedAt),
    index('login_attempts_attempted_at_idx').on(t.attemptedAt),
  ],
);

/** The addresses each account (its lowercased email) has logged in from: exempt from its login limit across addresses. */
export const loginAddresses = pgTable(
  'login_addresses',
  {
    account: text('account').notNull(),
    address: text('address').notNull(),
    lastLoginAt: instant('last_login_at').notNull(),
  },
  (t) => [primaryKey({ name: 'login_addresses_pkey', columns: [t.account, t.address] })],
);

/**
 * Requests counted per key in fixed windows (the Content API's rate limit), shared by every
 * process: one row per key, upserted by each request. Rows whose window ended are purged.
 */
export const rateLimitWindows = pgTable(
  'rate_limit_windows',
  {
    key: text('key').notNull(),
    hits: integer('hits').notNull(),
    endsAt: instant('ends_at').notNull(),
  },
  (t) => [primaryKey({ name: 'rate_limit_windows_pkey', columns: [t.key] }), index('rate_limit_windows_ends_at_idx').on(t.endsAt)],
);

/**
 * The media library's records; their files' bytes are in `blobs` (`media/<id>/<name>`). `files`
 * holds the original and the variants (`MediaFile[]`, in order). An identical upload is found by
 * either hash, each unique.
 */
export const media = pgTable(
  'media',
  {
    id: textC('id').notNull(),
    contentType: text('content_type').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    sha256: textC('sha256').notNull(),
    sourceSha256: textC('source_sha256').notNull(),
    alt: text('alt').notNull(),
    caption: text('caption').notNull(),
    createdAt: instant('created_at').notNull(),
    files: jsonb('files').notNull(),
  },
  (t) => [
    primaryKey({ name: 'media_pkey', columns: [t.id] }),
    unique('media_sha256_key').on(t.sha256),
    unique('media_source_sha256_key').on(t.sourceSha256),
    index('media_created_at_id_idx').on(t.createdAt, t.id),
  ],
);

/**
 * Bytes by key (the `BlobStore` port in the database, so that every process shares them), in
 * parts of at most `BLOB_PART_BYTES` numbered from 0 (an empty blob: one empty part 0): each
 * statement of a put or a get moves one part, well under the statement timeout, where one row of
 * 20 MiB took seconds. Every part repeats the blob's type and the time of its put.
 */
export const blobs = pgTable(
  'blobs',
  {
    key: textC('key').notNull(),
    part: integer('part').notNull(),
    contentType: text('content_type').notNull(),
    bytes: bytea('bytes').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [primaryKey({ name: 'blobs_pkey', columns: [t.key, t.part] })],
);

/** Kept in step with `WEBHOOK_EVENT_TYPES` (a test checks it). */
export const WEBHOOK_EVENT_SQL_VALUES = ['post.published', 'post.unpublished', 'post.updated', 'post.deleted'] as const;
/** Kept in step with `DELIVERY_STATUSES` (a test checks it). */
export const DELIVERY_STATUS_SQL_VALUES = ['pending', 'succeeded', 'failed'] as const;

/** Webhook subscriptions: where to send which events, and the secret that signs them. */
export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: textC('id').notNull(),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    description: text('description').notNull(),
    enabled: boolean('enabled').notNull(),
    disabledReason: text('disabled_reason'),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: instant('previous_secret_expires_at'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'webhook_subscriptions_pkey', columns: [t.id] }),
    check('webhook_subscriptions_events_check', sql`${t.events} <@ ARRAY[${inList(WEBHOOK_EVENT_SQL_VALUES)}]::text[]`),
  ],
);

/**
 * The outbox: one row per change some subscription listens to, written by the trigger
 * `posts_webhook_outbox` in the transaction of the change (migration 0013's hand-written part),
 * with the post as it is after the change (its row as JSON, the search column left out).
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: textC('id').notNull(),
    type: text('type').notNull(),
    postId: textC('post_id').notNull(),
    occurredAt: instant('occurred_at').notNull(),
    post: jsonb('post').notNull(),
  },
  (t) => [primaryKey({ name: 'webhook_events_pkey', columns: [t.id] })],
);

/**
 * One event on its way to one subscription. `seq` orders a post's deliveries to a subscription as
 * its changes were made (the outbox trigger writes them under the post's row lock, so a later
 * change's come later); a worker holds one until `lease_until` (`claim`), and `attempts` tells
 * one claim from the next.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    id: textC('id').notNull(),
    subscriptionId: textC('subscription_id').notNull(),
    eventId: textC('event_id').notNull(),
    eventType: text('event_type').notNull(),
    postId: textC('post_id').notNull(),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: instant('next_attempt_at'),
    leaseUntil: instant('lease_until'),
    lastAttemptAt: instant('last_attempt_at'),
    responseStatus: integer('response_status'),
    error: text('error'),
    latencyMs: integer('latency_ms'),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'webhook_deliveries_pkey', columns: [t.id] }),
    unique('webhook_deliveries_seq_key').on(t.seq),
    foreignKey({
      name: 'webhook_deliveries_subscription_fkey',
      columns: [t.subscriptionId],
      foreignColumns: [webhookSubscriptions.id],
    }).onDelete('cascade'),
    foreignKey({ name: 'webhook_deliveries_event_fkey', columns: [t.eventId], foreignColumns: [webhookEvents.id] }),
    check('webhook_deliveries_status_check', sql`${t.status} IN (${inList(DELIVERY_STATUS_SQL_VALUES)})`),
    /** The workers' queue: each subscription's pending deliveries in order (a claim scans it until it has enough). */
    index('webhook_deliveries_pending_idx')
      .on(t.subscriptionId, t.seq)
      .where(sql`${t.status} = 'pending'`),
    /**
     * Its lanes: a subscription's pending deliveries of one post, in order (a post's events go to a
     * subscription in order, independent of other posts'): whether one is its lane's oldest.
     */
    index('webhook_deliveries_pending_lane_idx')
      .on(t.subscriptionId, t.postId, t.seq)
      .where(sql`${t.status} = 'pending'`),
    /** The claimed ones (in flight, or lapsed): a claim counts a subscription's without reading its backlog. */
    index('webhook_deliveries_held_idx')
      .on(t.subscriptionId, t.leaseUntil)
      .where(sql`${t.status} = 'pending' AND ${t.leaseUntil} IS NOT NULL`),
    /** The delivery log, newest first. */
    index('webhook_deliveries_log_idx').on(t.subscriptionId, t.createdAt, t.id),
    index('webhook_deliveries_event_idx').on(t.eventId),
  ],
);

/** Preview links: only the token's SHA-256 is kept. A post's links go with it. */
export const previewLinks = pgTable(
  'preview_links',
  {
    id: textC('id').notNull(),
    postId: textC('post_id').notNull(),
    tokenHash: textC('token_hash').notNull(),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    revokedAt: instant('revoked_at'),
  },
  (t) => [
    primaryKey({ name: 'preview_links_pkey', columns: [t.id] }),
    unique('preview_links_token_hash_key').on(t.tokenHash),
    foreignKey({ name: 'preview_links_post_fkey', columns: [t.postId], foreignColumns: [posts.id] }).onDelete('cascade'),
    index('preview_links_post_idx').on(t.postId, t.createdAt, t.id),
  ],
);

/**
 * The migrations a server must know to run against this database: a migration that an older
 * server would misread (it stores data in a way older code does not read back) adds a row naming
 * itself and why. A server whose migrations lack one refuses to start (`SchemaAheadError`), rather
 * than serve that data wrong, say after a rollback to an older release. Rows are written only by
 * migrations; no table of the application's (`ALL_TABLES`).
 */
export const schemaRequirements = pgTable(
  'schema_requirements',
  {
    migration: textC('migration').notNull(),
    reason: text('reason').notNull(),
  },
  (t) => [primaryKey({ name: 'schema_requirements_pkey', columns: [t.migration] })],
);

/** Every table of the application's data, in the order `TRUNCATE` lists them. */
export const ALL_TABLES = [
  'posts',
  'post_tags',
  'revisions',
  'activity_events',
  'idempotency_keys',
  'users',
  'refresh_tokens',
  'login_attempts',
  'login_addresses',
  'rate_limit_windows',
  'media',
  'blobs',
  'webhook_subscriptions',
  'webhook_events',
  'webhook_deliveries',
  'preview_links',
] as const;

export const schema = {
  posts,
  postTags,
  revisions,
  activityEvents,
  idempotencyKeys,
  users,
  refreshTokens,
  loginAttempts,
  media,
  blobs,
  webhookSubscriptions,
  webhookEvents,
  webhookDeliveries,
  previewLinks,
};
export type Schema = typeof schema;
