/**
 * The write path shared by every store (docs/architecture.md): validate → look up →
 * stamp → append → project, one mutation at a time, then best-effort
 * follow-ups (automatic snapshots, embeddings) that never fail the write.
 */
import type { StateChange } from '../log/events.js';
import type { EventMeta } from '../log/log.js';
import type { HybridLogicalClock } from '../time/hlc.js';
import type { StateBackend, StateWriteTx } from '../write/backend.js';
import { Mutex } from '../write/mutex.js';
import type { Stamper } from '../write/stamper.js';

/** Runs after each successful mutation; its failures are reported, never thrown. */
export type AfterCommit = (change: StateChange, seq: number) => Promise<void>;

/** The shared machinery behind the three stores of one provider. */
export class Engine {
  readonly #mutex = new Mutex();
  readonly #ready: Promise<void>;
  readonly #afterCommit: AfterCommit[] = [];

  constructor(
    readonly backend: StateBackend,
    readonly stamper: Stamper,
    hlc: HybridLogicalClock,
    private readonly meta: EventMeta,
    private readonly onBackgroundError: (error: unknown) => void,
  ) {
    // A reopened provider's clock starts past everything already stored.
    this.#ready = Promise.resolve(backend.maxHlc()).then((h) => hlc.observe(h));
  }

  /** Registers a follow-up to run after every committed mutation. */
  afterCommit(hook: AfterCommit): void {
    this.#afterCommit.push(hook);
  }

  /**
   * Decides and commits one change atomically. `decide` looks up what it
   * needs in the transaction and stamps; if it throws, nothing is written.
   */
  async mutate<C extends StateChange>(decide: (tx: StateWriteTx) => Promise<C> | C): Promise<C> {
    return (await this.mutateIfNeeded(decide)) as C;
  }

  /**
   * As {@link mutate}, but `decide` may find there is nothing to change and
   * return `undefined`: then no event is written and `undefined` is returned.
   */
  async mutateIfNeeded<C extends StateChange>(decide: (tx: StateWriteTx) => Promise<C | undefined> | C | undefined): Promise<C | undefined> {
    await this.#ready;
    const decided = await this.#mutex.run(() =>
      this.backend.write(async (tx) => {
        const change = await decide(tx);
        if (change === undefined) return undefined;
        const event = await tx.commit(change, this.meta);
        return { change, seq: event.seq };
      }),
    );
    if (decided === undefined) return undefined;
    const { change, seq } = decided;
    for (const hook of this.#afterCommit) {
      try {
        await hook(change, seq);
      } catch (error) {
        this.onBackgroundError(error);
      }
    }
    return change;
  }

  /** Waits until the clock has observed stored state; reads need not. */
  ready(): Promise<void> {
    return this.#ready;
  }
}
