/**
 * Physical clocks. Domain code never calls `Date.now()`: it is handed a
 * {@link Clock}, so tests and replays can pin time.
 */

/** A source of Unix time in milliseconds. */
export interface Clock {
  /** Current Unix time in whole milliseconds. */
  now(): number;
}

/** The machine's wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to; for tests and deterministic runs. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.#ms = Math.trunc(startMs);
  }

  now(): number {
    return this.#ms;
  }

  /** Moves the clock by `ms` (may be negative, to model a clock set back). */
  advance(ms: number): void {
    this.#ms += Math.trunc(ms);
  }

  /** Sets the clock to an absolute Unix time in ms. */
  set(ms: number): void {
    this.#ms = Math.trunc(ms);
  }
}
