/**
 * The write path shared by every store (docs/architecture.md): validate → look up →
 * stamp → append → project, one mutation at a time, then best-effort
 * follow-ups (automatic snapshots, embeddings) that never fail the write.
 *
 * Group commit: while one write transaction is in flight, further mutations
 * queue; the next transaction takes every queued one, each in its own
 * savepoint (so one that fails is undone and rejects alone), in arrival
 * order, and every promise settles only after the shared COMMIT. One fsync
 * then serves many callers, and seqs stay dense and in commit order.
 */
import { CorruptionError, OperationConflictError } from '../errors.js';
import { decodeStateEvent } from '../log/decode.js';
import { type StateChange, STATE_STREAM } from '../log/events.js';
import type { EventMeta, LogEvent } from '../log/log.js';
import { type OperationEntry, type OperationRef, operationInputHash } from '../log/operation.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import type { OperationCall, OperationSpec } from './operations.js';
import type { HybridLogicalClock } from '../time/hlc.js';
import type { Awaitable, StateBackend, StateWriteTx } from '../write/backend.js';
import type { Stamper } from '../write/stamper.js';
import { isPromiseLike } from '../write/awaitable.js';

/**
 * Runs once after each successful mutation with every change it committed
 * and their seqs, in order (a batch write is one call); its failures are
 * reported, never thrown.
 */
export type AfterCommit = (changes: readonly StateChange[], seqs: readonly number[]) => Promise<void>;

/** What one mutation committed (or, for a retry of an operation, committed earlier). */
interface Outcome<C> {
  changes: C[];
  /** Each change's event, or its seq: read once the write resolved, as a backend may settle it only then (`StateWriteTx.commit`). */
  placed: { readonly seq: number }[];
  replayed: boolean;
  /** The operation id the changes were committed under, if any. */
  operationId?: string;
}

/**
 * The changes committed so far in the running transaction, by operation id:
 * a retry queued in the same group is answered from here, as the log may
 * not show events before their COMMIT to other connections.
 */
type InFlight = Map<string, StateChange[]>;

/** The in-flight changes of a mutation that runs alone: none, and nothing adds any. */
const NO_IN_FLIGHT: ReadonlyMap<string, StateChange[]> = new Map();

/** A queued mutation: what it runs in the transaction, and how its caller hears back. */
interface Job {
  run(tx: StateWriteTx, inFlight: ReadonlyMap<string, StateChange[]>): Promise<Outcome<StateChange>>;
  resolve(outcome: Outcome<StateChange>): void;
  reject(error: unknown): void;
  /** Runs in a transaction of its own: what it reads outside the transaction holds no other job's uncommitted writes. */
  alone?: boolean;
}

/** Microtask turns the queue waits at most, after a group, for that group's callers to queue again. */
const GATHER_TURNS = 64;

/** The shared machinery behind the stores of one provider. */
export class Engine {
  readonly #ready: Promise<void>;
  /** Set once {@link #ready} has resolved, so a write need not wait a microtask turn for it. */
  #isReady = false;
  readonly #afterCommit: AfterCommit[] = [];
  readonly #queue: Job[] = [];
  #draining = false;
  /** How many mutations the last transaction ran: more than one means concurrent callers, worth waiting for. */
  #lastGroup = 0;

