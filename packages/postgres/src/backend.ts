/**
 * The PostgreSQL {@link StateBackend}. A write is one transaction that
 * first locks the `state` stream's head row (`FOR UPDATE`): the look-ups
 * the stamper needs run under that lock, so they see every earlier write of
 * every process; `commit` appends the event at head + 1, projects it and
 * the transaction commits, releasing the lock. Seqs are therefore dense,
 * and commit order is seq order: a reader following the log never skips
 * an event. The price is one writer at a time per schema (see the README).
 * Within a process writes also queue on a mutex, so waiting writers hold
 * one pooled connection, not all of them.
 */
import type { EventMeta, Hlc, LogEvent, Snapshot, StateChange, Turn, UpcasterRegistry } from '@agentstate/core';
import type { StateBackend, StateQueries, StateWriteTx, TurnVectorQuery, VectorStore } from '@agentstate/core/backend';
import { ClosedError, CorruptionError, EventTypes, STATE_SCHEMA_VERSION, STATE_STREAM } from '@agentstate/core';
import { changeHlc, maxHlc, Mutex, sortSnapshot } from '@agentstate/core/backend';
import { allCheckpointRows } from './checkpoints.js';
import type { Database, Sql } from './database.js';
import { foldPending } from './fold.js';
import { eraseHistory } from './purge.js';
import type { PostgresLog } from './log.js';
import { tableLookups } from './lookups.js';
import type { Projection, ProjectionState } from './projection.js';
import type { MemoryRow, OperationRow, SessionRow, SkillRow, TurnRow } from './rows.js';
import { memoryFromRow, operationFromRow, sessionFromRow, skillFromRow, turnFromRow } from './rows.js';

/** A {@link StateBackend} over one schema of a PostgreSQL database. */
export class PostgresBackend implements StateBackend {
  readonly name = 'postgres';
  readonly #mutex = new Mutex();
  #openedMaxHlc: Hlc | undefined;

  constructor(
    readonly db: Database,
    readonly log: PostgresLog,
    readonly projection: Projection,
    readonly queries: StateQueries,
    readonly vectors: VectorStore | undefined,
    readonly turnVectors: VectorStore<Turn, TurnVectorQuery> | undefined,
    private readonly upcasters: UpcasterRegistry | undefined,
  ) {}

  write<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T> {
    return this.#mutex.run(() =>
      this.db.transaction(async (sql) => {
        const state = await this.lockInStep(sql);
        let open = true;
        const tx: StateWriteTx = {
          ...tableLookups(this.db, sql),
          commit: (change, meta) => {
            if (!open) throw new ClosedError('this write transaction has already committed');
            open = false;
            return this.#commit(sql, state, change, meta);
          },
        };
        return fn(tx);
      }),
    );
  }

  /**
   * Locks the `state` head inside `sql`'s transaction and brings the
   * projection in step with the log: events a bare log append wrote are
   * folded first, so the look-ups see them.
   */
  async lockInStep(sql: Sql): Promise<ProjectionState> {
    // One round trip: the lock, and where the projection stands under it.
    const [row] = await sql.rows<{ head: number; seq: number; hlc_wall: number; hlc_counter: number; generation: number }>(
      `SELECT s.head, p.seq, p.hlc_wall, p.hlc_counter, p.generation FROM ${this.db.t('streams')} s CROSS JOIN ${this.db.t('projection_state')} p
       WHERE s.stream = $1 AND p.id = 1 FOR UPDATE OF s`,
      [STATE_STREAM],
    );
    // Migration 1 writes both rows and nothing deletes them: without one, the schema was damaged.
    if (row === undefined)
      throw new CorruptionError('database', 0, `schema ${this.db.schema} is damaged: the state stream's head row or the projection's state row is missing`);
    const state = { seq: row.seq, maxHlc: { wall: row.hlc_wall, counter: row.hlc_counter }, generation: row.generation };
    if (state.seq === row.head) return state;
    await foldPending(sql, this.log, this.projection, tableLookups(this.db, sql), this.upcasters);
    return this.projection.state(sql);
  }

  async #commit(sql: Sql, state: ProjectionState, change: StateChange, meta: EventMeta): Promise<LogEvent> {
    const input = { ...meta, stream: STATE_STREAM, type: change.type, schemaVersion: STATE_SCHEMA_VERSION, payload: change.payload };
    // The stamper's payloads are valid by construction: not checked again, and the row is marked validated.
    const event = await this.log.appendInTransaction(sql, input, state.seq + 1);
    await this.projection.apply(sql, change, event.seq);
    if (change.type === EventTypes.RecordsPurged) await eraseHistory(this.db, sql, this.log, change, event.seq, this.upcasters);
    await this.projection.saveState(sql, { seq: event.seq, maxHlc: maxHlc(state.maxHlc, changeHlc(change)), generation: state.generation });
    return event;
  }

  /** The largest HLC stored when the provider was opened ({@link openedAt}), else as stored now. */
  async maxHlc() {
    return this.#openedMaxHlc ?? (await this.projection.state(this.db)).maxHlc;
  }

  /**
   * Records where the projection stood when the provider opened: the engine
   * asks for the largest HLC once, at construction, without waiting, so the
   * answer is already at hand rather than a query that could fail unobserved.
   */
  openedAt(state: ProjectionState): void {
    this.#openedMaxHlc = state.maxHlc;
  }

  capture(): Promise<Snapshot> {
    return this.db.transaction(async (sql) => {
      const seq = (await this.projection.state(sql)).seq;
      const all = <R>(table: string) => sql.rows<R>(`SELECT * FROM ${this.db.t(table)}`);
      const sessions = (await all<SessionRow>('sessions')).map(sessionFromRow);
      const turns = (await all<TurnRow>('turns')).map(turnFromRow);
      const skills = (await all<SkillRow>('skills')).map(skillFromRow);
      const memory = (await all<MemoryRow>('memory')).map(memoryFromRow);
      const operations = (await all<OperationRow>('operations')).map(operationFromRow);
      return sortSnapshot({ seq, sessions, turns, skills, memory, operations, ...(await allCheckpointRows(this.db, sql)) });
    }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
