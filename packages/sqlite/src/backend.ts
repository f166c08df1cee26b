/**
 * The SQLite {@link StateBackend}. Every write is one `BEGIN IMMEDIATE`
 * transaction: the look-ups the stamper needs run inside it (so writes of
 * other processes are seen), each `commit` appends an event and projects it,
 * and the transaction commits when the write's function resolves (group
 * commit: several mutations, each in a `SAVEPOINT`, share one COMMIT and
 * one fsync). A call that fails leaves no event and no row. The write runs
 * on the connection's write handle; every read outside it goes to the read
 * handle, which sees the last COMMIT: no reader sees a mutation of a group
 * in flight, whose COMMIT may yet fail (a full disk, an I/O error).
 */
import type { EventMeta, LogEvent, Snapshot, SnapshotCodec, StateChange, StoredSnapshot, Turn, UpcasterRegistry } from '@agentstate/core';
import type { StateBackend, StateQueries, StateWriteTx, TurnVectorQuery, VectorStore } from '@agentstate/core/backend';
import { changeHlc, maxHlc, sortSnapshot, storedPayload, rowCodec } from '@agentstate/core/backend';
import { ClosedError, EventTypes, plainCodec, STATE_SCHEMA_VERSION, STATE_STREAM } from '@agentstate/core';
import type { Connection } from './connection.js';
import { aroundMethods, mapErrors, mapSqliteError } from './errors.js';
import type { SqliteLog } from './log.js';
import { foldEvent, foldPending, foldView } from './fold.js';
import { eraseHistory } from './purge.js';
import type { Projection, ProjectionState } from './projection.js';
import { tableLookups } from './queries.js';
import { allCheckpointRows } from './checkpoint-rows.js';
import { isAnonymous } from './file.js';
import { seedFrom } from './seed.js';

const SQL = {
  stateAndHead: `SELECT seq, hlc_wall, hlc_counter, generation, (SELECT max(seq) FROM events WHERE stream = ?) AS head,
    (SELECT time FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1) AS head_time FROM projection_state WHERE id = 1`,
  sessionWithLastSeq: 'SELECT s.*, (SELECT max(seq) FROM turns WHERE session_id = s.id) AS last_seq FROM sessions s WHERE s.id = ?',
} as const;

