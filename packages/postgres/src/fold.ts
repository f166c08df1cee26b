/**
 * Folding the `state` stream into the tables: the events a bare log append
 * wrote, in its transaction, and the whole log when the derived part is made
 * again (on open or by a rebuild). Every event goes through core's fold rules (`checkChange`),
 * checked against a view of the tables plus the records still pending, so
 * a log the live API could not have written is refused with a
 * `CorruptionError` naming its seq. The rules are synchronous and the
 * tables are not: the view answers from what it has fetched, and a question
 * it cannot answer yet throws a {@link Miss}, which the fold fetches before
 * checking the event again (the check only reads, so repeating it is safe).
 */
import type { Checkpoint, MemoryItem, OperationEntry, Scope, Session, Skill, Turn, UpcasterRegistry } from '@agentstate/core';
import type { ChangeRecord, CheckpointKey, FoldView } from '@agentstate/core/backend';
import { CorruptionError, decodeStateEvent, sessionAfterTurn, STATE_STREAM } from '@agentstate/core';
import { changeRecords, checkChange, describeError, operationEntry, scopeKey } from '@agentstate/core/backend';
import type { Sql } from './database.js';
import type { PostgresLog } from './log.js';
import type { TableLookups } from './lookups.js';
import type { Projection } from './projection.js';

/** Events read per batch; pending records are written after each. */
export const FOLD_BATCH = 1_000;

/** A question the view must fetch the answer to first. */
class Miss {
  constructor(readonly fetch: () => Promise<void>) {}
}

const placeKey = (scope: Scope, name: string): string => `${scopeKey(scope)}\u0000${name}`;
const checkpointKey = (key: CheckpointKey): string => `${key.threadId}\u0000${key.namespace}\u0000${key.checkpointId}`;

/** The entries of checkpoint events: written as they are folded, not held (see {@link FetchingView.putCheckpoint}). */
type CheckpointEntry = Extract<ChangeRecord, { kind: 'checkpoint' | 'checkpointWrite' | 'checkpointThreadDeletion' }>;
/** The entries held until a flush. */
type TableEntry = Exclude<ChangeRecord, CheckpointEntry>;

function isCheckpointEntry(entry: ChangeRecord): entry is CheckpointEntry {
  return entry.kind === 'checkpoint' || entry.kind === 'checkpointWrite' || entry.kind === 'checkpointThreadDeletion';
}

/** What the rules see: the tables as fetched so far, overlaid with the records folded but not written. */
class FetchingView implements FoldView {
  readonly #sessions = new Map<string, Session | undefined>();
  readonly #turnExists = new Map<string, boolean>();
  readonly #turnsById = new Map<string, Turn | undefined>();
  readonly #lastTurnSeq = new Map<string, number>();
  /** Turns of a session by seq, once fetched whole (live ones; pending tombstones replace them). */
  readonly #turns = new Map<string, Map<number, Turn>>();
  readonly #skills = new Map<string, Skill | undefined>();
  readonly #skillIds = new Map<string, string | undefined>();
  readonly #memory = new Map<string, MemoryItem | undefined>();
  readonly #memoryKeys = new Map<string, string | undefined>();
  readonly #operations = new Map<string, OperationEntry | undefined>();
  readonly #checkpoints = new Map<string, Checkpoint | undefined>();
  readonly #checkpointWrites = new Map<string, boolean>();
  readonly #checkpointThreads = new Map<string, boolean>();
  /** Records to write, by kind and id, with the seq of their latest post-image. */
  readonly pending = new Map<string, { entry: TableEntry; seq: number }>();
  readonly pendingOperations: OperationEntry[] = [];

  constructor(private readonly tables: TableLookups) {}

