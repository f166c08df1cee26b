/**
 * The PostgreSQL {@link StateBackend}. A write is one transaction that
 * first takes the schema's writers' lock shared (`writers-lock.ts`), in
 * the round trip of its `BEGIN`: writers of every process run in parallel.
 * The stamper's look-ups lock what they read for a decision (`lookups.ts`);
 * each `commit` then takes the event's position from the sequence, after
 * those locks, inserts the event and projects it (group commit: several
 * mutations, each in a `SAVEPOINT`, share the transaction). So a write that
 * depended on another's rows takes a later position, and the tables are
 * always the fold of the committed events. Two writers that decided the
 * same missing thing (a slug, a key, an id, an operation id) collide on a
 * unique index; that, a serialization failure, a deadlock, or a prepared
 * statement another process's change of a table made stale retries the
 * whole write from its start. Within a process writes queue on a mutex, so
 * waiting writers hold one pooled connection, not all of them.
 */
import type {
  EventMeta,
  Hlc,
  LogEvent,
  Session,
  Snapshot,
  SnapshotCodec,
  StateChange,
  StoredSnapshot,
  Turn,
  UpcasterRegistry,
  VerifyReport,
} from '@agentstate/core';
import type { ReceivedEvent, RebuildOptions, RebuildResult, StateBackend, StateQueries, StateWriteTx, VerifyOptions } from '@agentstate/core/backend';
import type { TurnVectorQuery, VectorStore } from '@agentstate/core/backend';
import { checkSnapshot, eventFromRow, Mutex, sortSnapshot, storedPayload, rowCodec } from '@agentstate/core/backend';
import { ClosedError, ConflictError, CorruptionError, EventTypes, plainCodec, STATE_SCHEMA_VERSION, STATE_STREAM } from '@agentstate/core';
import { allCheckpointRows } from './checkpoints.js';
import { type Database, replanned, type Sql } from './database.js';
import { foldChanges, foldPending } from './fold.js';
import { isStaleGuess, type KnownSession, KnownSessions, knownAppendTexts, queueKnownAppend } from './known-append.js';
import { eraseHistory } from './purge.js';
import type { PostgresLog } from './log.js';
import { tableLookups } from './lookups.js';
import { rebuildSchema } from './rebuild.js';
import { verifySchema } from './verify.js';
import type { Projection } from './projection.js';
import { beginQuiescentRead, beginWriting, writersLock } from './writers-lock.js';

/** Tries of a write that keeps colliding with concurrent ones, before its `ConflictError` is the caller's. */
const WRITE_TRIES = 20;

/** SQLSTATEs that mean another writer got there first: unique violation, serialization failure, deadlock. */
const COLLISIONS = new Set(['23505', '40001', '40P01']);

/**
 * A write that decided on a known session (`known-append.ts`) found it changed, or decided what a known append
 * cannot send: tried again with the session read, so it reaches the caller only if every try failed so.
 */
class StaleGuess extends ConflictError {}

/**
 * Whether a write that failed with `error` (raw, or mapped with the driver's error as its cause) is tried again: a
 * collision with a concurrent writer, or a statement whose plan another process's change of a table made stale (the
 * connection prepares it again by the next try; a transaction cannot send it again within).
 */
function retried(error: unknown): boolean {
  const code = (e: unknown): unknown => (e as { code?: unknown } | null)?.code;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return (
    error instanceof StaleGuess ||
    COLLISIONS.has(code(error) as string) ||
    (error instanceof ConflictError && COLLISIONS.has(code(cause) as string)) ||
    replanned(error) ||
    replanned(cause)
  );
}

/** What a try of a write decided on and appended, for the sessions its process knows (`PostgresBackend.#attempt`). */
interface AttemptNotes {
  /** The known session the write decided on. */
  guess?: KnownSession & { id: string };
  /** The event of the known append it sent, and its rows, which the commit settles. */
  placing?: { event: LogEvent; rows: Promise<{ seq: number }[]> };
  /** Else the session read for an append outside a savepoint. */
  read?: Session | undefined;
  /** The turn appended outside a savepoint, to the known session or the one read. */
  appended?: Turn;
}

