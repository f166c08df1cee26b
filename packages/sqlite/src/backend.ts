/**
 * The SQLite {@link StateBackend}. Every mutation is one `BEGIN IMMEDIATE`
 * transaction: the look-ups the stamper needs run inside it (so writes of
 * other processes are seen), and `commit` appends the event, projects it and
 * commits, synchronously. Nothing uncommitted is ever visible to a reader on
 * this connection, and a call that fails leaves no event and no row.
 */
import type { EventMeta, LogEvent, Snapshot, StateBackend, StateChange, StateQueries, StateWriteTx, Turn, UpcasterRegistry, VectorStore } from '@agentstate/core';
import { ClosedError, CorruptionError, decodeStateEvent, maxHlc, sortSnapshot, STATE_STREAM } from '@agentstate/core';
import type { Connection } from './connection.js';
import { mapErrors, mapSqliteError } from './errors.js';
import type { SqliteLog } from './log.js';
import type { ProjectedRecord, Projection, ProjectionState } from './projection.js';
import { changeHlc, changeRecords } from './projection.js';
import type { MemoryRow, SessionRow, SkillRow, TurnRow } from './rows.js';
import { memoryFromRow, sessionFromRow, skillFromRow, turnFromRow } from './rows.js';

/** Events folded per read while catching up or rebuilding. */
export const FOLD_BATCH = 5_000;

/** Distinct records held before they are written, while folding. */
const COALESCE_LIMIT = 20_000;

/**
 * Folds events of the `state` stream after the projection's seq, up to the
 * log head, inside the caller's write transaction; returns how many. Every
 * event is checked against its checksum and decoded in order (a changed or
 * malformed one is a `CorruptionError` naming its seq); payloads a bare log
 * append wrote are validated in full. Successive post-images of one record
 * within a stretch of events are coalesced, so each is written once per
 * stretch, through the same writer as a live commit.
 */
export function foldPending(log: SqliteLog, projection: Projection, upcasters: UpcasterRegistry | undefined): number {
  const state = projection.state();
  let { seq, maxHlc: hlc } = state;
  let folded = 0;
  const pending = new Map<string, { entry: ProjectedRecord; seq: number }>();
  const flush = (): void => {
    // Turns never coalesce and nothing refers to their insertion order: they go in key order, which
    // keeps B-tree inserts local. Every other record keeps the order of its first event (row numbers).
    const turns: { entry: ProjectedRecord; seq: number }[] = [];
    for (const item of pending.values()) {
      if (item.entry.kind === 'turn') turns.push(item);
      else putOrCorrupt(projection, item.entry, item.seq);
    }
    turns.sort((a, b) => compareTurnKeys(a.entry.record as Turn, b.entry.record as Turn));
    for (const item of turns) putOrCorrupt(projection, item.entry, item.seq);
    pending.clear();
  };
  for (;;) {
    const batch = log.readForFold(STATE_STREAM, seq, FOLD_BATCH);
    if (batch.length === 0) break;
    for (const { event, validated } of batch) {
      if (event.seq !== seq + 1) throw new CorruptionError(STATE_STREAM, event.seq, `expected seq ${seq + 1}: the stream has a gap`);
      // A payload this library validated when it wrote it, and whose checksum holds, is not validated again.
      const change = decodeStateEvent(event, { upcasters, trusted: validated });
      for (const entry of changeRecords(change)) {
        pending.set(`${entry.kind}\u0000${entry.record.id}`, { entry, seq: event.seq });
        hlc = maxHlc(hlc, entry.record.updatedHlc);
      }
      seq = event.seq;
      folded += 1;
    }
    if (pending.size >= COALESCE_LIMIT) flush();
  }
  flush();
  if (folded > 0) projection.saveState({ seq, maxHlc: hlc, generation: state.generation });
  return folded;
}

/** Orders turns by session, then seq: the key of the turns table. */
function compareTurnKeys(a: Turn, b: Turn): number {
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : a.seq - b.seq;
}

