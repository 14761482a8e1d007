import { describe, expect, it } from 'vitest';
import { FixedClock, UnavailableError } from '../domain/index.js';
import { NOT_READY, NOT_READY_RETRY_AFTER_SECONDS, Readiness, SHUTTING_DOWN } from './readiness.js';

const up = { ping: async () => undefined };

/** A readiness whose schema check counts its calls (`counted.checks`) and answers what `answer` does. */
function watched(answer: () => Promise<string | null>, schemaProblem: string | null = null) {
  const counted = { checks: 0 };
  const readiness = new Readiness({
    store: up,
    clock: new FixedClock(new Date()),
    schemaProblem,
    checkSchema: () => {
      counted.checks += 1;
      return answer();
    },
  });
  return { readiness, counted };
}
const down = {
  ping: async () => {
    throw new UnavailableError(2, 'The database is not answering; retry shortly.');
  },
};
const BEHIND = 'The database schema is behind this server: 1 migration is pending (0006_next); run `make migrate`.';

/** Lets background checks finish. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

async function reason(readiness: Readiness): Promise<unknown> {
  return readiness.check().then(
    () => 'ready',
    (error: unknown) => error,
  );
}

describe('Readiness', () => {
  it('is ready when the store answers and the schema is current', async () => {
    const readiness = new Readiness({ store: up, clock: new FixedClock(new Date()) });
    await expect(readiness.check()).resolves.toBeUndefined();
    expect(() => readiness.admit()).not.toThrow();
  });

  it('is not ready while the store does not answer, with the store error', async () => {
    const readiness = new Readiness({ store: down, clock: new FixedClock(new Date()) });
    const error = await reason(readiness);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as UnavailableError).message).toBe('The database is not answering; retry shortly.');
  });

  it('is not ready from the moment shutdown begins, whatever the store says', async () => {
    const readiness = new Readiness({ store: up, clock: new FixedClock(new Date()) });
    readiness.startDraining();
    const error = (await reason(readiness)) as UnavailableError;
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toBe(SHUTTING_DOWN);
    expect(error.retryAfterSeconds).toBe(NOT_READY_RETRY_AFTER_SECONDS);
    expect(readiness.draining).toBe(true);
  });

  it('is not ready and admits no operation while the schema is behind, and becomes ready once it is migrated', async () => {
    let problem: string | null = BEHIND;
    let checks = 0;
    const clock = new FixedClock(new Date('2026-12-03T10:00:00.000Z'));
    const readiness = new Readiness({
      store: up,
      clock,
      schemaProblem: BEHIND,
      checkSchema: async () => {
        checks += 1;
        return problem;
      },
    });

    expect(((await reason(readiness)) as Error).message).toBe(NOT_READY);
    expect(() => readiness.admit()).toThrow(NOT_READY);

    problem = null; // `make migrate` ran
    await expect(readiness.check()).resolves.toBeUndefined();
    expect(() => readiness.admit()).not.toThrow();
    const checksWhenCurrent = checks;
    await readiness.check();
    readiness.admit();
    expect(checks, 'a current schema is not checked again').toBe(checksWhenCurrent);
  });

  it('says only "not ready yet" while the schema is behind: the pending migrations are named to no caller', async () => {
    const readiness = new Readiness({
      store: up,
      clock: new FixedClock(new Date()),
      schemaProblem: BEHIND,
      checkSchema: async () => BEHIND,
    });
    const checked = (await reason(readiness)) as UnavailableError;
    let admitted: unknown;
    try {
      readiness.admit();
    } catch (error) {
      admitted = error;
    }
    for (const error of [checked, admitted as UnavailableError]) {
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error.message).toBe('The server is not ready yet; retry shortly.');
      expect(error.message).not.toMatch(/0006|migrat|schema/);
      expect(error.retryAfterSeconds).toBe(NOT_READY_RETRY_AFTER_SECONDS);
    }
  });

  it('re-checks a behind schema from operations at most once a second', async () => {
    let checks = 0;
    const clock = new FixedClock(new Date('2026-12-03T10:00:00.000Z'));
    const readiness = new Readiness({
      store: up,
      clock,
      schemaProblem: BEHIND,
      checkSchema: async () => {
        checks += 1;
        return BEHIND;
      },
    });
    for (let i = 0; i < 5; i += 1) expect(() => readiness.admit()).toThrow(UnavailableError);
    await settled();
    expect(checks).toBe(1);
    clock.advance(1000);
    expect(() => readiness.admit()).toThrow(UnavailableError);
    await settled();
    expect(checks).toBe(2);
  });

  it('watching a behind schema re-checks it often with no request asking, and once current only at the slower pace', async () => {
    let problem: string | null = BEHIND;
    const { readiness, counted } = watched(async () => problem, BEHIND);
    const stop = readiness.watchSchema(10, 60_000);
    await expect.poll(() => counted.checks).toBeGreaterThanOrEqual(2);
    problem = null; // `make migrate` ran
    await expect.poll(() => readiness.check().then(() => 'ready')).toBe('ready');
    // The check the watch had already set at the behind pace may still come once.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const checksWhenCurrent = counted.checks;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(counted.checks, 'no check at the behind pace once current').toBe(checksWhenCurrent);
    stop();
  });

  it('watching a current schema re-checks it now and then: a newer release migrating past this server takes it out of service', async () => {
    let problem: string | null = null;
    const { readiness, counted } = watched(async () => problem);
    const stop = readiness.watchSchema(1000, 10);
    await expect.poll(() => counted.checks).toBeGreaterThanOrEqual(2);
    expect(() => readiness.admit()).not.toThrow();
    problem = 'database schema is ahead of this server'; // a newer release's migration
    await expect
      .poll(() =>
        readiness.check().then(
          () => 'ready',
          (error: unknown) => error,
        ),
      )
      .toBeInstanceOf(UnavailableError);
    expect(() => readiness.admit()).toThrow(UnavailableError);
    stop();
    const checksWhenStopped = counted.checks;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(counted.checks, 'no check once stopped').toBe(checksWhenStopped);
  });

  it('a watch whose check fails (the database down) keeps watching and changes nothing', async () => {
    const { readiness, counted } = watched(() => Promise.reject(new Error('connection refused')));
    const stop = readiness.watchSchema(1000, 10);
    await expect.poll(() => counted.checks).toBeGreaterThanOrEqual(3);
    expect(() => readiness.admit()).not.toThrow();
    stop();
  });
});
