/**
 * Folding the `state` stream into the tables: catch-up (events a bare log
 * append wrote) and rebuild. Every event goes through core's fold rules
 * (`checkChange`, the step replay, verify and import take), checked against
 * a view of the tables plus the records still pending, so a log the live API
 * could not have written is refused here too, with a `CorruptionError`
 * naming its seq. Successive post-images of one record are coalesced and
 * written once per stretch of events, through the same writer as a live
 * commit.
 */
import type { Checkpoint, MemoryItem, OperationEntry, Scope, Session, Skill, Turn, UpcasterRegistry } from '@agentstate/core';
import type { ChangeRecord, CheckpointKey, FoldView } from '@agentstate/core/backend';
import { CorruptionError, decodeStateEvent, sessionAfterTurn, STATE_SCHEMA_VERSION, STATE_STREAM } from '@agentstate/core';
import { changeHlc, changeOperation, changeRecords, checkChange, maxHlc, operationEntry, scopeKey } from '@agentstate/core/backend';
import { mapSqliteError } from './errors.js';
import type { SqliteLog } from './log.js';
import type { Projection } from './projection.js';
import type { TableLookups } from './queries.js';
import { RecordEventsBuffer } from './history.js';

/** Events folded per read while catching up or rebuilding. */
export const FOLD_BATCH = 5_000;

/** Distinct records held before they are written, while folding. */
const COALESCE_LIMIT = 20_000;

/**
 * The same for a bulk load (a rebuild, or the first fold of an empty
 * projection): records are held longer, so that a log of about 100,000
 * events is written in one pass without a single look-up of the tables
 * (roughly 150 MB of records at most).
 */
const BULK_COALESCE_LIMIT = 200_000;

/** Options of {@link foldPending}. */
export interface FoldOptions {
  upcasters?: UpcasterRegistry | undefined;
  /**
   * A bulk load (the projection is in bulk mode): records are coalesced
   * longer. When the tables are empty as well, the fold neither reads them
   * nor looks for a record's row before its first write.
   */
  bulk?: boolean;
  /** Called after each batch folded, with the events folded so far and the events to fold (as verify reports its replay). */
  onProgress?: ((done: number, total: number) => void) | undefined;
}

/** Look-ups of tables that hold nothing yet: answered without a query. Checkpoint rows are written as they are folded, so the tables answer those. */
function emptyTables(tables: TableLookups): TableLookups {
  return {
    session: () => undefined,
    turnExists: () => false,
    turn: () => undefined,
    lastTurnSeq: () => 0,
    lastTurns: () => [],
    liveTurnsFrom: () => [],
    skill: () => undefined,
    skillAt: () => undefined,
    memoryItem: () => undefined,
    operation: () => undefined,
    memoryWithKey: () => undefined,
    checkpoints: tables.checkpoints,
  };
}

/** A record waiting to be written, with the seq of the event that carried its latest post-image. */
interface Pending<R> {
  record: R;
  seq: number;
}

const skillKey = (scope: Scope, slug: string): string => `${scopeKey(scope)}\u0000${slug}`;
const memoryKeyOf = (scope: Scope, key: string): string => `${scopeKey(scope)}\u0000${key}`;

/**
 * The state a fold checks against: the records folded but not yet written,
 * over the tables. A record's scope and slug never change (a fold rule), so
 * `(scope, slug)` of a pending skill is its final place.
 */
class PendingView implements FoldView {
  readonly sessions = new Map<string, Pending<Session>>();
  /** Turns by id; a removed turn's tombstone replaces its first post-image. */
  readonly turns = new Map<string, Pending<Turn>>();
  /** Pending turns by session, then seq, for the transcript rules. */
  readonly #turnsBySession = new Map<string, Map<number, Turn>>();
  readonly skills = new Map<string, Pending<Skill>>();
  readonly memory = new Map<string, Pending<MemoryItem>>();
  /** Operations by id; each is written once. */
  readonly operations = new Map<string, OperationEntry>();
  readonly #lastTurnSeq = new Map<string, number>();
  readonly #skillIds = new Map<string, string>();
  /** `(scope, key)` → the pending item that last took that key. */
  readonly #memoryKeys = new Map<string, string>();

  /** The tables' look-ups: those of empty tables until the first flush when the fold started on empty tables. */
  private tables: TableLookups;

  /**
   * @param fresh The tables hold no record yet: until the first flush every
   * look-up misses and every pending record is new.
   */
  constructor(
    private readonly stored: TableLookups,
    private fresh: boolean,
  ) {
    this.tables = fresh ? emptyTables(stored) : stored;
  }

  session(id: string): Session | undefined {
    return this.sessions.get(id)?.record ?? this.tables.session(id);
  }

