import { describe, expect, it } from 'vitest';
import { compareUtf8 } from './text.js';

const utf8 = new TextEncoder();
/** The rule itself: the order of the strings' UTF-8 bytes. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(utf8.encode(a)), Buffer.from(utf8.encode(b)));

describe('compareUtf8', () => {
  it('orders as the UTF-8 bytes do: ASCII, U+E000–U+FFFF before astral code points, unpaired surrogates as U+FFFD', () => {
    const samples = [
      '',
      'a',
      'B',
      'ab',
      'é',
      'É',
      'ß',
      '\ue000',
      'ｚ',
      '\uffff',
      '\ufffd',
      '😀',
      '😀a',
      '\ud83d',
      '\ud83da',
      '\ude00',
      'a\ud83d',
      'z😀',
      'z\uff5a',
    ];
    for (const a of samples) {
      for (const b of samples) expect([a, b, Math.sign(compareUtf8(a, b))]).toEqual([a, b, byBytes(a, b)]);
    }
  });

  it('agrees with the byte order on random strings of BMP, astral and surrogate code units', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const units = [0x61, 0x62, 0xe9, 0x7ff, 0x800, 0xd7ff, 0xd83d, 0xde00, 0xdfff, 0xe000, 0xff5a, 0xffff];
    const random = () =>
      String.fromCharCode(...Array.from({ length: Math.floor(next() * 4) }, () => units[Math.floor(next() * units.length)]!));
    for (let i = 0; i < 5000; i += 1) {
      const a = random();
      const b = random();
      expect(Math.sign(compareUtf8(a, b))).toBe(byBytes(a, b));
    }
  });
});
