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
import type { Checkpoint, MemoryItem, OperationEntry, Scope, Session, Skill, StateChange, Turn, UpcasterRegistry } from '@agentstate/core';
import type { ChangeRecord, CheckpointKey, FoldView } from '@agentstate/core/backend';
import { CorruptionError, decodeStateEvent, sessionAfterTurn, STATE_STREAM } from '@agentstate/core';
import { changeRecordIds, changeRecords, describeError, foldableChange, operationEntry, scopeKey, turnInsertion } from '@agentstate/core/backend';
import type { Sql } from './database.js';
import type { PostgresLog } from './log.js';
import type { TableLookups } from './lookups.js';
import type { Projection, RecordEntry } from './projection.js';

/** Events read per batch; pending records are written after each. */
export const FOLD_BATCH = 1_000;

/** A question the view must fetch the answer to first. */
class Miss {
  constructor(readonly fetch: () => Promise<void>) {}
}

const placeKey = (scope: Scope, name: string): string => `${scopeKey(scope)}\u0000${name}`;
const checkpointKey = (key: CheckpointKey): string => `${key.threadId}\u0000${key.namespace}\u0000${key.checkpointId}`;

/** The entries of checkpoint events: written as they are folded, not held (see {@link FetchingView.forgetCheckpoints}). */
type CheckpointEntry = Extract<ChangeRecord, { kind: 'checkpoint' | 'checkpointWrite' | 'checkpointThreadDeletion' }>;
/** The entries held until a flush. */
type TableEntry = Exclude<ChangeRecord, CheckpointEntry>;

function isCheckpointEntry(entry: ChangeRecord): entry is CheckpointEntry {
  return entry.kind === 'checkpoint' || entry.kind === 'checkpointWrite' || entry.kind === 'checkpointThreadDeletion';
}

/** What the rules see: the tables as fetched so far, overlaid with the records folded but not written. */
class FetchingView implements FoldView {
  /** The answers fetched, or kept true by the records folded since, by question and key. */
  readonly #answers = new Map<string, unknown>();
  /** The answers about checkpoints, forgotten whenever a checkpoint entry is written. */
  readonly #checkpointAnswers = new Map<string, unknown>();
  /** Records to write, by kind and id, with the seq of their latest post-image. */
  readonly pending = new Map<string, { entry: RecordEntry; seq: number }>();
  readonly pendingOperations: OperationEntry[] = [];
  /** The history index's rows to write: record ids, and the seqs of the events that changed them. */
  readonly pendingIndex = { ids: [] as string[], seqs: [] as number[] };

  constructor(private readonly tables: TableLookups) {}

