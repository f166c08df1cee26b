/**
 * The in-memory {@link StateBackend}: an {@link InMemoryState} folded from a
 * {@link Log}. Append and project happen with nothing else in between: the
 * engine runs one mutation at a time, and projecting is synchronous. There
 * is no COMMIT to wait for: a committed change is final at once, so a
 * savepoint has nothing to undo as long as a mutation commits only after
 * deciding (and validating) all of its changes, which the engine does.
 */
import { ConflictError, UnavailableError } from '../errors.js';
import { EventTypes, STATE_SCHEMA_VERSION, STATE_STREAM, type StateChange, type StateChangeOf } from '../log/events.js';
import type { AppendInput, EventMeta, Log, LogEvent, StoredSnapshot } from '../log/log.js';
import { InMemoryLog } from '../log/in-memory-log.js';
import { dropSnapshots, rewriteEventPayload, snapshotRows, storeSnapshotRows, trustedAppend, trustedRead } from '../log/trusted.js';
import { storedPayload } from '../log/compact.js';
import { changeRecordIds } from '../log/changes.js';
import { decodeStateEvent } from '../log/decode.js';
import { eraseEvents, eraseOperationHeads, holdersIn } from '../log/erasure.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { chunkStream, ofOtherFormat } from '../snapshot/chunks.js';
import { type SnapshotCodec, plainCodec } from '../snapshot/codecs.js';
import { type SnapshotErasure, patchSnapshots } from '../snapshot/patch.js';
import type { Awaitable, ReceivedEvent, StateBackend, StateQueries, StateWriteTx, TurnVectorQuery, VectorQuery } from '../write/backend.js';
import type { MemoryItem, Turn } from '../records/records.js';
import { purgeableIn } from './purgeable.js';
import { inMemoryQueries } from './queries.js';
import { InMemoryState } from '../fold/state.js';
import { entryFor } from '../map-entry.js';
import { InMemoryEmbeddingCache, type InMemoryVectorStore, memoryVectors, turnVectors } from './vectors.js';

/** A backend whose read model lives in process memory. */
export class InMemoryBackend implements StateBackend {
  readonly name = 'in-memory';
  readonly queries: StateQueries;
  readonly vectors: InMemoryVectorStore<MemoryItem, VectorQuery>;
  readonly turnVectors: InMemoryVectorStore<Turn, TurnVectorQuery>;

  constructor(
    readonly log: Log,
    readonly state: InMemoryState = new InMemoryState(),
    /** The provider's snapshot codec: a purge opens and seals the snapshots it patches with it (plain when absent). */
    private readonly snapshotCodec: SnapshotCodec = plainCodec,
  ) {
    // The history index is read from the log, which holds every event, when first asked for and caught up on
    // each query after: the write path does not build it (an empty state's index is deferred for good).
    state.deferHistory();
    this.queries = {
      ...inMemoryQueries(state),
      recordSeqs: async (id) => (await this.#historyBefore(id)).concat(state.history.get(id) ?? []),
      // By text: the records holding it now, and those an earlier event shows holding it.
      purgeable: async (selector) =>
        purgeableIn(state, selector, 'matching' in selector ? holdersIn(await this.log.read({ stream: STATE_STREAM }), selector.matching) : undefined),
    };
    // One cache for both targets: a text embedded for a memory item serves a turn with the same text.
    const cache = new InMemoryEmbeddingCache();
    this.#cache = cache;
    this.vectors = memoryVectors(state, cache);
    this.turnVectors = turnVectors(state, cache);
    this.#tx = {
      ...this.queries,
      commit: (change, meta) => this.#commit(change, meta),
      receive: (batch) => this.#receive(batch),
      append: async (inputs) => {
        for (const input of inputs) await this.log.append(input);
      },
      savepoint: (fn) => fn(),
    };
  }

  readonly #tx: StateWriteTx;
  readonly #cache: InMemoryEmbeddingCache;
  /** The history index of the events up to `#earlySeq`, read from the log. */
  readonly #earlyHistory = new Map<string, number[]>();
  #earlySeq = 0;
  /** The running catch-up of {@link #earlyHistory}, so concurrent queries read each event once. */
  #catchingUp: Promise<void> | undefined;