  lastTurnSeq(sessionId: string): number {
    return this.#lastTurnSeq.get(sessionId) ?? this.tables.lastTurnSeq(sessionId);
  }

  turnExists(id: string): boolean {
    return this.turns.has(id) || this.tables.turnExists(id);
  }

  turn(id: string): Turn | undefined {
    return this.turns.get(id)?.record ?? this.tables.turn(id);
  }

  liveTurnsFrom(sessionId: string, fromSeq: number): Turn[] {
    const pending = this.#turnsBySession.get(sessionId);
    const stored = this.tables.liveTurnsFrom(sessionId, fromSeq);
    if (pending === undefined) return stored;
    const live = stored.filter((t) => !pending.has(t.seq));
    for (const t of pending.values()) if (t.seq >= fromSeq && !t.deleted) live.push(t);
    return live.sort((a, b) => a.seq - b.seq);
  }

  skill(id: string): Skill | undefined {
    return this.skills.get(id)?.record ?? this.tables.skill(id);
  }

  skillIdAt(scope: Scope, slug: string): string | undefined {
    return this.#skillIds.get(skillKey(scope, slug)) ?? this.tables.skillAt(scope, slug)?.id;
  }

  memoryItem(id: string): MemoryItem | undefined {
    return this.memory.get(id)?.record ?? this.tables.memoryItem(id);
  }

  operation(id: string): OperationEntry | undefined {
    return this.operations.get(id) ?? this.tables.operation(id);
  }

  // Checkpoint records are written as they are folded (see `foldPending`), so the tables answer.
  checkpointAt(key: CheckpointKey): Checkpoint | undefined {
    return this.tables.checkpoints.at(key);
  }

  checkpointWriteExists(key: CheckpointKey, taskId: string, idx: number): boolean {
    return this.tables.checkpoints.writeExists(key, taskId, idx);
  }

  checkpointThreadExists(threadId: string): boolean {
    return this.tables.checkpoints.threadExists(threadId);
  }

  /** Holds the operation of an idempotent write until the next flush. */
  putOperation(entry: OperationEntry): void {
    this.operations.set(entry.id, entry);
  }

  memoryIdWithKey(scope: Scope, key: string): string | undefined {
    // At most one live item holds a key at a time, so the pending item that took it last, if it
    // still holds it, is the holder; else the table's holder, unless a pending version released it.
    const holds = (item: MemoryItem | undefined): boolean => item !== undefined && !item.deleted && item.key === key;
    const taker = this.#memoryKeys.get(memoryKeyOf(scope, key));
    if (taker !== undefined && holds(this.memory.get(taker)?.record)) return taker;
    const stored = this.tables.memoryWithKey(scope, key);
    if (stored === undefined) return undefined;
    return holds(this.memory.get(stored.id)?.record ?? stored) ? stored.id : undefined;
  }

  /** Holds a record's post-image until the next flush. */
  put(entry: ChangeRecord, seq: number): void {
    switch (entry.kind) {
      case 'session':
        this.sessions.set(entry.record.id, { record: entry.record, seq });
        break;
      case 'sessionAfterTurn': {
        // Derived from the pending or stored version, which the fold's rules found live.
        const session = sessionAfterTurn(this.session(entry.turn.sessionId)!, entry.turn);
        this.sessions.set(session.id, { record: session, seq });
        break;
      }
      case 'turn':
        this.turns.set(entry.record.id, { record: entry.record, seq });
        this.#lastTurnSeq.set(entry.record.sessionId, Math.max(entry.record.seq, this.lastTurnSeq(entry.record.sessionId)));
        this.#pendingTurnsOf(entry.record.sessionId).set(entry.record.seq, entry.record);
        break;
      case 'skill':
        this.skills.set(entry.record.id, { record: entry.record, seq });
        this.#skillIds.set(skillKey(entry.record.scope, entry.record.slug), entry.record.id);
        break;
      case 'memory':
        this.memory.set(entry.record.id, { record: entry.record, seq });
        if (entry.record.key !== null && !entry.record.deleted) this.#memoryKeys.set(memoryKeyOf(entry.record.scope, entry.record.key), entry.record.id);
        break;
    }
  }

