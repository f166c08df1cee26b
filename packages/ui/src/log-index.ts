/**
 * What the health view needs from the whole log that no provider call
 * answers: the number of events of each type. Built by one pass over the
 * log on first use, then kept up to date by reading only the events after
 * the last one seen, so a store of a million events is scanned once per
 * server, not once per request, and never before the page asks for it.
 */
import type { Log } from '@agentstate/core';
import { STATE_STREAM } from '@agentstate/core';

const BATCH = 5_000;

/** An index of the `state` stream, advanced on demand. */
export class LogIndex {
  readonly #log: Log;
  readonly #types = new Map<string, number>();
  #seen = 0;
  #advancing: Promise<void> = Promise.resolve();

  constructor(log: Log) {
    this.#log = log;
  }

  /** The seq of the last event counted. */
  get seen(): number {
    return this.#seen;
  }

  /** Reads the events after the last one seen; concurrent callers share one pass. */
  advance(): Promise<void> {
    // A failed pass leaves the index where it was; the next call retries.
    const next = this.#advancing.then(
      () => this.#readNew(),
      () => this.#readNew(),
    );
    this.#advancing = next;
    return next;
  }

  async #readNew(): Promise<void> {
    for (;;) {
      const batch = await this.#log.read({ stream: STATE_STREAM, afterSeq: this.#seen, limit: BATCH });
      if (batch.length === 0) return;
      for (const event of batch) this.#types.set(event.type, (this.#types.get(event.type) ?? 0) + 1);
      this.#seen = batch[batch.length - 1]!.seq;
    }
  }

  /** Events by type, as of the last {@link advance}. */
  countsByType(): Record<string, number> {
    return Object.fromEntries([...this.#types].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}