  #cached<K, V>(map: Map<K, V>, key: K, load: () => Promise<V>): V {
    if (map.has(key)) return map.get(key) as V;
    throw new Miss(async () => {
      map.set(key, await load());
    });
  }

  session(id: string): Session | undefined {
    return this.#cached(this.#sessions, id, () => this.tables.session(id));
  }

  lastTurnSeq(sessionId: string): number {
    return this.#cached(this.#lastTurnSeq, sessionId, () => this.tables.lastTurnSeq(sessionId));
  }

  turnExists(id: string): boolean {
    return this.#cached(this.#turnExists, id, () => this.tables.turnExists(id));
  }

  turn(id: string): Turn | undefined {
    return this.#cached(this.#turnsById, id, () => this.tables.turn(id));
  }

  liveTurnsFrom(sessionId: string, fromSeq: number): Turn[] {
    const turns = this.#cached(this.#turns, sessionId, async () => new Map((await this.tables.liveTurnsFrom(sessionId, 0)).map((t) => [t.seq, t])));
    return [...turns.values()].filter((t) => t.seq >= fromSeq && !t.deleted).sort((a, b) => a.seq - b.seq);
  }

  skill(id: string): Skill | undefined {
    return this.#cached(this.#skills, id, () => this.tables.skill(id));
  }

  skillIdAt(scope: Scope, slug: string): string | undefined {
    return this.#cached(this.#skillIds, placeKey(scope, slug), async () => (await this.tables.skillAt(scope, slug))?.id);
  }

  memoryItem(id: string): MemoryItem | undefined {
    return this.#cached(this.#memory, id, () => this.tables.memoryItem(id));
  }

  operation(id: string): OperationEntry | undefined {
    return this.#cached(this.#operations, id, () => this.tables.operation(id));
  }

  memoryIdWithKey(scope: Scope, key: string): string | undefined {
    return this.#cached(this.#memoryKeys, placeKey(scope, key), async () => (await this.tables.memoryWithKey(scope, key))?.id);
  }

  checkpointAt(key: CheckpointKey): Checkpoint | undefined {
    return this.#cached(this.#checkpoints, checkpointKey(key), () => this.tables.checkpoints.at(key));
  }

  checkpointWriteExists(key: CheckpointKey, taskId: string, idx: number): boolean {
    return this.#cached(this.#checkpointWrites, `${checkpointKey(key)}\u0000${taskId}\u0000${idx}`, () =>
      this.tables.checkpoints.writeExists(key, taskId, idx),
    );
  }

  checkpointThreadExists(threadId: string): boolean {
    return this.#cached(this.#checkpointThreads, threadId, () => this.tables.checkpoints.threadExists(threadId));
  }

  /**
   * Keeps the cached answers true after a checkpoint entry was written to the
   * tables (they are written at once: a thread deletion must follow the
   * writes before it, and checkpoints touch no other kind).
   */
  putCheckpoint(entry: CheckpointEntry): void {
    switch (entry.kind) {
      case 'checkpoint':
        this.#checkpoints.set(checkpointKey(entry.record), entry.record);
        this.#checkpointThreads.set(entry.record.threadId, true);
        break;
      case 'checkpointWrite': {
        const w = entry.record;
        this.#checkpointWrites.set(`${checkpointKey(w)}\u0000${w.taskId}\u0000${w.idx}`, true);
        this.#checkpointThreads.set(w.threadId, true);
        break;
      }
      case 'checkpointThreadDeletion':
        // The tables now answer for the thread: what is cached of it is forgotten and fetched again.
        this.#checkpoints.clear();
        this.#checkpointWrites.clear();
        this.#checkpointThreads.set(entry.threadId, false);
        break;
    }
  }

  /** Holds a record's post-image until the next flush, keeping every cached answer true. */
  async put(entry: TableEntry, seq: number): Promise<void> {
    if (entry.kind === 'sessionAfterTurn') {
      // Derived from the pending or stored version, which the fold's rules found live.
      const stored = await answer(() => this.session(entry.turn.sessionId));
      return this.put({ kind: 'session', record: sessionAfterTurn(stored!, entry.turn) }, seq);
    }
    this.pending.set(`${entry.kind}\u0000${entry.record.id}`, { entry, seq });
    switch (entry.kind) {
      case 'session':
        this.#sessions.set(entry.record.id, entry.record);
        break;
      case 'turn': {
        const turn = entry.record;
        this.#turnExists.set(turn.id, true);
        this.#turnsById.set(turn.id, turn);
        const last = await answer(() => this.lastTurnSeq(turn.sessionId));
        this.#lastTurnSeq.set(turn.sessionId, Math.max(last, turn.seq));
        await answer(() => this.liveTurnsFrom(turn.sessionId, 0));
        this.#turns.get(turn.sessionId)!.set(turn.seq, turn);
        break;
      }
      case 'skill':
        this.#skills.set(entry.record.id, entry.record);
        this.#skillIds.set(placeKey(entry.record.scope, entry.record.slug), entry.record.id);
        break;
      case 'memory': {
        const item = entry.record;
        const before = await answer(() => this.memoryItem(item.id));
        if (before && !before.deleted && before.key !== null) {
          const held = placeKey(before.scope, before.key);
          if (this.#memoryKeys.get(held) === item.id || !this.#memoryKeys.has(held)) this.#memoryKeys.set(held, undefined);
        }
        this.#memory.set(item.id, item);
        if (!item.deleted && item.key !== null) this.#memoryKeys.set(placeKey(item.scope, item.key), item.id);
        break;
      }
    }
  }

  putOperation(entry: OperationEntry): void {
    this.#operations.set(entry.id, entry);
    this.pendingOperations.push(entry);
  }

  /** Writes every pending record (in the order of their first event) and forgets them. */
  async flush(sql: Sql, projection: Projection): Promise<void> {
    for (const { entry, seq } of this.pending.values()) await putOrCorrupt(() => projection.put(sql, entry), seq);
    for (const entry of this.pendingOperations) await putOrCorrupt(() => projection.putOperation(sql, entry), entry.seq);
    this.pending.clear();
    this.pendingOperations.length = 0;
  }
}

