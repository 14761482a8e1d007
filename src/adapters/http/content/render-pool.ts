import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { RenderJob, RenderReply } from './markdown-worker.js';

/**
 * What one render came to: the HTML, or why there is none (past the budget, past `RENDER_LIMITS`,
 * threw or its worker died, too many waiting).
 */
export type Outcome =
  { html: string } | { failed: 'timeout' } | { failed: 'error' } | { failed: 'busy' } | { failed: 'too-large'; reason: string };

/** What a worker's reply to a job means. */
function outcomeOf(reply: { html: string } | { refused: string } | { error: string }): Outcome {
  if ('html' in reply) return { html: reply.html };
  return 'refused' in reply ? { failed: 'too-large', reason: reply.refused } : { failed: 'error' };
}

export interface RenderPoolOptions {
  /** How many workers may render at once (see `defaultRenderWorkers`). */
  workers: number;
  /** How long one body may render before its worker is stopped, in ms. */
  budgetMs: number;
  /** How many bodies may wait while every worker renders; one more is answered busy at once. */
  maxWaiting: number;
}

/**
 * The readers' render workers: as many as the cores, at least 2 and at most 4. At least 2 so that
 * a body that runs to its budget never holds up another, even on one core (the system shares the
 * core between the two threads, so a fast body still finishes in its few milliseconds); at most
 * 4 because rendered bodies are cached, so more threads would only let more hostile bodies burn
 * cores at once, each with a heap of its own (bench/NOTES.md).
 */
export function defaultRenderWorkers(cores = availableParallelism()): number {
  return Math.max(2, Math.min(4, cores));
}

/** How long a worker may stay idle before it is stopped, in ms: its heap holds the last body it rendered. */
const IDLE_MS = 60_000;

// The worker's file beside this one: markdown-worker.js in the bundle (scripts/build.mjs makes it
// an entry), markdown-worker.ts when running from source, where Node 20 needs tsx to load it.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(FROM_SOURCE ? './markdown-worker.ts' : './markdown-worker.js', import.meta.url);

/**
 * A worker's heap: 1.5 GiB of old generation, 3 times the most any body within `RENDER_LIMITS`
 * kept live (470 MB: a table of 1 Mi characters, which failed under 384 MB; bench/render-heap.ts),
 * instead of V8's default (4 GiB here) for each of up to 4 workers. Never to be reached: a worker that reaches it is terminated when
 * its heap fills with many objects, but aborts the whole process when one array outgrows it
 * (nodejs/node#47224; both seen on Node 20), which is why `RENDER_LIMITS` bound the input.
 */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 1536 };

function startWorker(): Worker {
  if (!FROM_SOURCE) return new Worker(WORKER_URL, { resourceLimits: RESOURCE_LIMITS });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return new Worker(boot, { eval: true, resourceLimits: RESOURCE_LIMITS });
}

interface Job {
  message: RenderJob;
  done: (outcome: Outcome) => void;
}

/** One worker thread: started at once, ready once it said so, rendering at most one job. */
interface Slot {
  worker: Worker;
  /** Resolves once the worker listens; rejects when it fails or exits first. */
  ready: Promise<void>;
  /** Whether `ready` resolved. */
  listening: boolean;
  /** Answers the running job once; `stop` terminates the worker first (it ran past the budget). */
  finish: ((outcome: Outcome, stop: boolean) => void) | undefined;
  idle: NodeJS.Timeout | undefined;
}

/**
 * Up to `workers` worker threads that run `renderMarkdown`, one job each at a time, each job within
 * `budgetMs` of reaching its worker (a worker's start is not counted). Jobs wait in one queue, in
 * order, for the first free worker, so a body that runs to its budget holds up only its own worker:
 * the others go on with the queue. A worker past its budget is terminated and forgotten, and a new
 * one started in its place; a worker that dies is replaced the same way, failing only the job it
 * was running. Workers start when there is work, one spare ahead while there is room (see `#pump`),
 * and stop after `IDLE_MS` without; none keeps the process alive.
 */
export class RenderPool {
  readonly #options: RenderPoolOptions;
  readonly #slots: Slot[] = [];
  readonly #waiting: Job[] = [];
  /** Workers being terminated: `close` waits for them too. */
  readonly #stopping = new Set<Promise<unknown>>();
  #nextId = 1;
  #closed = false;

  constructor(options: RenderPoolOptions) {
    this.#options = options;
  }

