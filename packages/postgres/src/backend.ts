/**
 * The PostgreSQL {@link StateBackend}. A write is one transaction that
 * first locks the `state` stream's head row (`FOR UPDATE`): the look-ups
 * the stamper needs run under that lock, so they see every earlier write of
 * every process; each `commit` appends an event at head + 1 and projects
 * it, and the transaction commits, releasing the lock, when the write's
 * function resolves (group commit: several mutations, each in a
 * `SAVEPOINT`, share it). Seqs are therefore dense,
 * and commit order is seq order: a reader following the log never skips
 * an event. The price is one writer at a time per schema (see the README).
 * Within a process writes also queue on a mutex, so waiting writers hold
 * one pooled connection, not all of them.
 */
import type { EventMeta, Hlc, LogEvent, Snapshot, SnapshotCodec, StateChange, StoredSnapshot, Turn, UpcasterRegistry, VerifyReport } from '@agentstate/core';
import type { StateBackend, StateQueries, StateWriteTx, TurnVectorQuery, VectorStore } from '@agentstate/core/backend';
import { changeHlc, checkSnapshot, maxHlc, Mutex, sortSnapshot, storedPayload, rowCodec } from '@agentstate/core/backend';
import { ClosedError, CorruptionError, EventTypes, plainCodec, STATE_SCHEMA_VERSION, STATE_STREAM } from '@agentstate/core';
import { allCheckpointRows } from './checkpoints.js';
import type { Database, Sql } from './database.js';
import { foldPending } from './fold.js';
import { eraseHistory } from './purge.js';
import { beginLockingHead } from './head-lock.js';
import type { PostgresLog } from './log.js';
import { tableLookups } from './lookups.js';
import type { PostgresRebuildOptions, PostgresRebuildResult } from './rebuild.js';
import { rebuildSchema } from './rebuild.js';
import type { PostgresVerifyOptions } from './verify.js';
import { verifySchema } from './verify.js';
import type { Projection, ProjectionState } from './projection.js';