/** Runs `ask`, fetching what the view misses, until it answers. */
async function answer<T>(ask: () => T): Promise<T> {
  for (;;) {
    try {
      return ask();
    } catch (error) {
      if (!(error instanceof Miss)) throw error;
      await error.fetch();
    }
  }
}

/**
 * Folds the events of the `state` stream after `afterSeq` into the tables,
 * inside the caller's transaction, which holds the writers' lock exclusive
 * (no writer in flight: every position is settled), telling `onBatch` how
 * many it has folded after each batch; returns how many it folded and the last
 * seq. A changed, malformed or impossible event is a `CorruptionError`
 * naming its seq.
 */
export async function foldPending(
  sql: Sql,
  log: PostgresLog,
  projection: Projection,
  tables: TableLookups,
  upcasters: UpcasterRegistry | undefined,
  afterSeq: number,
  onBatch?: (folded: number) => void,
): Promise<{ folded: number; seq: number }> {
  let seq = afterSeq;
  let folded = 0;
  for (;;) {
    const view = new FetchingView(tables);
    const batch = await log.readForFold(sql, STATE_STREAM, seq, FOLD_BATCH);
    if (batch.length === 0) break;
    for (const { event, validated } of batch) {
      // Positions may skip numbers (a rolled-back write took one): the read's order is the fold's.
      const change = decodeStateEvent(event, { upcasters, trusted: validated });
      await answer(() => checkChange(view, change, event.seq));
      await projection.indexRecords(sql, change, event.seq);
      for (const entry of changeRecords(change)) {
        if (isCheckpointEntry(entry)) {
          await putOrCorrupt(() => projection.put(sql, entry), event.seq);
          view.putCheckpoint(entry);
        } else await view.put(entry, event.seq);
      }
      const operation = change.payload.operation;
      // A batch's later events name an indexed operation again, without its hash: only the first is indexed.
      if (operation && (operation.inputHash !== undefined || view.operation(operation.id) === undefined))
        view.putOperation(operationEntry(operation, event.seq));
      seq = event.seq;
      folded += 1;
    }
    await view.flush(sql, projection);
    onBatch?.(folded);
  }
  return { folded, seq };
}

/** Writes a record; a row the tables refuse is a `CorruptionError` naming the event that carried it. */
async function putOrCorrupt(put: () => Promise<void>, seq: number): Promise<void> {
  try {
    await put();
  } catch (error) {
    if (error instanceof CorruptionError) throw error;
    throw new CorruptionError(STATE_STREAM, seq, `the event cannot be projected: ${describeError(error)}`, { cause: error });
  }
}
