import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { passwordProblem, type PasswordPolicy } from '../../domain/index.js';

/** zxcvbn's score at or above which a password is accepted: about 10^8 guesses or more. */
const MIN_SCORE = 3;

/** What each of zxcvbn's warnings means, in our words (its English package is 1.2 MB). */
const WARNINGS: Record<string, string> = {
  straightRow: 'a row of keys',
  keyPattern: 'a keyboard pattern',
  simpleRepeat: 'repeated characters',
  extendedRepeat: 'a repeated pattern',
  sequences: 'a sequence such as abc or 123',
  recentYears: 'a recent year',
  dates: 'a date',
  topTen: 'one of the most common passwords',
  topHundred: 'a very common password',
  common: 'a common password',
  similarToCommon: 'close to a common password',
  wordByItself: 'a single word',
  namesByThemselves: 'a name',
  commonNames: 'a common name',
  userInputs: "the account's own email or name",
  pwned: 'a password known from data breaches',
};

/**
 * A module's exports whether Node gave them by name or, as esbuild's bundle does for these
 * packages' CommonJS builds, as `default`; throws rather than checking passwords without `name`.
 */
function exportsOf<T extends object>(module: T, name: keyof T): T {
  if (module[name] !== undefined) return module;
  const fallback = (module as { default?: T }).default;
  if (fallback?.[name] !== undefined) return fallback;
  throw new Error(`zxcvbn-ts: ${String(name)} is missing from the module`);
}

/**
 * The password policy with zxcvbn-ts (its common-passwords, names and words dictionaries, keyboard
 * patterns, repeats, sequences, dates, l33t). The library and its dictionaries are imported on
 * the first check, never at start-up: only setting a password needs them (the bundle keeps them
 * in a chunk of their own), and building the matcher takes a noticeable fraction of a second.
 */
export function createZxcvbnPasswordPolicy(): PasswordPolicy {
  let factory: Promise<ZxcvbnFactory> | undefined;
  const load = () =>
    (factory ??= Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]).then(([coreModule, commonModule]) => {
      const core = exportsOf(coreModule, 'ZxcvbnFactory');
      const common = exportsOf(commonModule, 'dictionary');
      return new core.ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
    }));
  return {
    async problem(password, context) {
      const length = passwordProblem(password);
      if (length !== null) return length;
      const result = (await load()).check(password, [...context]);
      if (result.score >= MIN_SCORE) return null;
      const why = WARNINGS[result.feedback.warning ?? ''] ?? 'a pattern that is quick to guess';
      return `is too easy to guess (${why}); a few unrelated words make a strong one`;
    },
  };
}