/** The row the head lock's statement reads. */
interface LockRow {
  head: number;
  /** The time of the event at `head`, when the lock statement's snapshot shows it. */
  head_time: string | null;
  seq: number;
  hlc_wall: number;
  hlc_counter: number;
  generation: number;
}

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
    readonly upcasters: UpcasterRegistry | undefined,
    /** Opens stored snapshots for verification and rebuilds. */
    readonly codec: SnapshotCodec | undefined,
  ) {}

  write<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T> {
    return this.#mutex.run(() =>
      // BEGIN and the lock in one round trip: every statement saved is time the head lock is not held.
      this.db.transaction(async (sql, opened) => {
        // Where the projection stands: each commit advances it (and stores it with its event).
        let state = await this.inStep(sql, opened as LockRow[]);
        // Each event's time is at least the one before it (docs/contract.md §7), whichever process wrote that.
        let headTime = await this.#headTime(sql, opened as LockRow[]);
        let open = true;
        let savepoints = 0;
        const tx: StateWriteTx = {
          ...tableLookups(this.db, sql),
          commit: async (change, meta) => {
            if (!open) throw new ClosedError('this write transaction has ended');
            const event = await this.#append(sql, state, headTime, change, meta);
            state = { seq: event.seq, maxHlc: maxHlc(state.maxHlc, changeHlc(change)), generation: state.generation };
            headTime = event.time;
            return event;
          },
          savepoint: async (inner) => {
            if (!open) throw new ClosedError('this write transaction has ended');
            const name = `s${savepoints++}`;
            const before = state;
            const timeBefore = headTime;
            await sql.rows(`SAVEPOINT ${name}`);
            try {
              const result = await inner();
              await sql.rows(`RELEASE SAVEPOINT ${name}`);
              return result;
            } catch (error) {
              // Undoes the rows and the seqs `inner` wrote, and clears an aborted transaction; it goes on.
              await sql.rows(`ROLLBACK TO SAVEPOINT ${name}`);
              await sql.rows(`RELEASE SAVEPOINT ${name}`);
              state = before;
              headTime = timeBefore;
              throw error;
            }
          },
        };
        try {
          return await fn(tx);
        } finally {
          open = false;
        }
      }, `BEGIN; ${this.#lockSql}`),
    );
  }

  /**
   * The statement that locks the `state` head and reads where the
   * projection stands under it. Without parameters (the stream's name is a
   * constant), so it can follow `BEGIN` in one simple query.
   */
  get #lockSql(): string {
    return `SELECT s.head, p.seq, p.hlc_wall, p.hlc_counter, p.generation,
         (SELECT e.time FROM ${this.db.t('events')} e WHERE e.stream = s.stream AND e.seq = s.head) AS head_time
       FROM ${this.db.t('streams')} s CROSS JOIN ${this.db.t('projection_state')} p
       WHERE s.stream = '${STATE_STREAM}' AND p.id = 1 FOR UPDATE OF s`;
  }

  /**
   * The time of the `state` head, given the rows of the lock statement. That
   * statement reads the events with the snapshot it began with: after
   * waiting for the lock, the event its holder appended is not in it, and the
   * time is read again now that the lock is held.
   */
  async #headTime(sql: Sql, rows: readonly LockRow[]): Promise<string | undefined> {
    const [row] = rows;
    if (row === undefined || row.head === 0) return undefined;
    return row.head_time ?? this.log.timeAt(sql, STATE_STREAM, row.head);
  }

  /**
   * Locks the `state` head inside `sql`'s transaction and brings the
   * projection in step with the log: events a bare log append wrote are
   * folded first, so the look-ups see them, telling `onProgress` after
   * each batch.
   */
  async lockInStep(sql: Sql, onProgress?: (done: number, total: number) => void): Promise<ProjectionState> {
    return this.inStep(sql, await sql.rows<LockRow>(this.#lockSql), onProgress);
  }

  /** Brings the projection in step with the log, given the rows of the lock statement. */
  async inStep(sql: Sql, rows: readonly LockRow[], onProgress?: (done: number, total: number) => void): Promise<ProjectionState> {
    const [row] = rows;
    // The creation script writes both rows and nothing deletes them: without one, the schema was damaged.
    if (row === undefined)
      throw new CorruptionError('database', 0, `schema ${this.db.schema} is damaged: the state stream's head row or the projection's state row is missing`);
    const state = { seq: row.seq, maxHlc: { wall: row.hlc_wall, counter: row.hlc_counter }, generation: row.generation };
    if (state.seq === row.head) return state;
    const total = row.head - state.seq;
    await foldPending(sql, this.log, this.projection, tableLookups(this.db, sql), this.upcasters, (seq) => onProgress?.(seq - state.seq, total));
    return this.projection.state(sql);
  }

  /** Appends the change at the seq after `state` and projects it, inside the open transaction. */
  async #append(sql: Sql, state: ProjectionState, headTime: string | undefined, change: StateChange, meta: EventMeta): Promise<LogEvent> {
    const input = { ...meta, stream: STATE_STREAM, type: change.type, schemaVersion: STATE_SCHEMA_VERSION, payload: storedPayload(change) };
    const seq = state.seq + 1;
    // The head, the event and where the projection stands in one statement; the stamper's payloads are
    // valid by construction: not checked again, and the row is marked validated.
    const event = await this.log.appendStateInTransaction(sql, input, seq, headTime, {
      seq,
      maxHlc: maxHlc(state.maxHlc, changeHlc(change)),
      generation: state.generation,
    });
    await this.projection.apply(sql, change, event.seq);
    if (change.type === EventTypes.RecordsPurged)
      await eraseHistory(this.db, sql, change, event.seq, { log: this.log, codec: this.codec ?? plainCodec }, this.upcasters);
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
    return this.db.transaction((sql) => this.captureIn(sql), 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  storeSnapshot(rows: readonly StoredSnapshot[], seq: number): Promise<boolean> {
    for (const row of rows) checkSnapshot(row);
    // Under the `state` head lock, like a write: a purge commits wholly before (its event is seen) or after (it patches these rows).
    return this.#mutex.run(() => this.db.transaction((sql) => this.log.storeSnapshotIn(sql, rows, seq), beginLockingHead(this.db)));
  }

  /** The tables as `sql` sees them, as a snapshot at the projection's seq. */
  async captureIn(sql: Sql): Promise<Snapshot> {
    const seq = (await this.projection.state(sql)).seq;
    const all = <R>(table: string) => sql.rows<R>(`SELECT * FROM ${this.db.t(table)}`);
    const sessions = (await all<rowCodec.SessionRow>('sessions')).map(rowCodec.sessionFromRow);
    const turns = (await all<rowCodec.TurnRow>('turns')).map(rowCodec.turnFromRow);
    const skills = (await all<rowCodec.SkillRow>('skills')).map(rowCodec.skillFromRow);
    const memory = (await all<rowCodec.MemoryRow>('memory')).map(rowCodec.memoryFromRow);
    const operations = (await all<rowCodec.OperationRow>('operations')).map(rowCodec.operationFromRow);
    return sortSnapshot({ seq, sessions, turns, skills, memory, operations, ...(await allCheckpointRows(this.db, sql)) });
  }

  /**
   * Checks the schema: the log replayed against the tables and stored
   * snapshots, in one read-only transaction (see `verify.ts`).
   */
  verify(options: PostgresVerifyOptions = {}): Promise<VerifyReport> {
    return verifySchema(this, options);
  }

  /**
   * Re-derives the tables from the log in one transaction under the head's
   * lock (see `rebuild.ts`); the process's own writers wait on the mutex.
   */
  rebuild(options: PostgresRebuildOptions = {}): Promise<PostgresRebuildResult> {
    return this.#mutex.run(() => rebuildSchema(this, options));
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