/** Writes a record; a row the tables refuse is a `CorruptionError` naming the event that carried it. */
function putOrCorrupt(projection: Projection, entry: ProjectedRecord, seq: number): void {
  try {
    projection.put(entry);
  } catch (error) {
    const mapped = mapSqliteError(error);
    if (mapped instanceof CorruptionError) throw mapped;
    const message = error instanceof Error ? error.message : String(error);
    throw new CorruptionError(STATE_STREAM, seq, `the event cannot be projected: ${message}`, { cause: error });
  }
}

/** Options of {@link SqliteBackend}. */
export interface SqliteBackendOptions {
  upcasters?: UpcasterRegistry;
}

/** A {@link StateBackend} over one SQLite connection. */
export class SqliteBackend implements StateBackend {
  readonly name = 'sqlite';

  constructor(
    readonly conn: Connection,
    readonly log: SqliteLog,
    readonly projection: Projection,
    readonly queries: StateQueries,
    readonly vectors: VectorStore | undefined,
    private readonly options: SqliteBackendOptions = {},
  ) {}

  write<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T> {
    return this.conn.exclusive(async () => {
      const state = this.#beginInStep();
      let open = true;
      const tx: StateWriteTx = {
        ...this.queries,
        commit: (change, meta) => {
          if (!open) throw new ClosedError('this write transaction has already committed');
          open = false;
          return this.#commit(state, change, meta);
        },
      };
      try {
        return await fn(tx);
      } catch (error) {
        throw mapSqliteError(error, this.conn.path);
      } finally {
        if (open) this.conn.rollback();
      }
    });
  }

  /**
   * Opens the write transaction with the projection in step with the log.
   * Events appended to the `state` stream by someone else (a bare log
   * append) are folded first, in a transaction of their own, so that the
   * look-ups see them and nothing uncommitted is ever visible.
   */
  #beginInStep(): ProjectionState {
    for (;;) {
      this.conn.begin();
      const state = this.projection.state();
      if (state.seq === this.log.headNow(STATE_STREAM)) return state;
      try {
        foldPending(this.log, this.projection, this.options.upcasters);
      } catch (error) {
        this.conn.rollback();
        throw mapSqliteError(error, this.conn.path);
      }
      this.conn.commit();
    }
  }

  /** Appends and projects inside the transaction `#beginInStep` opened at `state`, then commits. */
  #commit(state: ProjectionState, change: StateChange, meta: EventMeta): LogEvent {
    let event: LogEvent;
    try {
      const input = { ...meta, stream: STATE_STREAM, type: change.type, payload: change.payload };
      // The stamper's payloads are valid by construction: not checked again, and the row is marked validated.
      event = this.log.appendInTransaction(input, state.seq + 1).event;
      this.projection.apply(change);
      this.projection.saveState({ seq: event.seq, maxHlc: maxHlc(state.maxHlc, changeHlc(change)), generation: state.generation });
    } catch (error) {
      this.conn.rollback();
      throw mapSqliteError(error, this.conn.path);
    }
    this.conn.commit();
    return event;
  }

  maxHlc() {
    return mapErrors(() => this.projection.state().maxHlc, this.conn.path);
  }

  async capture(): Promise<Snapshot> {
    return mapErrors(() => captureSnapshot(this.conn, this.projection), this.conn.path);
  }

  async close(): Promise<void> {
    await this.conn.close();
  }
}

/** The whole projection and its seq, read in one read transaction, in canonical order. */
export function captureSnapshot(conn: Connection, projection: Projection): Snapshot {
  return conn.read(() => {
    const seq = projection.state().seq;
    const sessions = (conn.prepare('SELECT * FROM sessions').all() as SessionRow[]).map(sessionFromRow);
    const turns = (conn.prepare('SELECT * FROM turns').all() as TurnRow[]).map(turnFromRow);
    const skills = (conn.prepare('SELECT * FROM skills').all() as SkillRow[]).map(skillFromRow);
    const memory = (conn.prepare('SELECT * FROM memory').all() as MemoryRow[]).map(memoryFromRow);
    return sortSnapshot({ seq, sessions, turns, skills, memory });
  });
}
