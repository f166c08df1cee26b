/**
 * The SQLite {@link StateBackend}. Every mutation is one `BEGIN IMMEDIATE`
 * transaction: the look-ups the stamper needs run inside it (so writes of
 * other processes are seen), and `commit` appends the event, projects it and
 * commits, synchronously. Nothing uncommitted is ever visible to a reader on
 * this connection, and a call that fails leaves no event and no row.
 */
import type { EventMeta, LogEvent, Snapshot, StateChange, Turn, UpcasterRegistry } from '@agentstate/core';
import type { StateBackend, StateQueries, StateWriteTx, TurnVectorQuery, VectorStore } from '@agentstate/core/backend';
import { ClosedError, STATE_SCHEMA_VERSION, STATE_STREAM } from '@agentstate/core';
import { changeHlc, maxHlc, sortSnapshot, storedPayload } from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import { mapErrors, mapSqliteError } from './errors.js';
import type { SqliteLog } from './log.js';
import { foldPending } from './fold.js';
import type { Projection, ProjectionState } from './projection.js';
import { tableLookups } from './queries.js';
import { allCheckpointRows } from './checkpoint-rows.js';
import type { MemoryRow, OperationRow, SessionRow, SkillRow, TurnRow } from './rows.js';
import { memoryFromRow, operationFromRow, sessionFromRow, skillFromRow, turnFromRow } from './rows.js';

const SQL = {
  stateAndHead: `SELECT seq, hlc_wall, hlc_counter, generation, (SELECT max(seq) FROM events WHERE stream = ?) AS head
    FROM projection_state WHERE id = 1`,
  sessionWithLastSeq: 'SELECT s.*, (SELECT max(seq) FROM turns WHERE session_id = s.id) AS last_seq FROM sessions s WHERE s.id = ?',
} as const;

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
    readonly turnVectors: VectorStore<Turn, TurnVectorQuery> | undefined = undefined,
  ) {}

  write<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T> {
    return this.conn.exclusive(async () => {
      const state = this.#beginInStep();
      let open = true;
      // What a look-up of this transaction already read, which nothing changes before its one commit.
      const lastSeqs = new Map<string, number>();
      const tx: StateWriteTx = {
        ...this.queries,
        // A session is read with its highest turn seq, which an append asks next: one statement for both.
        session: (id) =>
          mapErrors(() => {
            const row = this.conn.prepare(SQL.sessionWithLastSeq).get(id) as (SessionRow & { last_seq: number | null }) | undefined;
            if (row === undefined) return undefined;
            lastSeqs.set(id, row.last_seq ?? 0);
            return sessionFromRow(row);
          }, this.conn.path),
        lastTurnSeq: (id) => lastSeqs.get(id) ?? this.queries.lastTurnSeq(id),
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
      const { head, ...state } = this.#stateAndHead();
      if (state.seq === head) return state;
      try {
        foldPending(this.log, this.projection, tableLookups(this.conn), this.options.upcasters);
      } catch (error) {
        this.conn.rollback();
        throw mapSqliteError(error, this.conn.path);
      }
      this.conn.commit();
    }
  }

  /** Where the projection stands and the head of the `state` stream, in one statement. */
  #stateAndHead(): ProjectionState & { head: number } {
    const row = this.conn.prepare(SQL.stateAndHead).get(STATE_STREAM) as
      | { seq: number; hlc_wall: number; hlc_counter: number; generation: number; head: number | null }
      | undefined;
    // Without the state row the file is damaged: the projection says so in its own words.
    if (row === undefined) return { ...this.projection.state(), head: 0 };
    return { seq: row.seq, maxHlc: { wall: row.hlc_wall, counter: row.hlc_counter }, generation: row.generation, head: row.head ?? 0 };
  }

  /** Appends and projects inside the transaction `#beginInStep` opened at `state`, then commits. */
  #commit(state: ProjectionState, change: StateChange, meta: EventMeta): LogEvent {
    let event: LogEvent;
    try {
      const input = { ...meta, stream: STATE_STREAM, type: change.type, schemaVersion: STATE_SCHEMA_VERSION, payload: storedPayload(change) };
      // The stamper's payloads are valid by construction: not checked again, and the row is marked validated.
      event = this.log.appendInTransaction(input, state.seq + 1).event;
      this.projection.apply(change, event.seq);
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
    const operations = (conn.prepare('SELECT * FROM operations').all() as OperationRow[]).map(operationFromRow);
    return sortSnapshot({ seq, sessions, turns, skills, memory, operations, ...allCheckpointRows(conn) });
  });
}