  constructor(
    readonly backend: StateBackend,
    readonly stamper: Stamper,
    hlc: HybridLogicalClock,
    /** What each event it writes carries besides its change: a receive's own events carry it too. */
    readonly meta: EventMeta,
    private readonly onBackgroundError: (error: unknown) => void,
    private readonly upcasters?: UpcasterRegistry,
  ) {
    // A reopened provider's clock starts past everything already stored.
    this.#ready = Promise.resolve(backend.maxHlc()).then((h) => {
      hlc.observe(h);
      this.#isReady = true;
    });
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
   * returned, nothing is appended and no follow-up runs. Used with another,
   * or with none left (a purge dropped it): `OperationConflictError` (a
   * `ConflictError` that is not retryable).
   */
  mutate<C extends StateChange>(decide: (tx: StateWriteTx) => Awaitable<C>, call?: OperationCall): Promise<C> {
    return this.#mutate(decide, true, call, 1, undefined) as Promise<C>;
  }

  /**
   * As {@link mutate}, but `decide` may find there is nothing to change and
   * return `undefined`: then no event is written (and no operation recorded)
   * and `undefined` is returned. `committed` learns the seq of the event written.
   */
  mutateIfNeeded<C extends StateChange>(
    decide: (tx: StateWriteTx) => Awaitable<C | undefined>,
    call?: OperationCall,
    committed?: (event: { seq: number }) => void,
  ): Promise<C | undefined> {
    const onSeqs = committed && ((seqs: readonly number[]) => (seqs.length > 0 ? committed({ seq: seqs[0]! }) : undefined));
    return this.#mutate(decide, true, call, 1, onSeqs) as Promise<C | undefined>;
  }

  /**
   * As {@link mutate}, for a mutation that is several changes, each its own
   * event at consecutive seqs, committed in one transaction: `decide` stamps
   * them all before any is committed, so if it throws nothing is written.
   * An `operationId` is carried by the first event (the later ones name it
   * without the hash); a retry reads back
   * `expected` events from it (the count the same input always yields).
   * No change: nothing is written and `[]` is returned.
   */
  mutateMany<C extends StateChange>(
    decide: (tx: StateWriteTx) => Awaitable<C[]>,
    call?: OperationCall,
    expected = 1,
    committed?: (seqs: readonly number[]) => void,
  ): Promise<C[]> {
    return this.#mutate(decide, false, call, expected, committed) as Promise<C[]>;
  }

  /**
   * The one async frame behind the three above: each extra frame, and each
   * `await` of a value that is not a promise (the in-memory backend's
   * look-ups and commits), costs a microtask turn and a few hundred bytes of
   * garbage, which on the in-memory backend is most of an append's cost.
   * `single`: `decide` returns one change or `undefined`, and so does this.
   */
  async #mutate(
    decide: (tx: StateWriteTx) => Awaitable<StateChange | StateChange[] | undefined>,
    single: boolean,
    call: OperationCall | undefined,
    expected: number,
    committed: ((seqs: readonly number[]) => void) | undefined,
  ): Promise<StateChange | StateChange[] | undefined> {
    if (!this.#isReady) await this.#ready;
    const operation: OperationRef | undefined =
      call?.operationId === undefined ? undefined : { id: call.operationId, inputHash: operationInputHash(call.spec.method, call.input) };
    const run: Job['run'] = async (tx, inFlight) => {
      if (call && operation) {
        const earlier = await tx.operation(operation.id);
        if (earlier) {
          checkSameInput(earlier, operation);
          const changes = inFlight.get(operation.id) ?? (await this.#original(tx, earlier, operation, call.spec, expected));
          return { changes, placed: [], replayed: true };
        }
      }
      const pending = decide(tx);
      const decided = isPromiseLike(pending) ? await pending : pending;
      const list = single ? (decided === undefined ? [] : [decided as StateChange]) : (decided as StateChange[]);
      // A batch's later events name the operation too, without the hash: a purge of one of their records finds,
      // through the id, the first event, whose hash covers that record's text, and drops the hash.
      const changes = operation
        ? list.map((change, i) => ({ ...change, payload: { ...change.payload, operation: i === 0 ? operation : { id: operation.id } } }) as StateChange)
        : list;
      const placed: LogEvent[] = [];
      for (const change of changes) {
        const event = tx.commit(change, this.meta);
        placed.push(isPromiseLike(event) ? await event : event);
      }
      return operation && changes.length > 0 ? { changes, placed, replayed: false, operationId: operation.id } : { changes, placed, replayed: false };
    };
    let outcome: Outcome<StateChange>;
    // After a group, its callers come back one by one: the queue gathers them into the next group (#drain).
    if (this.#draining || this.#lastGroup > 1) outcome = await this.#enqueue(run);
    else {
      // Nothing queued or running, and the last transaction ran alone, so nobody waits to share this one: it runs at
      // once, without a queue entry and a promise of its own. Mutations queued meanwhile are drained after it.
      this.#draining = true;
      this.#lastGroup = 1;
      try {
        outcome = await this.backend.write((tx) => run(tx, NO_IN_FLIGHT));
      } finally {
        this.#draining = false;
        if (this.#queue.length > 0) void this.#drain();
      }
    }
    const changes = outcome.changes;
    if (!outcome.replayed) {
      const seqs = outcome.placed.map((event) => event.seq);
      committed?.(seqs);
      await this.#followUp(changes, seqs);
    }
    return single ? changes[0] : changes;
  }

  /**
   * Runs `fn` in a write transaction of its own, queued with the mutations, for changes that do
   * not come from the stamper (a sync's received events, docs/contract.md §12): its reads of
   * the log see every write before it, committed. The follow-ups run for the changes it reports.
   */
  async transact<T>(fn: (tx: StateWriteTx) => Promise<{ result: T; changes: StateChange[]; seqs: number[] }>): Promise<T> {
    if (!this.#isReady) await this.#ready;
    let result: T | undefined;
    const outcome = await this.#enqueue(async (tx) => {
      const done = await fn(tx);
      result = done.result;
      return { changes: done.changes, placed: done.seqs.map((seq) => ({ seq })), replayed: false };
    }, true);
    await this.#followUp(
      outcome.changes,
      outcome.placed.map((event) => event.seq),
    );
    return result as T;
  }

  /** Runs the follow-ups of committed changes; their failures are reported, never thrown. */
  async #followUp(changes: readonly StateChange[], seqs: readonly number[]): Promise<void> {
    if (changes.length === 0) return;
    for (const hook of this.#afterCommit) {
      try {
        await hook(changes, seqs);
      } catch (error) {
        this.onBackgroundError(error);
      }
    }
  }

  /** Queues a mutation; it settles after the COMMIT of the transaction that ran it. */
  #enqueue(run: Job['run'], alone = false): Promise<Outcome<StateChange>> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ run, resolve, reject, alone });
      if (!this.#draining) void this.#drain();
    });
  }

  /** Runs queued mutations, every one queued so far per transaction, until none is left. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#queue.length > 0) {
        // The callers a group just answered come back one by one, each after a few awaits of its own: letting
        // them queue (a bounded number of microtask turns, no timer a test could freeze) makes them share the next
        // transaction instead of the first running alone and the rest after it (a group of 1, then of n - 1, …).
        for (let turn = 0; turn < GATHER_TURNS && this.#queue.length < this.#lastGroup; turn += 1) await undefined;
        const alone = this.#queue.findIndex((job) => job.alone);
        const jobs = this.#queue.splice(0, alone === 0 ? 1 : alone > 0 ? alone : this.#queue.length);
        this.#lastGroup = jobs.length;
        // Alone, a mutation needs no savepoint: if it fails, the whole transaction is undone anyway.
        if (jobs.length === 1) await this.#runAlone(jobs[0]!);
        else await this.#runGroup(jobs);
      }
    } finally {
      this.#draining = false;
    }
  }

  async #runAlone(job: Job): Promise<void> {
    try {
      job.resolve(await this.backend.write((tx) => job.run(tx, NO_IN_FLIGHT)));
    } catch (error) {
      job.reject(error);
    }
  }

  async #runGroup(jobs: Job[]): Promise<void> {
    const settled: Array<{ ok: true; outcome: Outcome<StateChange> } | { ok: false; error: unknown }> = [];
    try {
      await this.backend.write(async (tx) => {
        // A backend may run this again whole after a collision with another writer (PostgreSQL): start afresh.
        settled.length = 0;
        const inFlight: InFlight = new Map();
        for (const job of jobs) {
          try {
            const outcome = await tx.savepoint(() => job.run(tx, inFlight));
            if (outcome.operationId !== undefined && !outcome.replayed) inFlight.set(outcome.operationId, outcome.changes);
            settled.push({ ok: true, outcome });
          } catch (error) {
            settled.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // Nothing of the group was kept: each fails with its own error, or else with the transaction's.
      jobs.forEach((job, i) => {
        const own = settled[i];
        job.reject(own && !own.ok ? own.error : error);
      });
      return;
    }
    jobs.forEach((job, i) => {
      const own = settled[i]!;
      if (own.ok) job.resolve(own.outcome);
      else job.reject(own.error);
    });
  }

  /**
   * The `count` changes an operation's first call committed (from the event
   * at `earlier.seq` on), for its retry.
   */
  async #original(tx: StateWriteTx, earlier: OperationEntry, operation: OperationRef, spec: OperationSpec, count: number): Promise<StateChange[]> {
    const log = this.backend.log;
    const read = (afterSeq: number, limit: number): Promise<LogEvent[]> =>
      tx.readState ? tx.readState(afterSeq, limit) : log.read({ stream: STATE_STREAM, afterSeq, limit });
    const decode = (event: LogEvent): StateChange => decodeStateEvent(event, this.upcasters ? { upcasters: this.upcasters } : {});
    let events = await read(earlier.seq - 1, count);
    if (log.gapped === true && events[0]?.seq === earlier.seq) {
      // Other writers' events may lie between a batch's (docs/contract.md §7, "Positions"): its later ones are
      // those after the first that name its operation, read until there are `count`.
      events = [events[0]];
      for (let after = earlier.seq; events.length < count; ) {
        const batch = await read(after, 256);
        if (batch.length === 0) break;
        for (const event of batch) if (events.length < count && decode(event).payload.operation?.id === operation.id) events.push(event);
        after = batch[batch.length - 1]!.seq;
      }
    }
    if (events[0]?.seq !== earlier.seq || events.length !== count) {
      throw new CorruptionError(STATE_STREAM, earlier.seq, `the events of operation ${JSON.stringify(operation.id)} are missing`);
    }
    return events.map((event, i) => {
      const change = decode(event);
      if ((i === 0 && change.payload.operation?.id !== operation.id) || !spec.types.includes(change.type)) {
        throw new CorruptionError(
          STATE_STREAM,
          event.seq,
          `the event indexed for operation ${JSON.stringify(operation.id)} is a ${change.type} that ${spec.method} does not write`,
        );
      }
      return change;
    });
  }
}

function checkSameInput(earlier: OperationEntry, operation: OperationRef): void {
  if (earlier.inputHash === undefined) {
    throw new OperationConflictError(
      `operation id ${JSON.stringify(operation.id)} names a write a purge erased (the event at seq ${earlier.seq}): its input can no longer be compared`,
    );
  }
  if (earlier.inputHash !== operation.inputHash) {
    throw new OperationConflictError(
      `operation id ${JSON.stringify(operation.id)} was already used with another input or method (the event at seq ${earlier.seq})`,
    );
  }
}
