/**
 * The write path shared by every store (docs/architecture.md): validate → look up →
 * stamp → append → project, one mutation at a time, then best-effort
 * follow-ups (automatic snapshots, embeddings) that never fail the write.
 */
import { ConflictError, CorruptionError } from '../errors.js';
import { decodeStateEvent } from '../log/decode.js';
import type { StateChange } from '../log/events.js';
import { STATE_STREAM } from '../log/events.js';
import type { EventMeta } from '../log/log.js';
import type { OperationEntry, OperationRef } from '../log/operation.js';
import { operationInputHash } from '../log/operation.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import type { OperationCall, OperationSpec } from './operations.js';
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
    private readonly upcasters?: UpcasterRegistry,
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
   *
   * With a `call` that names an `operationId`, the write is idempotent: the
   * look-up of that id runs in the same transaction (so a retry from
   * another process, or after a restart, sees it). Unused: the change is
   * committed carrying `operation: { id, inputHash }`. Used with the same
   * input hash: the original change is read back from its event and
   * returned, nothing is appended and no follow-up runs. Used with another:
   * `ConflictError`.
   */
  async mutate<C extends StateChange>(decide: (tx: StateWriteTx) => Promise<C> | C, call?: OperationCall): Promise<C> {
    return (await this.mutateIfNeeded(decide, call)) as C;
  }

  /**
   * As {@link mutate}, but `decide` may find there is nothing to change and
   * return `undefined`: then no event is written (and no operation recorded)
   * and `undefined` is returned. `committed` learns the seq of the event written.
   */
  async mutateIfNeeded<C extends StateChange>(
    decide: (tx: StateWriteTx) => Promise<C | undefined> | C | undefined,
    call?: OperationCall,
    committed?: (event: { seq: number }) => void,
  ): Promise<C | undefined> {
    await this.#ready;
    const operation: OperationRef | undefined =
      call?.operationId === undefined ? undefined : { id: call.operationId, inputHash: operationInputHash(call.spec.method, call.input) };
    const outcome = await this.#mutex.run(() =>
      this.backend.write(async (tx) => {
        if (call && operation) {
          const earlier = await tx.operation(operation.id);
          if (earlier) return { change: await this.#original<C>(earlier, operation, call.spec), seq: earlier.seq, replayed: true };
        }
        const decided = await decide(tx);
        if (decided === undefined) return undefined;
        const change = operation ? ({ ...decided, payload: { ...decided.payload, operation } } as C) : decided;
        const event = await tx.commit(change, this.meta);
        return { change, seq: event.seq, replayed: false };
      }),
    );
    if (outcome === undefined) return undefined;
    if (outcome.replayed) return outcome.change;
    committed?.({ seq: outcome.seq });
    for (const hook of this.#afterCommit) {
      try {
        await hook(outcome.change, outcome.seq);
      } catch (error) {
        this.onBackgroundError(error);
      }
    }
    return outcome.change;
  }

  /** The change an operation's first call committed, for its retry; `ConflictError` when the input differs. */
  async #original<C extends StateChange>(earlier: OperationEntry, operation: OperationRef, spec: OperationSpec): Promise<C> {
    if (earlier.inputHash !== operation.inputHash) {
      throw new ConflictError(`operation id ${JSON.stringify(operation.id)} was already used with another input or method (the event at seq ${earlier.seq})`);
    }
    const [event] = await this.backend.log.read({ stream: STATE_STREAM, afterSeq: earlier.seq - 1, limit: 1 });
    if (event?.seq !== earlier.seq) throw new CorruptionError(STATE_STREAM, earlier.seq, `the event of operation ${JSON.stringify(operation.id)} is missing`);
    const change = decodeStateEvent(event, this.upcasters ? { upcasters: this.upcasters } : {});
    if (change.payload.operation?.id !== operation.id || !spec.types.includes(change.type)) {
      throw new CorruptionError(
        STATE_STREAM,
        earlier.seq,
        `the event indexed for operation ${JSON.stringify(operation.id)} is a ${change.type} that ${spec.method} does not write`,
      );
    }
    return change as C;
  }

  /** Waits until the clock has observed stored state; reads need not. */
  ready(): Promise<void> {
    return this.#ready;
  }
}
