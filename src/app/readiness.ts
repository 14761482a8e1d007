import { UnavailableError, type Clock, type Store } from '../domain/index.js';

/**
 * Says why the database schema is not what this server needs (for the operator: it names the
 * pending migrations, so it goes to the log, never into an answer), or null when it is.
 */
export type SchemaCheck = () => Promise<string | null>;

/** What a not-ready answer asks callers to wait before trying again. */
export const NOT_READY_RETRY_AFTER_SECONDS = 5;
export const SHUTTING_DOWN = 'The server is shutting down and finishing the requests it has; send new ones elsewhere.';
/**
 * What every caller is told while the schema is behind: nothing of the schema, whose migrations
 * would tell anonymous readers the history of the deployment. The log names them.
 */
export const NOT_READY = 'The server is not ready yet; retry shortly.';
/** While the schema is behind, operations re-check it at most this often. */
const SCHEMA_RECHECK_MS = 1000;
/** While the schema is current, the watch re-checks it this often (one small read per process). */
const SCHEMA_WATCH_MS = 30_000;

export interface ReadinessOptions {
  store: Pick<Store, 'ping'>;
  clock: Clock;
  /** Re-checks the schema: while it was behind, and now and then by `watchSchema`. */
  checkSchema?: SchemaCheck;
  /** What the check at start-up found (null: current); kept for the log, never answered. */
  schemaProblem?: string | null;
}

/**
 * Whether this process should be sent traffic: not while the database does not answer, not while
 * its schema is behind this server's migrations (a server started against an old schema waits for
 * `make migrate` instead of failing its requests), and not once shutdown has begun.
 */
export class Readiness {
  #draining = false;
  #schemaProblem: string | null;
  #checkedAt = 0;
  #checking: Promise<void> | null = null;

  constructor(private readonly options: ReadinessOptions) {
    this.#schemaProblem = options.schemaProblem ?? null;
  }

  /** From now on the process reports not ready; called when shutdown begins. */
  startDraining(): void {
    this.#draining = true;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Resolves when ready; throws `UnavailableError` saying why not. */
  async check(): Promise<void> {
    if (this.#draining) throw new UnavailableError(NOT_READY_RETRY_AFTER_SECONDS, SHUTTING_DOWN);
    await this.options.store.ping();
    if (this.#schemaProblem !== null) await this.#recheckSchema();
    if (this.#schemaProblem !== null) throw new UnavailableError(NOT_READY_RETRY_AFTER_SECONDS, NOT_READY);
  }

  /**
   * Throws `UnavailableError` while the schema is behind, so that no operation runs against tables
   * it does not know; meanwhile re-checks the schema in the background, at most once a second.
   * Synchronous and free when the schema is current: it runs before every operation.
   */
  admit(): void {
    if (this.#schemaProblem === null) return;
    if (this.options.clock.now().getTime() - this.#checkedAt >= SCHEMA_RECHECK_MS) void this.#recheckSchema().catch(() => undefined);
    throw new UnavailableError(NOT_READY_RETRY_AFTER_SECONDS, NOT_READY);
  }

  /**
   * Re-checks the schema with no request asking: every `behindMs` while it is behind, so that the
   * server notices (and `checkSchema` logs) the moment `make migrate` has run, and every
   * `currentMs` while it is current, so that a newer release's migration this server must not run
   * past (`schema_requirements`) takes it out of service within that time instead of leaving it
   * serving data it misreads. A check that fails (the database down) changes nothing. The timer
   * keeps no process alive. Returns what stops it (at shutdown).
   */
  watchSchema(behindMs = SCHEMA_RECHECK_MS, currentMs = SCHEMA_WATCH_MS): () => void {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const next = (): void => {
      if (stopped) return;
      timer = setTimeout(() => void this.#recheckSchema().then(next, next), this.#schemaProblem === null ? currentMs : behindMs);
      timer.unref();
    };
    next();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  #recheckSchema(): Promise<void> {
    const check = this.options.checkSchema;
    if (check === undefined) return Promise.resolve();
    this.#checking ??= (async () => {
      try {
        this.#checkedAt = this.options.clock.now().getTime();
        this.#schemaProblem = await check();
      } finally {
        this.#checking = null;
      }
    })();
    return this.#checking;
  }
}