  /** The seqs of `id` among the events before `state.historyFrom`, after catching the index up from the log. */
  async #historyBefore(id: string): Promise<number[]> {
    while (this.#earlySeq < this.state.historyFrom) {
      this.#catchingUp ??= this.#catchUp().finally(() => {
        this.#catchingUp = undefined;
      });
      await this.#catchingUp;
    }
    return [...(this.#earlyHistory.get(id) ?? [])];
  }

  async #catchUp(): Promise<void> {
    const upTo = this.state.historyFrom;
    const afterSeq = this.#earlySeq;
    // An InMemoryLog's own events need not be frozen on the way out: only their record ids are read.
    const events =
      this.log instanceof InMemoryLog
        ? this.log[trustedRead](STATE_STREAM, afterSeq, upTo - afterSeq)
        : await this.log.read({ stream: STATE_STREAM, afterSeq, limit: upTo - afterSeq });
    for (const event of events) {
      for (const recordId of changeRecordIds(decodeStateEvent(event, { trusted: true }))) entryFor(this.#earlyHistory, recordId, () => []).push(event.seq);
    }
    this.#earlySeq = upTo;
  }

  #inStep = false;

  write<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T> {
    // In step with the log, a write is `fn` itself: no async frame of its own, which the engine would await.
    if (!this.#inStep) return this.#firstWrite(fn);
    try {
      return fn(this.#tx);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async #firstWrite<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T> {
    // A log written by someone else would make the next seq disagree with this
    // read model; refuse before writing rather than fork history.
    const head = await this.log.head(STATE_STREAM);
    if (head !== this.state.seq) {
      throw new ConflictError(`the log's state stream is at seq ${head} but this provider has folded ${this.state.seq}: open it with replay()`);
    }
    this.#inStep = true;
    return fn(this.#tx);
  }

  /**
   * Appends and projects one change. Synchronous on an `InMemoryLog` (but for a purge's rewrite of
   * earlier events), so the engine has nothing to await; any other log's append is awaited.
   */
  #commit(
    change: StateChange,
    meta: EventMeta,
    input: AppendInput = { ...meta, stream: STATE_STREAM, type: change.type, schemaVersion: STATE_SCHEMA_VERSION, payload: storedPayload(change) },
  ): Awaitable<LogEvent> {
    // A purge rewrites stored events: only a log this package owns can.
    if (change.type === EventTypes.RecordsPurged && !(this.log instanceof InMemoryLog))
      throw new UnavailableError('purge needs a log that can rewrite its events in place: an InMemoryLog, or a SQLite or Postgres backend');
    // The stamper's payload is fresh, valid by construction and never touched again: an InMemoryLog keeps it
    // as is, unchecked. Any other log checks it as it would any append.
    if (this.log instanceof InMemoryLog) return this.#project(change, this.log[trustedAppend](input));
    return this.log.append(input).then((event) => this.#project(change, event));
  }

  /**
   * The copy of the state the last received batch was checked on, equal to the state once that batch
   * was committed: while nothing else moves the state, the next batch of a sync is checked on it
   * without copying the whole state again.
   */
  #scratch: InMemoryState | undefined;

  /**
   * Appends and folds received events. This state has no undo, so the whole batch is first
   * checked against the fold's rules on a copy of it; then each is committed as a local change is.
   */
  async #receive(batch: readonly ReceivedEvent[]): Promise<{ stored: LogEvent[]; merged: number }> {
    let scratch = this.#scratch;
    // Taken while in use: a batch the fold refuses leaves it half folded, and it is dropped.
    this.#scratch = undefined;
    if (scratch?.seq !== this.state.seq) {
      scratch = new InMemoryState();
      scratch.deferHistory();
      scratch.restore(this.state.capture());
    }
    const kept = scratch;
    // Each is committed as the scratch fold folded it: a concurrent one as its merge.
    let merged = 0;
    const onMerge = () => {
      merged += 1;
    };
    const folded = batch.map(({ change }, i) => kept.apply(change, this.state.seq + i + 1, true, onMerge));
    const stored: LogEvent[] = [];
    for (const [i, { input }] of batch.entries()) stored.push(await this.#commit(folded[i]!, {}, input));
    this.#scratch = kept;
    return { stored, merged };
  }

  /** Folds a change the log has just stored as `event` into the read model. */
  #project(change: StateChange, event: LogEvent): Awaitable<LogEvent> {
    if (event.seq !== this.state.seq + 1) {
      this.#inStep = false;
      throw new ConflictError(`the log's state stream moved to seq ${event.seq} behind this provider: open it with replay()`);
    }
    // The stamper built the change on this very state: the fold's rules hold by construction.
    this.state.apply(change, event.seq, false);
    // An update may change the content: its vector is derived again, like a new item's.
    if (change.type === EventTypes.MemoryDeleted || change.type === EventTypes.MemoryUpdated) this.vectors.forget(change.payload.item.id);
    if (change.type === EventTypes.RecordsPurged) return this.#erase(change, event.seq).then(() => event);
    return event;
  }

  /** Rewrites every earlier event that carried a purged record, and drops the vectors, cache entries and snapshots of their text. */
  async #erase(change: StateChangeOf<typeof EventTypes.RecordsPurged>, purgeSeq: number): Promise<void> {
    const log = this.log as InMemoryLog;
    const ids = new Set(changeRecordIds(change));
    const seqs = new Set<number>();
    for (const id of ids) for (const seq of await this.queries.recordSeqs(id)) if (seq < purgeSeq) seqs.add(seq);
    const events: LogEvent[] = [];
    for (const seq of [...seqs].sort((a, b) => a - b)) events.push(...(await log.read({ stream: STATE_STREAM, afterSeq: seq - 1, limit: 1 })));
    let erasure = eraseEvents(events, ids, purgeSeq);
    const heads: LogEvent[] = [];
    for (const id of erasure.batches) {
      const head = this.state.operations.get(id);
      if (head?.inputHash !== undefined) heads.push(...log[trustedRead](STATE_STREAM, head.seq - 1, 1));
    }
    erasure = eraseOperationHeads(erasure, heads);
    events.push(...heads);
    for (const { row, change: rewritten } of erasure.events) log[rewriteEventPayload](STATE_STREAM, row.seq, storedPayload(rewritten));
    this.state.dropInputHashes(erasure.operations);
    for (const item of change.payload.memory) this.vectors.forget(item.id);
    for (const turn of change.payload.turns) this.turnVectors.forget(turn.id);
    this.#cache.forget(new Set(erasure.contentHashes));
    if (erasure.firstSeq > 0) await this.#patchSnapshots(log, { ...change.payload, operations: erasure.operations }, erasure.firstSeq, events);
  }

  /** Patches (or drops) the stored snapshots at or after `firstSeq`, and drops those of earlier formats; `originals` are the rewritten events as they were. */
  async #patchSnapshots(log: InMemoryLog, purged: SnapshotErasure, firstSeq: number, originals: LogEvent[]): Promise<void> {
    const before = new Map(originals.map((event) => [event.seq, event]));
    const now = new Map<number, LogEvent>();
    const heads = log[snapshotRows](STATE_STREAM);
    for (const head of heads) if (head.seq > 0) for (const event of log[trustedRead](STATE_STREAM, head.seq - 1, 1)) now.set(event.seq, event);
    // No identity: no snapshot can be trusted, so every one at or after the rewrite is dropped.
    const identity = await log.identity().catch(() => '');
    const patch = patchSnapshots({
      heads: heads.filter((head) => head.seq >= firstSeq),
      chunk: (sha256) => log[snapshotRows](chunkStream(sha256))[0]?.data,
      purged,
      codec: this.snapshotCodec,
      identity,
      before: (seq) => before.get(seq) ?? now.get(seq),
      after: (seq) => now.get(seq),
      olderHeads: () => heads.filter((head) => head.seq < firstSeq),
    });
    // The snapshots of earlier formats go too: they cannot be patched.
    const gone = new Set(patch.drop.map(({ stream, seq }) => `${seq} ${stream}`));
    log[dropSnapshots]((row) => gone.has(`${row.seq} ${row.stream}`) || ofOtherFormat(row));
    for (const stored of patch.save) await log.saveSnapshot(stored);
  }

  maxHlc() {
    return this.state.maxHlc;
  }

  async capture(): Promise<Snapshot> {
    return this.state.capture();
  }

  async storeSnapshot(rows: readonly StoredSnapshot[], seq: number): Promise<boolean> {
    const log = this.log;
    if (log instanceof InMemoryLog) {
      // The check and the store in one synchronous step: a purge, between its event and its patch, cannot come in between.
      if (log[trustedRead](STATE_STREAM, seq, Number.MAX_SAFE_INTEGER).some((event) => event.type === EventTypes.RecordsPurged)) return false;
      log[storeSnapshotRows](rows);
      log[dropSnapshots](ofOtherFormat);
      return true;
    }
    // No purge runs on any other log (see `#commit`): the rows go one by one, a chunk stored before with the same text skipped.
    for (const row of rows) {
      if (row.seq === 0 && (await log.latestSnapshot(row.stream, { upToSeq: 0 }))?.data === row.data) continue;
      await log.saveSnapshot(row);
    }
    return true;
  }

  async close(): Promise<void> {}
}
