import { describe, expect, it } from 'vitest';
import { createZxcvbnPasswordPolicy } from './zxcvbn-password-policy.js';

const policy = createZxcvbnPasswordPolicy();

describe('zxcvbn password policy', () => {
  it('refuses a password shorter than 12 characters, before any guessing estimate', async () => {
    expect(await policy.problem('Xq7!vR2#pL9', [])).toBe('must be at least 12 characters');
  });

  it('refuses long passwords that are repeated, sequential, keyboard patterns or common, saying why', async () => {
    const refused: Record<string, RegExp> = {
      aaaaaaaaaaaa: /repeated characters/,
      abcabcabcabc: /repeated pattern/,
      '123456789012': /common password|sequence/,
      qwertyuiopas: /common password|row of keys|keyboard/,
      password1234: /common password/,
      iloveyou1234: /common password/,
    };
    for (const [password, why] of Object.entries(refused)) {
      const problem = await policy.problem(password, []);
      expect(problem, password).toMatch(/^is too easy to guess \(/);
      expect(problem, password).toMatch(why);
    }
  });

  it("refuses a password made of the account's own email or name", async () => {
    expect(await policy.problem('ada.lovelace@example.com', [])).toBeNull();
    expect(await policy.problem('ada.lovelace@example.com', ['ada.lovelace@example.com', 'Ada Lovelace'])).toMatch(/own email or name/);
  });

  it('accepts a passphrase of unrelated words and a random password', async () => {
    for (const password of ['correct horse battery', 'k3Jd9-fQ2!xLm', 'a long admin password']) {
      expect(await policy.problem(password, ['admin@example.com', 'Admin']), password).toBeNull();
    }
  });
});
