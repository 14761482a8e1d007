import { describe, expect, it } from 'vitest';
import { ARGON2ID_PARAMS, createArgon2PasswordHasher } from './argon2-password-hasher.js';

const hasher = createArgon2PasswordHasher();

/** The parts of a PHC string: `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`. */
function phc(hash: string) {
  const [empty, algorithm, version, params, salt, digest] = hash.split('$');
  expect(empty).toBe('');
  const values = Object.fromEntries((params ?? '').split(',').map((kv) => kv.split('=') as [string, string]));
  return { algorithm, version, m: Number(values.m), t: Number(values.t), p: Number(values.p), salt, digest };
}

describe('argon2 password hasher', () => {
  it('hashes with argon2id, m=19456 KiB (19 MiB), t=2, p=1 and a random salt', async () => {
    const first = await hasher.hash('correct horse battery staple');
    const second = await hasher.hash('correct horse battery staple');
    expect(phc(first)).toMatchObject({ algorithm: 'argon2id', version: 'v=19', m: 19_456, t: 2, p: 1 });
    expect(ARGON2ID_PARAMS).toMatchObject({ memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 });
    expect(phc(first).salt).not.toBe(phc(second).salt);
    expect(first).not.toBe(second);
  });

  it('verifies the right password as true and a wrong one as false', async () => {
    const hash = await hasher.hash('correct horse battery staple');
    expect(await hasher.verify(hash, 'correct horse battery staple')).toBe(true);
    expect(await hasher.verify(hash, 'correct horse battery stapl')).toBe(false);
    expect(await hasher.verify(hash, '')).toBe(false);
  });

  it('answers false, without throwing, for a malformed hash', async () => {
    const valid = await hasher.hash('pw');
    const truncated = valid.slice(0, valid.lastIndexOf('$'));
    for (const malformed of ['', 'garbage', '$argon2id$v=19$m=19456,t=2,p=1$', truncated, '$2b$10$abcdefghijklmnopqrstuv']) {
      await expect(hasher.verify(malformed, 'pw'), malformed).resolves.toBe(false);
    }
  });

  it('verifies a hash made with other parameters from the parameters it carries', async () => {
    const cheap = createArgon2PasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });
    const hash = await cheap.hash('pw');
    expect(phc(hash)).toMatchObject({ algorithm: 'argon2id', m: 1024, t: 1 });
    expect(await hasher.verify(hash, 'pw')).toBe(true);
  });

  it('verifies off the event loop: the loop keeps turning while 8 verifies run', async () => {
    const hash = await hasher.hash('correct horse battery staple');
    let ticks = 0;
    let running = true;
    const tick = () => {
      ticks++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const started = ticks;
    // Were verify synchronous on this thread, all 8 would finish before the first tick.
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => hasher.verify(hash, i % 2 === 0 ? 'correct horse battery staple' : 'wrong')),
    );
    running = false;
    expect(results).toEqual([true, false, true, false, true, false, true, false]);
    expect(ticks - started).toBeGreaterThan(20);
  });
});
