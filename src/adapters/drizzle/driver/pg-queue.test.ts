/**
 * Regression test for the internal FIFO queue of postgres.js
 * (porsager/postgres#747, fixed locally by patches/postgres+3.4.9.patch).
 *
 * Stock 3.4.9 leaves one dead `undefined` slot per shift() and only releases
 * them when the queue drains completely; remove() scans from index 0. The
 * pool's `busy` queue never drains under saturation, so every query got
 * slower. These tests prove the fix structurally (size of the backing array),
 * not by timing.
 *
 * `postgres`'s package.json `exports` has no subpaths, so `postgres/src/queue.js`
 * cannot be imported by specifier. We resolve the package entry and load the
 * queue files by path: src/ is what `import postgres from 'postgres'` loads
 * (exports.import), cjs/ is what require() loads, cf/ is the workerd build.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

interface PgQueue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}
type QueueFactory = <T>(initial?: T[]) => PgQueue<T>;

const require = createRequire(import.meta.url);

function postgresRoot(): string {
  let dir = dirname(require.resolve('postgres'));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'postgres') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('could not locate the postgres package root');
    dir = parent;
  }
}

const root = postgresRoot();

const variants: Array<[string, () => Promise<QueueFactory>]> = [
  ['src/queue.js (ESM, used by `import postgres`)', async () => (await import(pathToFileURL(join(root, 'src/queue.js')).href)).default],
  ['cjs/src/queue.js (require)', async () => require(join(root, 'cjs/src/queue.js'))],
];
if (existsSync(join(root, 'cf/src/queue.js'))) {
  variants.push(['cf/src/queue.js (workerd)', async () => (await import(pathToFileURL(join(root, 'cf/src/queue.js')).href)).default]);
}

/**
 * Push `x` and return the queue's private backing array, captured by briefly
 * intercepting Array.prototype.push. Only used to inspect its length.
 */
function pushCapturingBackingArray<T>(q: PgQueue<T>, x: T): unknown[] {
  const originalPush = Array.prototype.push;
  let captured: unknown[] | undefined;
  Array.prototype.push = function (this: unknown[], ...items: unknown[]) {
    // The array the queue pushes into is what this test inspects.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    captured ??= this;
    return originalPush.apply(this, items);
  };
  try {
    q.push(x);
  } finally {
    Array.prototype.push = originalPush;
  }
  if (!captured) throw new Error('queue.push did not call Array.prototype.push');
  return captured;
}

