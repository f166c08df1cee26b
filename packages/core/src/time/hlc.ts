/**
 * The hybrid logical clock: physical milliseconds plus a counter, so that
 * `now()` is strictly increasing even when the physical clock goes back, and
 * `observe()` moves past any time seen from elsewhere (docs/contract.md §2).
 */
import type { Clock } from './clock.js';

/** A hybrid logical timestamp. */
export interface Hlc {
  /** Unix milliseconds. */
  readonly wall: number;
  /** Logical counter within `wall`, 0…65535. */
  readonly counter: number;
}

/** Largest counter value; one more rolls into the next millisecond. */
export const HLC_MAX_COUNTER = 0xffff;

/** The zero timestamp, earlier than any real one. */
export const HLC_ZERO: Hlc = Object.freeze({ wall: 0, counter: 0 });

/** Orders two timestamps: by wall, then counter. */
export function compareHlc(a: Hlc, b: Hlc): number {
  return a.wall - b.wall || a.counter - b.counter;
}

/** The later of two timestamps. */
export function maxHlc(a: Hlc, b: Hlc): Hlc {
  return compareHlc(a, b) >= 0 ? a : b;
}

/** A hybrid logical clock over an injected physical clock. */
export class HybridLogicalClock {
  #last: Hlc = HLC_ZERO;

  constructor(private readonly clock: Clock) {}

  /** Issues a timestamp strictly later than every one issued or observed. */
  now(): Hlc {
    const physical = this.clock.now();
    this.#last = physical > this.#last.wall ? { wall: physical, counter: 0 } : successor(this.#last);
    return this.#last;
  }

  /** Moves the clock past `remote` without issuing a timestamp. */
  observe(remote: Hlc): void {
    if (compareHlc(remote, this.#last) > 0) this.#last = { wall: remote.wall, counter: remote.counter };
  }
}

function successor(t: Hlc): Hlc {
  return t.counter >= HLC_MAX_COUNTER ? { wall: t.wall + 1, counter: 0 } : { wall: t.wall, counter: t.counter + 1 };
}