  /** Renders `markdown` in a free worker, or the first to become free; busy when `maxWaiting` others already wait, or closed. */
  render(job: Omit<RenderJob, 'id'>): Promise<Outcome> {
    if (this.#closed || this.#waiting.length >= this.#options.maxWaiting) return Promise.resolve({ failed: 'busy' });
    return new Promise((resolve) => {
      this.#waiting.push({ message: { ...job, id: this.#nextId++ }, done: resolve });
      this.#pump();
    });
  }

  /** How many workers are started (running, starting or idle). */
  get workers(): number {
    return this.#slots.length;
  }

  /** The workers' thread ids, in the order they started: which worker renders what, for tests. */
  get threadIds(): number[] {
    return this.#slots.map((slot) => slot.worker.threadId);
  }

  /** Answers busy to every job running or waiting, and terminates every worker. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#waiting.splice(0)) job.done({ failed: 'busy' });
    for (const slot of [...this.#slots]) {
      slot.finish?.({ failed: 'busy' }, false);
      this.#stop(slot);
    }
    await Promise.all(this.#stopping);
  }

  /**
   * Hands waiting jobs to free workers (a ready one first), starting one when none is free and
   * none is starting, while there are fewer than `workers`; then, when every worker is busy and
   * none is starting, starts a spare, so that the next body finds a worker ready rather than one to
   * start (a few hundred ms, outside any budget). One start at a time: two at once would each take
   * longer, and a cold server's first bodies wait for them. Runs again when a worker is ready.
   */
  #pump(): void {
    if (this.#closed) return;
    while (this.#waiting.length > 0) {
      const slot = this.#free() ?? (this.#starting() ? undefined : this.#started());
      if (slot === undefined) break;
      this.#run(slot, this.#waiting.shift()!);
    }
    if (!this.#starting() && this.#free() === undefined) this.#started();
  }

  /** A worker without a job, a ready one first. */
  #free(): Slot | undefined {
    const free = this.#slots.filter((slot) => slot.finish === undefined);
    return free.find((slot) => slot.listening) ?? free[0];
  }

  #starting(): boolean {
    return this.#slots.some((slot) => !slot.listening);
  }

  #run(slot: Slot, job: Job): void {
    clearTimeout(slot.idle);
    let timer: NodeJS.Timeout | undefined;
    const onMessage = (reply: RenderReply) => {
      if ('id' in reply && reply.id === job.message.id) finish(outcomeOf(reply), false);
    };
    const finish = (outcome: Outcome, stop: boolean) => {
      if (slot.finish !== finish) return;
      clearTimeout(timer);
      slot.worker.off('message', onMessage);
      slot.finish = undefined;
      job.done(outcome);
      if (stop) this.#stop(slot);
      else if (this.#slots.includes(slot)) slot.idle = setTimeout(() => this.#stop(slot), IDLE_MS).unref();
      this.#pump();
    };
    slot.finish = finish;
    slot.ready.then(
      () => {
        if (slot.finish !== finish) return;
        slot.worker.on('message', onMessage);
        timer = setTimeout(() => finish({ failed: 'timeout' }, true), this.#options.budgetMs);
        slot.worker.postMessage(job.message);
      },
      () => finish({ failed: 'error' }, true),
    );
  }

  /**
   * A new worker, when fewer than `workers` are started, stopped after `IDLE_MS` unless given a
   * job; one that fails or exits fails its job and is forgotten.
   */
  #started(): Slot | undefined {
    if (this.#slots.length >= this.#options.workers) return undefined;
    const worker = startWorker();
    worker.unref(); // an idle pool never keeps the process alive
    const slot: Slot = { worker, ready: Promise.resolve(), listening: false, finish: undefined, idle: undefined };
    slot.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (reply: RenderReply) => {
        if (!('ready' in reply)) return;
        slot.listening = true;
        resolve();
        this.#pump(); // a job may wait for a worker, or another may start
      });
      const lost = (reason: unknown) => {
        reject(reason instanceof Error ? reason : new Error(`the render worker exited with ${String(reason)}`));
        if (!this.#slots.includes(slot)) return; // stopped on purpose
        this.#forget(slot);
        slot.finish?.({ failed: 'error' }, false);
      };
      worker.on('error', lost);
      worker.on('exit', lost);
    });
    slot.ready.catch(() => {}); // a worker lost before it was ready fails its job through `#run`
    slot.idle = setTimeout(() => this.#stop(slot), IDLE_MS).unref();
    this.#slots.push(slot);
    return slot;
  }

  /** Terminates `slot`'s worker and forgets it; its place is free for a new one at once. */
  #stop(slot: Slot): void {
    if (!this.#forget(slot)) return;
    const stopped = slot.worker
      .terminate()
      .catch(() => {})
      .finally(() => this.#stopping.delete(stopped));
    this.#stopping.add(stopped);
  }

  /** Takes `slot` out of the pool; false when it was not in it. */
  #forget(slot: Slot): boolean {
    clearTimeout(slot.idle);
    const index = this.#slots.indexOf(slot);
    if (index === -1) return false;
    this.#slots.splice(index, 1);
    return true;
  }
}
