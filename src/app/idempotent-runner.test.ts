import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../adapters/memory/store.js';
import { FixedClock, IdempotencyKeyInFlightError, IdempotencyKeyReusedError, type Store } from '../domain/index.js';
import { IdempotentRunner, type Idempotency } from './idempotent-runner.js';

const actor = { id: 'U1', name: 'Ada' };
const LEASE_MS = 30_000;

function setup() {
  const store = createMemoryStore();
  const clock = new FixedClock(new Date('2026-01-01T00:00:00.000Z'));
  const runner = new IdempotentRunner(store, clock, { leaseMs: LEASE_MS, ttlMs: 86_400_000 });
  return { store, clock, runner };
}

const keyed = (fingerprint = 'f1'): Idempotency<number> => ({
  key: 'k1',
  fingerprint,
  render: (n) => ({ status: 201, headers: { ETag: `"${n}"` }, body: String(n) }),
});

async function claimElsewhere(store: Store, clock: FixedClock) {
  const now = clock.now();
  return store.idempotency.claim({
    userId: actor.id,
    key: 'k1',
    fingerprint: 'f1',
    now,
    leaseMs: LEASE_MS,
    expiresAt: new Date(now.getTime() + 86_400_000),
  });
}

describe('IdempotentRunner', () => {
  it('runs the work once and replays the answer it stored to the same request', async () => {
    const { runner } = setup();
    let runs = 0;
    const work = async () => ++runs;

    const first = await runner.inOneTransaction(actor, keyed(), work);
    const second = await runner.inOneTransaction(actor, keyed(), work);

    expect(first).toEqual({ replayed: false, result: 1 });
    expect(second).toEqual({ replayed: true, response: { status: 201, headers: { ETag: '"1"' }, body: '1' } });
    expect(runs).toBe(1);
  });

  it('refuses a key reused with another request, without running the work', async () => {
    const { runner } = setup();
    await runner.inOneTransaction(actor, keyed('f1'), async () => 1);
    let ran = false;
    const reused = runner.inOneTransaction(actor, keyed('f2'), async () => {
      ran = true;
      return 2;
    });
    await expect(reused).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    expect(ran).toBe(false);
  });

  it("answers 'in flight' with a retry after 1 second, not the 30 s left of the holder's lease", async () => {
    const { store, clock, runner } = setup();
    await claimElsewhere(store, clock);

    const error = await runner.inOneTransaction(actor, keyed(), async () => 1).catch((e: unknown) => e);
    const stepped = await runner.inSteps(actor, keyed(), async () => 1).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(IdempotencyKeyInFlightError);
    expect((error as IdempotencyKeyInFlightError).retryAfterSeconds).toBe(1);
    expect((stepped as IdempotencyKeyInFlightError).retryAfterSeconds).toBe(1);
  });

  it('releases the key when the work fails, so a retry runs it', async () => {
    const { runner } = setup();
    await expect(
      runner.inOneTransaction(actor, keyed(), async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await runner.inOneTransaction(actor, keyed(), async () => 7)).toEqual({ replayed: false, result: 7 });
  });

  it('hands work in steps what an abandoned holder saved, once its lease has run out', async () => {
    const { store, clock, runner } = setup();
    const claim = await claimElsewhere(store, clock);
    expect(claim.outcome).toBe('claimed');
    await store.idempotency.saveProgress(actor.id, 'k1', clock.now(), 'two of five done');
    clock.advance(LEASE_MS + 1);

    let saved: string | null | undefined;
    const outcome = await runner.inSteps(actor, keyed(), async (progress) => {
      saved = progress?.saved;
      return 5;
    });

    expect(saved).toBe('two of five done');
    expect(outcome).toEqual({ replayed: false, result: 5 });
  });

  it('without a key, simply runs the work (no progress to save)', async () => {
    const { runner } = setup();
    expect(await runner.inSteps(actor, undefined, async (progress) => (progress === undefined ? 1 : 0))).toEqual({
      replayed: false,
      result: 1,
    });
  });
});