describe.each(variants)('postgres.js Queue: %s', (_name, load) => {
  it('is FIFO: push / shift / length', async () => {
    const Queue = await load();
    const q = Queue<string>();
    expect(q.length).toBe(0);
    expect(q.push('a')).toBe('a');
    q.push('b');
    q.push('c');
    expect(q.length).toBe(3);
    expect(q.shift()).toBe('a');
    expect(q.length).toBe(2);
    q.push('d');
    expect([q.shift(), q.shift(), q.shift()]).toEqual(['b', 'c', 'd']);
    expect(q.length).toBe(0);
    // shifting an empty queue yields undefined and leaves it usable
    expect(q.shift()).toBeUndefined();
    expect(q.length).toBe(0);
    q.push('e');
    expect(q.length).toBe(1);
    expect(q.shift()).toBe('e');
    expect(q.length).toBe(0);
  });

  it('copies the initial array', async () => {
    const Queue = await load();
    const initial = [1, 2, 3];
    const q = Queue(initial);
    q.shift();
    q.push(4);
    expect(initial).toEqual([1, 2, 3]);
    expect([q.shift(), q.shift(), q.shift()]).toEqual([2, 3, 4]);
  });

  it('remove() takes out exactly that item, keeps FIFO order, returns null if absent', async () => {
    const Queue = await load();
    const [a, b, c, d] = [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }];
    const q = Queue([a, b, c, d]);
    expect(q.shift()).toBe(a);
    expect(q.remove(a)).toBeNull(); // already shifted (what pool.move() does)
    expect(q.remove(c)).toBe(c);
    expect(q.remove(c)).toBeNull();
    expect(q.length).toBe(2);
    q.push(a);
    expect(q.remove(a)).toBe(a); // last
    expect(q.remove(b)).toBe(b); // head
    expect(q.length).toBe(1);
    expect(q.shift()).toBe(d);
    expect(q.length).toBe(0);
    expect(q.remove(d)).toBeNull();
    q.push(b);
    expect(q.remove(b)).toBe(b); // drain via remove, then keep using it
    expect(q.length).toBe(0);
    q.push(c);
    expect(q.shift()).toBe(c);
  });

  it('matches a reference FIFO under a random mix of push/shift/remove', async () => {
    const Queue = await load();
    const q = Queue<number>();
    const model: number[] = [];
    let seed = 747;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let next = 0;
    const mismatches: string[] = [];
    for (let i = 0; i < 50_000 && mismatches.length === 0; i++) {
      const r = rnd();
      if (r < 0.5) {
        q.push(next);
        model.push(next++);
      } else if (r < 0.85) {
        const got = q.shift();
        const want = model.shift();
        if (got !== want) mismatches.push(`op ${i}: shift() = ${got}, expected ${want}`);
      } else {
        const target = Math.floor(rnd() * (next + 1)); // may be absent or already gone
        const at = model.indexOf(target);
        if (at !== -1) model.splice(at, 1);
        const got = q.remove(target);
        const want = at === -1 ? null : target;
        if (got !== want) mismatches.push(`op ${i}: remove(${target}) = ${got}, expected ${want}`);
      }
      if (q.length !== model.length) mismatches.push(`op ${i}: length ${q.length}, expected ${model.length}`);
    }
    expect(mismatches).toEqual([]);
    const rest: Array<number | undefined> = [];
    while (q.length) rest.push(q.shift());
    expect(rest).toEqual(model);
  });

  it('backing array stays bounded when the queue never drains (1 item kept inside)', async () => {
    const Queue = await load();
    const q = Queue<number>();
    let maxBacking = pushCapturingBackingArray(q, 0).length;
    let fifoViolations = 0;
    for (let i = 1; i <= 100_000; i++) {
      if (i % 1000 === 0) maxBacking = Math.max(maxBacking, pushCapturingBackingArray(q, i).length);
      else q.push(i);
      if (q.shift() !== i - 1) fifoViolations++; // FIFO, and the queue never becomes empty
    }
    expect(fifoViolations).toBe(0);
    expect(q.length).toBe(1);
    expect(maxBacking).toBeLessThan(1000);

    // remove() still works and preserves order after all that churn
    q.push(-1);
    q.push(-2);
    expect(q.remove(-1)).toBe(-1);
    expect(q.remove(-1)).toBeNull();
    expect([q.shift(), q.shift(), q.length]).toEqual([100_000, -2, 0]);
  });

  it('saturated-pool pattern (shift, remove-absent, push of 10 connections) stays bounded', async () => {
    // Mirrors index.js under load: busy.shift() -> go() -> move(c, busy),
    // where move() calls busy.remove(c) for a c that was just shifted out.
    const Queue = await load();
    const conns = Array.from({ length: 10 }, (_, id) => ({ id }));
    const busy = Queue(conns);
    let maxBacking = 0;
    let maxSlotsScannedByRemove = 0;
    let violations = 0;
    const originalIndexOf = Array.prototype.indexOf;
    for (let i = 0; i < 100_000; i++) {
      const c = busy.shift();
      if (c !== conns[i % 10]) violations++;
      if (i % 1000 === 999) {
        // Measure how many slots remove()'s indexOf has to look at.
        Array.prototype.indexOf = function (this: unknown[], x: unknown, from?: number) {
          maxSlotsScannedByRemove = Math.max(maxSlotsScannedByRemove, this.length - (from ?? 0));
          return originalIndexOf.call(this, x, from);
        };
        try {
          if (busy.remove(c!) !== null) violations++;
        } finally {
          Array.prototype.indexOf = originalIndexOf;
        }
        maxBacking = Math.max(maxBacking, pushCapturingBackingArray(busy, c!).length);
      } else {
        if (busy.remove(c!) !== null) violations++;
        busy.push(c!);
      }
      if (busy.length !== 10) violations++;
    }
    expect(violations).toBe(0);
    expect(maxBacking).toBeLessThan(1000);
    expect(maxSlotsScannedByRemove).toBeLessThan(1000);
  });
});
