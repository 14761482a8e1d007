import type { Clock } from '../../src/domain/index.js';

/**
 * Real time, plus what a test moved it on by: a server given it sees its tokens expire while the
 * browser, on the real clock, still holds them, so an expiry costs no waiting.
 */
export class AheadClock implements Clock {
  #aheadMs = 0;
  now(): Date {
    return new Date(Date.now() + this.#aheadMs);
  }
  advance(ms: number): void {
    this.#aheadMs += ms;
  }
}