/** Options of {@link SqliteBackend}. */
export interface SqliteBackendOptions {
  upcasters?: UpcasterRegistry;
  /** The provider's snapshot codec: a purge opens and seals the snapshots it patches with it (plain when absent). */
  snapshotCodec?: SnapshotCodec;
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
  ) {
    this.#lookups = aroundMethods(queries, (call) => conn.onWriter(call));
  }

  /** Another SQLite store, of another file (or another `:memory:` database): an empty store of this backend seeds from it (`seed.ts`). */
  seedsFrom(source: StateBackend): source is SqliteBackend {
    return source instanceof SqliteBackend && source.conn !== this.conn && (source.conn.path !== this.conn.path || isAnonymous(this.conn.path));
  }

  /** {@link queries} on the write handle, for the look-ups of a write transaction, which must see its own writes. */
  readonly #lookups: StateQueries;

  write<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T> {
    const conn = this.conn;
    return conn.exclusive(async () => {
      // Where the projection stands: advanced by each commit, saved once before COMMIT.
      const begun = await this.#beginInStep();
      let state: ProjectionState = begun.state;
      // Each event's time is at least the one before it (docs/contract.md §7), whichever process wrote that.
      let headTime = begun.headTime;
      const opened = state;
      let open = true;
      let savepoints = 0;
      let purged = false;
      // A seed's one transaction leaves a -wal as large as the file it took.
      let seeded = false;
      // What a look-up of this transaction already read, which nothing changes before the next commit.
      const lastSeqs = new Map<string, number>();
      /** Moves the transaction past `event`, just stored with `change`. */
      const advance = (change: StateChange, event: LogEvent): LogEvent => {
        headTime = event.time;
        if (change.type === EventTypes.RecordsPurged) purged = true;
        // The next mutation of a group commit reads its own look-ups again.
        lastSeqs.clear();
        state = { seq: event.seq, maxHlc: maxHlc(state.maxHlc, changeHlc(change)), generation: state.generation };
        return event;
      };
      // The store's look-ups inherited, not copied: a copy of their three dozen methods at each write costs more than its stamping.
      const tx: StateWriteTx = Object.assign(Object.create(this.#lookups) as StateQueries, {
        // A session is read with its highest turn seq, which an append asks next: one statement for both.
        session: (id) =>
          mapErrors(() => {
            const row = conn.onWriter(() => conn.prepare(SQL.sessionWithLastSeq).get(id)) as (rowCodec.SessionRow & { last_seq: number | null }) | undefined;
            if (row === undefined) return undefined;
            lastSeqs.set(id, row.last_seq ?? 0);
            return rowCodec.sessionFromRow(row);
          }, conn.path),
        lastTurnSeq: (id) => lastSeqs.get(id) ?? this.#lookups.lastTurnSeq(id),
        commit: (change, meta) => {
          if (!open) throw new ClosedError('this write transaction has ended');
          return advance(
            change,
            conn.onWriter(() => this.#append(state, headTime, change, meta)),
          );
        },
        receive: (batch) => {
          if (!open) throw new ClosedError('this write transaction has ended');
          return conn.onWriter(() => {
            const view = foldView(tableLookups(conn));
            let merged = 0;
            const onMerge = () => {
              merged += 1;
            };
            const stored = this.projection.textInRowOrder(() =>
              batch.map(({ change, input, text }) => {
                const { event } = this.log.appendInTransaction(input, state.seq + 1, headTime, text);
                foldEvent(view, this.projection, change, event.seq, event.schemaVersion, onMerge);
                this.#erase(change, event.seq);
                return advance(change, event);
              }),
            );
            return { stored, merged };
          });
        },
        seed: async (source, received, onProgress) => {
          if (!open) throw new ClosedError('this write transaction has ended');
          if (!this.seedsFrom(source) || state.seq !== 0) return undefined;
          const took = await seedFrom(this, source, headTime, received, onProgress);
          if (took === undefined) return undefined;
          state = { seq: took.head, maxHlc: took.maxHlc, generation: state.generation };
          headTime = took.headTime;
          seeded = true;
          lastSeqs.clear();
          return took;
        },
        append: (inputs) => {
          if (!open) throw new ClosedError('this write transaction has ended');
          conn.onWriter(() => {
            for (const input of inputs) this.log.appendChecked(input);
          });
        },
        savepoint: async (inner) => {
          if (!open) throw new ClosedError('this write transaction has ended');
          const name = `s${savepoints++}`;
          const before = state;
          const timeBefore = headTime;
          conn.writer.exec(`SAVEPOINT ${name}`);
          try {
            const result = await inner();
            conn.writer.exec(`RELEASE ${name}`);
            return result;
          } catch (error) {
            // Undoes the rows and the seqs `inner` wrote; the transaction goes on.
            conn.writer.exec(`ROLLBACK TO ${name}`);
            conn.writer.exec(`RELEASE ${name}`);
            state = before;
            headTime = timeBefore;
            lastSeqs.clear();
            throw mapSqliteError(error, conn.path);
          }
        },
      } satisfies Partial<StateWriteTx>);
      try {
        const result = await fn(tx);
        if (state !== opened) conn.onWriter(() => this.projection.saveState(state));
        open = false;
        conn.commit();
        if (purged || this.#erasedInWal) this.#emptyWal();
        else if (seeded) this.conn.writer.pragma('wal_checkpoint(TRUNCATE)');
        return result;
      } catch (error) {
        throw mapSqliteError(error, conn.path);
      } finally {
        open = false;
        conn.rollback();
      }
    });
  }

  /**
   * Whether a purge's old pages may still be on disk: its `TRUNCATE` checkpoint found readers in other
   * connections still reading a snapshot from before it. Tried again after every later commit, and at close.
   */
  #erasedInWal = false;

  /**
   * Copies the -wal back into the database file and empties it, so a purge's old pages leave the disk:
   * the file's get the erased pages, and the -wal's are cut off. A reader of a snapshot older than the
   * purge stops it (it is not waited for); then it is left for a later commit of this connection.
   */
  #emptyWal(): void {
    const [result] = this.conn.writer.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    this.#erasedInWal = result?.busy !== 0;
  }

  /**
   * Opens the write transaction with the projection in step with the log.
   * Events appended to the `state` stream by someone else (a bare log
   * append) are folded first, in a transaction of their own, so that the
   * look-ups see them and nothing uncommitted is ever visible.
   */
  async #beginInStep(): Promise<{ state: ProjectionState; headTime: string | undefined }> {
    const conn = this.conn;
    for (;;) {
      await conn.beginWhenFree();
      const { head, headTime, ...state } = conn.onWriter(() => this.#stateAndHead());
      if (state.seq === head) return { state, headTime };
      try {
        conn.onWriter(() => foldPending(this.log, this.projection, tableLookups(conn), { upcasters: this.options.upcasters }));
      } catch (error) {
        conn.rollback();
        throw mapSqliteError(error, conn.path);
      }
      conn.commit();
    }
  }

  /** Where the projection stands and the head of the `state` stream with its time, in one statement. */
  #stateAndHead(): ProjectionState & { head: number; headTime: string | undefined } {
    const row = this.conn.prepare(SQL.stateAndHead).get(STATE_STREAM, STATE_STREAM) as
      | { seq: number; hlc_wall: number; hlc_counter: number; generation: number; head: number | null; head_time: string | null }
      | undefined;
    // Without the state row the file is damaged: the projection says so in its own words.
    if (row === undefined) return { ...this.projection.state(), head: 0, headTime: undefined };
    return {
      seq: row.seq,
      maxHlc: { wall: row.hlc_wall, counter: row.hlc_counter },
      generation: row.generation,
      head: row.head ?? 0,
      headTime: row.head_time ?? undefined,
    };
  }

  /** Appends the change at the seq after `state` (whose event has time `headTime`) and projects it, inside the open transaction. */
  #append(state: ProjectionState, headTime: string | undefined, change: StateChange, meta: EventMeta): LogEvent {
    const input = { ...meta, stream: STATE_STREAM, type: change.type, schemaVersion: STATE_SCHEMA_VERSION, payload: storedPayload(change) };
    // The stamper's payloads are valid by construction: not checked again, and the row is marked validated.
    const event = this.log.appendInTransaction(input, state.seq + 1, headTime).event;
    this.projection.apply(change, event.seq);
    this.#erase(change, event.seq);
    return event;
  }

  /** A purge's rewrite of the earlier events that carried its records, inside the open transaction. */
  #erase(change: StateChange, seq: number): void {
    if (change.type !== EventTypes.RecordsPurged) return;
    // The merge of the full-text index must see the purged rows' texts gone.
    this.projection.flushText();
    eraseHistory(this.conn, change, seq, { log: this.log, codec: this.options.snapshotCodec ?? plainCodec }, this.options.upcasters);
  }

  maxHlc() {
    return mapErrors(() => this.projection.state().maxHlc, this.conn.path);
  }

  async capture(): Promise<Snapshot> {
    return mapErrors(() => captureSnapshot(this.conn, this.projection), this.conn.path);
  }

  storeSnapshot(rows: readonly StoredSnapshot[], seq: number): Promise<boolean> {
    return this.log.storeSnapshot(rows, seq);
  }

  async close(): Promise<void> {
    // One more try before the handle goes; if it fails too, closing goes on (the last connection to close empties it).
    if (this.#erasedInWal) await this.conn.exclusive(() => this.#emptyWal()).catch(() => undefined);
    await this.conn.close();
  }
}

/** The whole projection and its seq, read in one read transaction, in canonical order. */
export function captureSnapshot(conn: Connection, projection: Projection): Snapshot {
  return conn.read(() => {
    const seq = projection.state().seq;
    const sessions = (conn.prepare('SELECT * FROM sessions').all() as rowCodec.SessionRow[]).map(rowCodec.sessionFromRow);
    const turns = (conn.prepare('SELECT * FROM turns').all() as rowCodec.TurnRow[]).map(rowCodec.turnFromRow);
    const skills = (conn.prepare('SELECT * FROM skills').all() as rowCodec.SkillRow[]).map(rowCodec.skillFromRow);
    const memory = (conn.prepare('SELECT * FROM memory').all() as rowCodec.MemoryRow[]).map(rowCodec.memoryFromRow);
    const operations = (conn.prepare('SELECT * FROM operations').all() as rowCodec.OperationRow[]).map(rowCodec.operationFromRow);
    return sortSnapshot({ seq, sessions, turns, skills, memory, operations, ...allCheckpointRows(conn) });
  });
}
