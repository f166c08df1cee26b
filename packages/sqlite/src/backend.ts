/**
 * The SQLite {@link StateBackend}. Every mutation is one `BEGIN IMMEDIATE`
 * transaction: the look-ups the stamper needs run inside it (so writes of
 * other processes are seen), and `commit` appends the event, projects it and
 * commits, synchronously. Nothing uncommitted is ever visible to a reader on
 * this connection, and a call that fails leaves no event and no row.
 */
import type { EventMeta, LogEvent, Snapshot, StateChange, Turn, UpcasterRegistry } from '@agentstate/core';
import type { StateBackend, StateQueries, StateWriteTx, TurnVectorQuery, VectorStore } from '@agentstate/core/backend';
import { ClosedError, EventTypes, STATE_SCHEMA_VERSION, STATE_STREAM } from '@agentstate/core';
import { changeHlc, maxHlc, sortSnapshot } from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import { mapErrors, mapSqliteError } from './errors.js';
import type { SqliteLog } from './log.js';
import { foldPending } from './fold.js';
import { eraseHistory } from './purge.js';
import type { Projection, ProjectionState } from './projection.js';
import { tableLookups } from './queries.js';
import { allCheckpointRows } from './checkpoint-rows.js';
import type { MemoryRow, OperationRow, SessionRow, SkillRow, TurnRow } from './rows.js';
import { memoryFromRow, operationFromRow, sessionFromRow, skillFromRow, turnFromRow } from './rows.js';

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
        foldPending(this.log, this.projection, tableLookups(this.conn), this.options.upcasters);
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
      const input = { ...meta, stream: STATE_STREAM, type: change.type, schemaVersion: STATE_SCHEMA_VERSION, payload: change.payload };
      // The stamper's payloads are valid by construction: not checked again, and the row is marked validated.
      event = this.log.appendInTransaction(input, state.seq + 1).event;
      this.projection.apply(change, event.seq);
      if (change.type === EventTypes.RecordsPurged) eraseHistory(this.conn, this.log, change, event.seq, this.options.upcasters);
      this.projection.saveState({ seq: event.seq, maxHlc: maxHlc(state.maxHlc, changeHlc(change)), generation: state.generation });
    } catch (error) {
      this.conn.rollback();
      throw mapSqliteError(error, this.conn.path);
    }
    this.conn.commit();
    // A purge's old pages may still sit in the -wal file: copy them back and empty it (skipped while readers hold it).
    if (change.type === EventTypes.RecordsPurged) this.conn.db.pragma('wal_checkpoint(TRUNCATE)');
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