  #cached<V>(key: string, load: () => V | Promise<V>, answers = this.#answers): V {
    if (answers.has(key)) return answers.get(key) as V;
    throw new Miss(async () => {
      answers.set(key, await load());
    });
  }

  session(id: string): Session | undefined {
    return this.#cached(`session\u0000${id}`, () => this.tables.session(id));
  }

  lastTurnSeq(sessionId: string): number {
    return this.#cached(`lastTurn\u0000${sessionId}`, () => this.tables.lastTurnSeq(sessionId));
  }

  turnExists(id: string): boolean {
    return this.turn(id) !== undefined;
  }

  turn(id: string): Turn | undefined {
    return this.#cached(`turn\u0000${id}`, () => this.tables.turn(id));
  }

  /** Answered from the session's turns by seq, tombstones too, fetched whole once, the pending turns laid over them. */
  turnsFrom(sessionId: string, fromSeq: number): Turn[] {
    const turns = this.#cached(`turns\u0000${sessionId}`, async () => {
      const held = new Map((await this.tables.turnsFrom(sessionId, 0)).map((t) => [t.seq, t]));
      for (const { entry } of this.pending.values())
        if (entry.kind === 'turn' && entry.record.sessionId === sessionId) held.set(entry.record.seq, entry.record);
      return held;
    });
    return [...turns.values()].filter((t) => t.seq >= fromSeq).sort((a, b) => a.seq - b.seq);
  }

  skill(id: string): Skill | undefined {
    return this.#cached(`skill\u0000${id}`, () => this.tables.skill(id));
  }

  skillIdAt(scope: Scope, slug: string): string | undefined {
    return this.#cached(`skillAt\u0000${placeKey(scope, slug)}`, async () => (await this.tables.skillAt(scope, slug))?.id);
  }

  memoryItem(id: string): MemoryItem | undefined {
    return this.#cached(`memory\u0000${id}`, () => this.tables.memoryItem(id));
  }

  operation(id: string): OperationEntry | undefined {
    return this.#cached(`operation\u0000${id}`, () => this.tables.operation(id));
  }

  memoryIdWithKey(scope: Scope, key: string): string | undefined {
    return this.#cached(`memoryKey\u0000${placeKey(scope, key)}`, async () => (await this.tables.memoryWithKey(scope, key))?.id);
  }

  checkpointAt(key: CheckpointKey): Checkpoint | undefined {
    return this.#cached(`at\u0000${checkpointKey(key)}`, () => this.tables.checkpoints.at(key), this.#checkpointAnswers);
  }

  checkpointWriteExists(key: CheckpointKey, taskId: string, idx: number): boolean {
    const write = `write\u0000${checkpointKey(key)}\u0000${taskId}\u0000${idx}`;
    return this.#cached(write, () => this.tables.checkpoints.writeExists(key, taskId, idx), this.#checkpointAnswers);
  }

  checkpointThreadExists(threadId: string): boolean {
    return this.#cached(`thread\u0000${threadId}`, () => this.tables.checkpoints.threadExists(threadId), this.#checkpointAnswers);
  }

  /**
   * Called once a checkpoint entry was written to the tables (they are written at once: a thread deletion must
   * follow the writes before it, and checkpoints touch no other kind): the tables now answer for checkpoints.
   */
  forgetCheckpoints(): void {
    this.#checkpointAnswers.clear();
  }

  /**
   * Answers at once what `changes` (a batch's) will ask about the keys of their memory items and the slugs of
   * their skills, one statement a kind: asked one by one, each was a round trip.
   */
  async prefetchPlaces(changes: readonly StateChange[]): Promise<void> {
    const places = { memory: new Map<string, readonly [string, string]>(), skill: new Map<string, readonly [string, string]>() };
    for (const change of changes)
      for (const entry of changeRecords(change)) {
        const [kind, record, name] =
          entry.kind === 'memory'
            ? (['memory', entry.record, entry.record.key] as const)
            : entry.kind === 'skill'
              ? (['skill', entry.record, entry.record.slug] as const)
              : [];
        if (kind !== undefined && typeof name === 'string') places[kind].set(placeKey(record.scope, name), [scopeKey(record.scope), name]);
      }
    for (const [kind, question] of [
      ['memory', 'memoryKey'],
      ['skill', 'skillAt'],
    ] as const) {
      if (places[kind].size === 0) continue;
      const holders = await this.tables.placeHolders(kind, [...places[kind].values()]);
      for (const key of places[kind].keys()) this.#answers.set(`${question}\u0000${key}`, holders.get(key));
    }
  }

  /**
   * Answers at once what `changes` (a batch's) will ask about the records they carry by id, and about the last
   * turn numbers of their sessions, in one round trip: asked one by one, each was one.
   */
  async prefetchRecords(changes: readonly StateChange[]): Promise<void> {
    const ids = { session: new Set<string>(), turn: new Set<string>(), memory: new Set<string>(), skill: new Set<string>(), lastTurn: new Set<string>() };
    for (const change of changes)
      for (const entry of changeRecords(change)) {
        if (entry.kind === 'sessionAfterTurn') ids.session.add(entry.turn.sessionId);
        else if (entry.kind === 'turn') {
          ids.turn.add(entry.record.id);
          ids.session.add(entry.record.sessionId);
          ids.lastTurn.add(entry.record.sessionId);
        } else if (entry.kind === 'session' || entry.kind === 'memory' || entry.kind === 'skill') ids[entry.kind].add(entry.record.id);
      }
    const held = await this.tables.byIds({
      session: [...ids.session],
      turn: [...ids.turn],
      memory: [...ids.memory],
      skill: [...ids.skill],
      lastTurn: [...ids.lastTurn],
    });
    for (const [question, asked] of Object.entries(ids) as [keyof typeof ids, Set<string>][])
      for (const id of asked) this.#answers.set(`${question}\u0000${id}`, held[question].get(id) ?? (question === 'lastTurn' ? 0 : undefined));
  }

  /** Holds a record's post-image until the next flush, keeping every cached answer true. */
  async put(entry: TableEntry, seq: number): Promise<void> {
    if (entry.kind === 'sessionAfterTurn') {
      // Derived from the pending or stored version, which the fold's rules found live.
      const stored = await answer(() => this.session(entry.turn.sessionId));
      return this.put({ kind: 'session', record: sessionAfterTurn(stored!, entry.turn) }, seq);
    }
    this.pending.set(`${entry.kind}\u0000${entry.record.id}`, { entry, seq });
    const answers = this.#answers;
    switch (entry.kind) {
      case 'session':
        answers.set(`session\u0000${entry.record.id}`, entry.record);
        break;
      case 'turn': {
        const turn = entry.record;
        answers.set(`turn\u0000${turn.id}`, turn);
        const last = await answer(() => this.lastTurnSeq(turn.sessionId));
        answers.set(`lastTurn\u0000${turn.sessionId}`, Math.max(last, turn.seq));
        // Fetched only when asked: the fetch lays the pending turns over what it reads.
        (answers.get(`turns\u0000${turn.sessionId}`) as Map<number, Turn> | undefined)?.set(turn.seq, turn);
        break;
      }
      case 'skill':
        answers.set(`skill\u0000${entry.record.id}`, entry.record);
        answers.set(`skillAt\u0000${placeKey(entry.record.scope, entry.record.slug)}`, entry.record.id);
        break;
      case 'memory': {
        const item = entry.record;
        const before = await answer(() => this.memoryItem(item.id));
        if (before && !before.deleted && before.key !== null) {
          const held = `memoryKey\u0000${placeKey(before.scope, before.key)}`;
          if (answers.get(held) === item.id || !answers.has(held)) answers.set(held, undefined);
        }
        answers.set(`memory\u0000${item.id}`, item);
        if (!item.deleted && item.key !== null) answers.set(`memoryKey\u0000${placeKey(item.scope, item.key)}`, item.id);
        break;
      }
    }
  }

  putOperation(entry: OperationEntry): void {
    this.#answers.set(`operation\u0000${entry.id}`, entry);
    this.pendingOperations.push(entry);
  }

  /** Writes every pending record, operation and history row, a few statements a table (a view serves one batch). */
  async flush(sql: Sql, projection: Projection): Promise<void> {
    await projection.putMany(
      sql,
      [...this.pending.values()].map(({ entry }) => entry),
    );
    await projection.putOperations(sql, this.pendingOperations);
    await projection.indexRecords(sql, this.pendingIndex.ids, this.pendingIndex.seqs);
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
    const batch = await log.readForFold(sql, STATE_STREAM, seq, FOLD_BATCH);
    if (batch.length === 0) break;
    await foldChanges(
      sql,
      projection,
      tables,
      batch.map(({ event, validated }) => ({ seq: event.seq, change: decodeStateEvent(event, { upcasters, trusted: validated }) })),
    );
    seq = batch.at(-1)!.event.seq;
    folded += batch.length;
    onBatch?.(folded);
  }
  return { folded, seq };
}