/** A {@link StateBackend} over one schema of a PostgreSQL database. */
export class PostgresBackend implements StateBackend {
  readonly name = 'postgres';
  readonly #mutex = new Mutex();
  #openedMaxHlc: Hlc | undefined;
  /** The time of this process's last event: its own events never go back in time, even when its clock does. */
  #lastTime: string | undefined;
  /** Whether the write's current try appended an event: one that appended nothing wakes no subscriber. */
  #appended = false;
  /** The sessions this process appended to, as its last append to each left them: its next append to one takes one round trip. */
  readonly #known = new KnownSessions();
  /** The statements of a known append, made once. */
  readonly #knownTexts: { lock: string; append: string };

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
  ) {
    this.#knownTexts = knownAppendTexts(db);
  }

  write<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T> {
    return this.#mutex.run(async () => {
      for (let tries = 1; ; tries += 1) {
        try {
          this.#appended = false;
          return await this.#attempt(fn);
        } catch (error) {
          if (tries >= WRITE_TRIES || !retried(error)) throw error;
        }
      }
    });
  }

  /**
   * One try of a write: the whole of `fn` in one transaction. A write alone that appends a turn to a session
   * (nothing sent before its look-up) decides on the session as this process's last append left it, if it
   * knows it, and sends its whole transaction in one round trip (`known-append.ts`).
   */
  async #attempt<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T> {
    const notes: AttemptNotes = {};
    let result: T;
    try {
      result = await this.#transaction(fn, notes);
      if (notes.placing !== undefined) {
        const [row] = await notes.placing.rows;
        notes.placing.event.seq = row!.seq;
      }
    } catch (error) {
      const stale = isStaleGuess(error);
      if (notes.guess !== undefined) this.#known.forget(notes.guess.id, stale);
      throw stale ? new StaleGuess('the session changed since this process last appended to it', { cause: error }) : error;
    }
    const { guess, read, appended } = notes;
    const before = guess?.session ?? read;
    if (before !== undefined && appended?.sessionId === before.id) this.#known.note(before, appended, guess !== undefined);
    return result;
  }

  /** The transaction of {@link #attempt}, noting in `notes` what it guessed, read and appended. */
  #transaction<T>(fn: (tx: StateWriteTx) => Promise<T>, notes: AttemptNotes): Promise<T> {
    return this.db.transaction(
      async (sql) => {
        let open = true;
        let savepoints = 0;
        // A collision inside a savepoint is undone there, but the write must be tried again whole: the others
        // of the group may have read what the colliding writer committed since.
        let collision: unknown;
        const lookups = tableLookups(this.db, sql, true);
        const { session: readSession, lastTurnSeq } = lookups;
        // The look-ups' own object, with the write's methods added: a copy of their two dozen methods, or an object
        // inheriting from one made for a single write, costs each write more than stamping its change.
        const tx: StateWriteTx = Object.assign(lookups, {
          // A session to append to, looked up first, outside a savepoint: as known, if it is; else read and noted.
          session: (id: string, appends = false) => {
            if (!appends || savepoints > 0 || sql.sent > 0) return readSession(id, appends);
            const known = this.#known.get(id);
            if (known !== undefined) {
              notes.guess = { id, ...known };
              return known.session;
            }
            return (async () => {
              notes.read = await readSession(id, appends);
              return notes.read;
            })();
          },
          lastTurnSeq: (sessionId: string) => (notes.guess?.id === sessionId ? notes.guess.lastTurn : lastTurnSeq(sessionId)),
          // Through the transaction: the log's own readers would wait for this write, which holds the writers' lock.
          readState: async (afterSeq, limit) => (await this.log.readRows(sql, STATE_STREAM, afterSeq, limit)).map((row) => eventFromRow(row)),
          commit: async (change, meta) => {
            if (!open) throw new ClosedError('this write transaction has ended');
            if (savepoints === 0 && change.type === EventTypes.TurnAppended) notes.appended = change.payload.turn;
            if (notes.guess !== undefined) return this.#appendKnown(sql, change, meta, notes.guess, notes);
            return this.#append(sql, change, meta, lookups.takenPosition());
          },
          receive: (batch) => {
            if (!open) throw new ClosedError('this write transaction has ended');
            return this.#receive(sql, batch);
          },
          append: async (inputs) => {
            if (!open) throw new ClosedError('this write transaction has ended');
            await this.log.appendChecked(sql, inputs);
            this.#appended = true;
          },
          savepoint: async (inner) => {
            if (!open) throw new ClosedError('this write transaction has ended');
            const name = `s${savepoints++}`;
            await sql.exec(`SAVEPOINT ${name}`);
            try {
              const result = await inner();
              // Sends what `inner` left waiting: its errors are its own.
              await sql.rows(`RELEASE SAVEPOINT ${name}`);
              return result;
            } catch (error) {
              // Undoes the rows `inner` wrote (its positions stay taken: gaps), and clears an aborted transaction; it goes on.
              // A statement of `inner` still waiting may fail first, in the same round trip: then the undo is sent again.
              const undo = () => sql.rows(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`);
              await undo().catch(undo);
              if (retried(error)) collision ??= error;
              throw error;
            }
          },
        } satisfies Partial<StateWriteTx>);
        try {
          const result = await fn(tx);
          if (collision !== undefined) throw collision;
          return result;
        } finally {
          open = false;
        }
      },
      beginWriting(this.db, 'shared'),
      true,
      () => this.#appended,
    );
  }

  /**
   * Queues the known append of `change` (`known-append.ts`), decided on `guess`: the event goes back with
   * seq 0, set once the commit has answered. A change a known append cannot send (another type, session or
   * statement, an idempotent write's operation) is a {@link StaleGuess}: the write is tried again reading.
   */
  #appendKnown(sql: Sql, change: StateChange, meta: EventMeta, guess: KnownSession & { id: string }, notes: AttemptNotes): LogEvent {
    if (change.type !== EventTypes.TurnAppended || change.payload.turn.sessionId !== guess.id || change.payload.operation !== undefined || sql.sent > 0)
      throw new StaleGuess('a known session decided a change its append cannot send');
    const input = { ...meta, stream: STATE_STREAM, type: change.type, schemaVersion: STATE_SCHEMA_VERSION, payload: storedPayload(change) };
    const prepared = this.log.prepareUnplaced(input, this.#lastTime);
    const rows = queueKnownAppend(sql, this.#knownTexts, change, prepared, guess);
    this.#lastTime = prepared.event.time;
    this.#appended = true;
    notes.placing = { event: prepared.event, rows };
    return prepared.event;
  }

  /**
   * Appends the change at the next position (or at `taken`, the one its session's look-up took) and projects
   * it, inside the open transaction.
   */
  async #append(sql: Sql, change: StateChange, meta: EventMeta, taken: number | undefined): Promise<LogEvent> {
    const input = { ...meta, stream: STATE_STREAM, type: change.type, schemaVersion: STATE_SCHEMA_VERSION, payload: storedPayload(change) };
    // Taken after every lock the change depends on: a write it depended on took a smaller one.
    const seq = taken ?? (await this.log.takePosition(sql));
    const event = await this.log.appendInTransaction(sql, input, seq, this.#lastTime);
    this.#lastTime = event.time;
    this.#appended = true;
    await this.projection.apply(sql, change, event.seq);
    if (change.type === EventTypes.RecordsPurged)
      await eraseHistory(this.db, sql, change, event.seq, { log: this.log, codec: this.codec ?? plainCodec }, this.upcasters);
    return event;
  }

  /**
   * Appends and folds events received from another store (docs/contract.md §12) inside the open transaction,
   * which takes the writers' lock exclusive: the fold checks them against tables no other writer is changing, and
   * what a receive stores commits whole, so every origin's entry of the vector is settled. Each event takes the
   * next position and the batch is folded as the receive decoded it; a purge erases as a local one does. A refused event is
   * a `CorruptionError` naming the seq it would take after the head in a dense log, whatever position it took.
   */
  async #receive(sql: Sql, batch: readonly ReceivedEvent[]): Promise<{ stored: LogEvent[]; merged: number }> {
    // Taken in the round trip of the head's read, before it, and the batch's positions after it.
    await sql.exec(writersLock(this.db, 'exclusive'));
    const [[last], positions] = (await sql.batch([
      [`SELECT seq, time FROM ${this.db.t('events')} WHERE stream = $1 ORDER BY seq DESC LIMIT 1`, [STATE_STREAM]],
      [`SELECT nextval('${this.db.t('positions')}') AS seq FROM generate_series(1, $1)`, [batch.length]],
    ])) as [({ seq: number; time: string } | undefined)[], { seq: number }[]];
    const head = last?.seq ?? 0;
    // Appended in one statement a thousand and folded together, the fold's look-ups and writes shared by the batch (held in
    // memory whole already): each record's rows are written once, whatever number of its versions the batch brings.
    let merged = 0;
    const events = await this.log.appendReceived(
      sql,
      batch,
      positions.map((row) => row.seq),
      last?.time,
    );
    try {
      // Folded as the receive decoded them: what was just written is neither read back nor decoded again.
      await foldChanges(
        sql,
        this.projection,
        tableLookups(this.db, sql),
        events.map((event, i) => ({ seq: event.seq, change: batch[i]!.change })),
        () => {
          merged += 1;
        },
      );
    } catch (error) {
      if (!(error instanceof CorruptionError)) throw error;
      const index = events.findIndex((event) => event.seq === error.seq);
      throw new CorruptionError(STATE_STREAM, head + index + 1, error.message.replace(/^corrupt \S+: /, ''), { cause: error });
    }
    // A purge erases the events before it, which a fold of the events after it neither reads nor writes.
    for (const [i, { change }] of batch.entries())
      if (change.type === EventTypes.RecordsPurged)
        await eraseHistory(this.db, sql, change, events[i]!.seq, { log: this.log, codec: this.codec ?? plainCodec }, this.upcasters);
    this.#lastTime = events.at(-1)?.time ?? last?.time;
    this.#appended = true;
    return { stored: events, merged };
  }

  /**
   * Folds the whole log into the (empty) tables inside `sql`'s transaction,
   * which holds the writers' lock exclusive, telling `onProgress` after each
   * batch: a derived part made again.
   */
  async foldAll(sql: Sql, onProgress?: (done: number, total: number) => void): Promise<void> {
    const [row] = await sql.rows<{ total: number }>(`SELECT count(*) AS total FROM ${this.db.t('events')} WHERE stream = $1`, [STATE_STREAM]);
    const total = row?.total ?? 0;
    await foldPending(sql, this.log, this.projection, tableLookups(this.db, sql), this.upcasters, 0, (done) => onProgress?.(done, total));
  }

  /** The largest HLC stored when the provider was opened ({@link openedAt}), else as stored now. */
  async maxHlc(): Promise<Hlc> {
    return this.#openedMaxHlc ?? this.projection.maxHlc(this.db);
  }

  /**
   * Records the largest HLC stored when the provider opened: the engine
   * asks for it once, at construction, without waiting, so the answer is
   * already at hand rather than a query that could fail unobserved.
   */
  openedAt(maxHlc: Hlc): void {
    this.#openedMaxHlc = maxHlc;
  }

  /** The tables with no writer in flight, so they are the fold of every event up to the last (`beginQuiescentRead`). */
  capture(): Promise<Snapshot> {
    return this.db.transaction((sql) => this.captureIn(sql), beginQuiescentRead(this.db));
  }

  storeSnapshot(rows: readonly StoredSnapshot[], seq: number): Promise<boolean> {
    for (const row of rows) checkSnapshot(row);
    // Under the writers' lock, like a write: a purge (which holds it exclusive) commits wholly before (its event
    // is seen) or after (it patches these rows).
    return this.#mutex.run(() => this.db.transaction((sql) => this.log.storeSnapshotIn(sql, rows, seq), beginWriting(this.db, 'shared')));
  }

  /** The tables as `sql` sees them, as a snapshot at the last event it sees. */
  async captureIn(sql: Sql): Promise<Snapshot> {
    const seq = await this.log.headIn(sql, STATE_STREAM);
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
  verify(options: VerifyOptions = {}): Promise<VerifyReport> {
    return verifySchema(this, options);
  }

  /**
   * Re-derives the tables from the log in one transaction holding the
   * writers' lock exclusive (see `rebuild.ts`); the process's own writers wait on the mutex.
   */
  rebuild(options: RebuildOptions = {}): Promise<RebuildResult> {
    return this.#mutex.run(() => rebuildSchema(this, options));
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