  #pendingTurnsOf(sessionId: string): Map<number, Turn> {
    let bySeq = this.#turnsBySession.get(sessionId);
    if (!bySeq) {
      bySeq = new Map();
      this.#turnsBySession.set(sessionId, bySeq);
    }
    return bySeq;
  }

  /** Records held, all kinds together. */
  get size(): number {
    return this.sessions.size + this.turns.size + this.skills.size + this.memory.size + this.operations.size;
  }

  /**
   * Writes every pending record and forgets them. Each table keeps the order
   * of a record's first event (its row number); turns, which nothing orders
   * by insertion, go in key order, which keeps B-tree inserts local.
   */
  flush(projection: Projection): void {
    // Into tables that held nothing, every record is new: inserted without looking for its row.
    const put = this.fresh ? (entry: ChangeRecord) => projection.insertNew(entry) : (entry: ChangeRecord) => projection.put(entry);
    for (const { record, seq } of this.sessions.values()) putOrCorrupt(() => put({ kind: 'session', record }), seq);
    const turns = [...this.turns.values()].sort((a, b) => compareTurnKeys(a.record, b.record));
    for (const { record, seq } of turns) putOrCorrupt(() => put({ kind: 'turn', record }), seq);
    for (const { record, seq } of this.skills.values()) putOrCorrupt(() => put({ kind: 'skill', record }), seq);
    for (const { record, seq } of this.memory.values()) putOrCorrupt(() => put({ kind: 'memory', record }), seq);
    for (const entry of this.operations.values()) putOrCorrupt(() => projection.putOperation(entry), entry.seq);
    this.fresh = false;
    this.tables = this.stored;
    this.sessions.clear();
    this.turns.clear();
    this.skills.clear();
    this.memory.clear();
    this.operations.clear();
    this.#lastTurnSeq.clear();
    this.#turnsBySession.clear();
    this.#skillIds.clear();
    this.#memoryKeys.clear();
  }
}

/**
 * Folds events of the `state` stream after the projection's seq, up to the
 * log head, inside the caller's write transaction; returns how many. Every
 * event is checked against its checksum, decoded in order (payloads a bare
 * log append wrote are validated in full) and checked against the fold's
 * rules; a changed, malformed or impossible one is a `CorruptionError`
 * naming its seq.
 */
export function foldPending(log: SqliteLog, projection: Projection, tables: TableLookups, options: FoldOptions = {}): number {
  const { upcasters, bulk = false, onProgress } = options;
  const state = projection.state();
  let { seq, maxHlc: hlc } = state;
  let folded = 0;
  const total = onProgress === undefined ? 0 : log.headNow(STATE_STREAM) - seq;
  const view = new PendingView(tables, bulk && projection.isEmpty());
  const history = new RecordEventsBuffer();
  const limit = bulk ? BULK_COALESCE_LIMIT : COALESCE_LIMIT;
  for (;;) {
    const batch = log.readForFold(STATE_STREAM, seq, FOLD_BATCH);
    if (batch.length === 0) break;
    for (const { event, validated } of batch) {
      if (event.seq !== seq + 1) throw new CorruptionError(STATE_STREAM, event.seq, `expected seq ${seq + 1}: the stream has a gap`);
      // A payload this library validated when it wrote it, and whose checksum holds, is not validated again.
      const change = decodeStateEvent(event, { upcasters, trusted: validated });
      checkChange(view, change, event.seq);
      history.add(change, event.seq);
      for (const entry of changeRecords(change)) {
        // Checkpoints touch no other kind, and a thread deletion must follow the writes before it:
        // they are written at once rather than coalesced.
        // An event of the current payload schema holds its records as stored; an upcast one does not.
        if (isCheckpointEntry(entry))
          putOrCorrupt(() => projection.put(entry, event.schemaVersion === STATE_SCHEMA_VERSION ? event.seq : undefined), event.seq);
        else view.put(entry, event.seq);
      }
      const operation = changeOperation(change);
      // A batch's later events name an indexed operation again, without its hash: only the first is indexed.
      if (operation && (operation.inputHash !== undefined || view.operation(operation.id) === undefined))
        view.putOperation(operationEntry(operation, event.seq));
      hlc = maxHlc(hlc, changeHlc(change));
      seq = event.seq;
      folded += 1;
    }
    history.flush(projection.conn);
    if (view.size >= limit) view.flush(projection);
    onProgress?.(folded, total);
  }
  view.flush(projection);
  if (folded > 0) projection.saveState({ seq, maxHlc: hlc, generation: state.generation });
  return folded;
}

/** True for the entries of checkpoint events. */
function isCheckpointEntry(entry: ChangeRecord): boolean {
  return entry.kind === 'checkpoint' || entry.kind === 'checkpointWrite' || entry.kind === 'checkpointThreadDeletion';
}

/** Orders turns by session, then seq: the key of the turns table. */
function compareTurnKeys(a: Turn, b: Turn): number {
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : a.seq - b.seq;
}

/** Writes a record; a row the tables refuse is a `CorruptionError` naming the event that carried it. */
function putOrCorrupt(put: () => void, seq: number): void {
  try {
    put();
  } catch (error) {
    const mapped = mapSqliteError(error);
    if (mapped instanceof CorruptionError) throw mapped;
    const message = error instanceof Error ? error.message : String(error);
    throw new CorruptionError(STATE_STREAM, seq, `the event cannot be projected: ${message}`, { cause: error });
  }
}