/**
 * Folds `events` (a batch, decoded, in seq order) into the tables inside the caller's transaction, which holds
 * the writers' lock exclusive: their look-ups fetched at once, their records written once each after the batch.
 * A receive gives the changes it decoded, so they are neither read back nor decoded again, and counts with
 * `onMerge` those folded as a merge.
 */
export async function foldChanges(
  sql: Sql,
  projection: Projection,
  tables: TableLookups,
  events: readonly { seq: number; change: StateChange }[],
  onMerge?: () => void,
): Promise<void> {
  let view = new FetchingView(tables);
  const changes = events.map(({ change }) => change);
  await view.prefetchPlaces(changes);
  await view.prefetchRecords(changes);
  for (const [i, { seq }] of events.entries()) {
    // Positions may skip numbers (a rolled-back write took one): the read's order is the fold's.
    // A received change that does not chain is folded as its merge (docs/contract.md §12, "Merge").
    const change = await answer(() => foldableChange(view, changes[i]!, seq, onMerge));
    if (turnInsertion(change)) {
      // A merged append moves held turns: the pending records go first, and the view fetches again what moved.
      await view.flush(sql, projection);
      await projection.shiftTurns(sql, change);
      view = new FetchingView(tables);
    }
    for (const id of changeRecordIds(change)) {
      view.pendingIndex.ids.push(id);
      view.pendingIndex.seqs.push(seq);
    }
    for (const entry of changeRecords(change)) {
      if (isCheckpointEntry(entry)) {
        await putOrCorrupt(() => projection.put(sql, entry), seq);
        view.forgetCheckpoints();
      } else await view.put(entry, seq);
    }
    const operation = change.payload.operation;
    // A batch's later events name an indexed operation again, without its hash: only the first is indexed.
    if (operation && (operation.inputHash !== undefined || view.operation(operation.id) === undefined)) view.putOperation(operationEntry(operation, seq));
  }
  await view.flush(sql, projection);
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
