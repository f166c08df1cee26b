/**
 * The event log in PostgreSQL (docs/contract.md §7): `events`, `snapshots`
 * and one `streams` row per stream holding its head. Every append locks its
 * stream's row (an upsert that increments `head`) until it commits, so the
 * seqs of a stream are dense and commit in seq order: a reader following the
 * log never meets a lower seq committing after a higher one it has read
 * (the "skipped event" problem), at the cost of one writer per stream at a
 * time. Appends follow core's shared rules (`toLogEvent`); a failed append
 * consumes no seq, since the increment rolls back with it.
 */
import type { SubscribeOptions, Subscription } from './subscribe.js';
import { subscribeTo } from './subscribe.js';
import type { AppendInput, Clock, Log, LogEvent, ReadQuery, StoredSnapshot, UpcasterRegistry } from '@agentstate/core';
import { CorruptionError, EventTypes, formatInstant, STATE_STREAM, systemClock, ValidationError } from '@agentstate/core';
import type { EventRow, ReplaySource } from '@agentstate/core/backend';
import { checkSnapshot, checkStream, EVENT_COLUMNS, eventFromRow, parseReadQuery, parseUpToSeq, prepareEvent, rowPayload } from '@agentstate/core/backend';
import type { Database, Sql } from './database.js';
import type { ProjectionState } from './projection.js';
import { dropOtherFormats } from './snapshot-patch.js';

/** Snapshot rows per statement of a snapshot's store: a chunk is at most about 16 KB, so a statement stays a few megabytes. */
const STORE_BATCH = 200;

/** Options of {@link PostgresLog}. */
export interface PostgresLogOptions {
  /** Stamps `time` on events appended without one. Default: the system clock. */
  clock?: Clock | undefined;
  /** Lets `state` events of older schema versions be checked on append, as a fold will read them. */
  upcasters?: UpcasterRegistry | undefined;
}

/**
 * A {@link Log} in one schema. An append to the `state` stream is refused
 * with a `ValidationError` unless the decoder will read it.
 */
export class PostgresLog implements Log {
  readonly #now: () => string;
  readonly #upcasters: UpcasterRegistry | undefined;
  #identity: string | undefined;
  #onClose: (() => Promise<void>) | undefined;

  constructor(
    private readonly db: Database,
    options: PostgresLogOptions = {},
  ) {
    const clock = options.clock ?? systemClock;
    this.#now = () => formatInstant(clock.now());
    this.#upcasters = options.upcasters;
  }

  async append<P>(input: AppendInput<P>): Promise<LogEvent<P>> {
    const stream = checkStream((input as AppendInput<P> | undefined)?.stream);
    return this.db.transaction(async (sql) => {
      const { seq, previous } = await this.#nextSeq(sql, stream);
      const { event, text } = await this.#insert(sql, input, seq, previous, true);
      return { ...event, payload: JSON.parse(text) as P };
    });
  }

  /**
   * Appends `inputs` in order as one transaction: every event is stored, or
   * none is. One refused `state` event refuses the whole batch, named by
   * its position.
   */
  async appendMany<P>(inputs: readonly AppendInput<P>[]): Promise<LogEvent<P>[]> {
    if (!Array.isArray(inputs as unknown)) throw new ValidationError('', 'appendMany takes an array of appends');
    return this.db.transaction(async (sql) => {
      const out: LogEvent<P>[] = [];
      for (const [i, input] of inputs.entries()) {
        try {
          const stream = checkStream((input as AppendInput<P> | undefined)?.stream);
          const { seq, previous } = await this.#nextSeq(sql, stream);
          out.push((await this.#insert(sql, input, seq, previous, true)).event);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          throw new ValidationError(`${i}${error.field ? `.${error.field}` : ''}`, error.message.replace(/^invalid (input|\S+): /, ''));
        }
      }
      return out;
    });
  }

  /**
   * Increments and locks the stream's head until the transaction ends;
   * returns the new seq and the time of the event before it, read in the
   * same statement under that lock.
   */
  async #nextSeq(sql: Sql, stream: string): Promise<{ seq: number; previous: string | undefined }> {
    const [row] = await sql.rows<{ head: number; previous: string | null }>(
      `WITH next AS (INSERT INTO ${this.db.t('streams')} AS s (stream, head) VALUES ($1, 1) ON CONFLICT (stream) DO UPDATE SET head = s.head + 1 RETURNING head)
       SELECT next.head, (SELECT e.time FROM ${this.db.t('events')} e WHERE e.stream = $1 AND e.seq = next.head - 1) AS previous FROM next`,
      [stream],
    );
    const seq = row!.head;
    // The statement's snapshot began before it waited for the lock: an event its holder appended is read now.
    return { seq, previous: row!.previous ?? (seq > 1 ? await this.timeAt(sql, stream, seq - 1) : undefined) };
  }

  /** The time of the event at `seq` of `stream`, as `sql` sees it now. */
  async timeAt(sql: Sql, stream: string, seq: number): Promise<string | undefined> {
    const [row] = await sql.rows<{ time: string }>(`SELECT time FROM ${this.db.t('events')} WHERE stream = $1 AND seq = $2`, [stream, seq]);
    return row?.time;
  }

  /**
   * @internal An import's append, inside its transaction, which holds the
   * `state` head's lock and read `seq - 1` as the head; `previous` is the
   * time of the event at `seq - 1` of the stream.
   */
  async appendInTransaction<P>(sql: Sql, input: AppendInput<P>, seq: number, previous: string | undefined): Promise<LogEvent<P>> {
    await sql.rows(`UPDATE ${this.db.t('streams')} SET head = $2 WHERE stream = $1`, [input.stream, seq]);
    return (await this.#insert(sql, input, seq, previous, false)).event;
  }

  /**
   * @internal {@link appendInTransaction} for the store's own commit: the
   * head, the event and the projection's new state (`projection_state`)
   * written by one statement, one round trip under the head's lock.
   * `previous` is the time of the event at `seq - 1`, which the lock read.
   */
  async appendStateInTransaction<P>(
    sql: Sql,
    input: AppendInput<P>,
    seq: number,
    previous: string | undefined,
    projection: ProjectionState,
  ): Promise<LogEvent<P>> {
    const { event, values } = prepareEvent(input, seq, this.#now, () => previous);
    await sql.rows(
      `WITH head AS (UPDATE ${this.db.t('streams')} SET head = $2 WHERE stream = $1),
         projected AS (UPDATE ${this.db.t('projection_state')} SET seq = $2, hlc_wall = $15, hlc_counter = $16, generation = $17 WHERE id = 1)
       INSERT INTO ${this.db.t('events')} (${EVENT_COLUMNS}, validated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [...values, true, projection.maxHlc.wall, projection.maxHlc.counter, projection.generation],
    );
    return event;
  }

  /** Builds, checks (a `state` event from outside the stores must be one the decoder reads) and inserts one event. */
  async #insert<P>(sql: Sql, input: AppendInput<P>, seq: number, previous: string | undefined, check: boolean): Promise<{ event: LogEvent<P>; text: string }> {
    const { event, text, values, validated } = prepareEvent(input, seq, this.#now, () => previous, check ? { upcasters: this.#upcasters } : undefined);
    await sql.rows(`INSERT INTO ${this.db.t('events')} (${EVENT_COLUMNS}, validated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, [
      ...values,
      validated,
    ]);
    return { event, text };
  }

  async read(query: ReadQuery): Promise<LogEvent[]> {
    const { stream, afterSeq, limit } = parseReadQuery(query);
    return (await this.readRows(this.db, stream, afterSeq, limit)).map((row) => eventFromRow(row));
  }

  /** Rows of `stream` after `afterSeq` in seq order (`limit` 0: all). */
  readRows(sql: Sql, stream: string, afterSeq: number, limit: number): Promise<(EventRow & { validated: boolean })[]> {
    return sql.rows(`SELECT ${EVENT_COLUMNS}, validated FROM ${this.db.t('events')} WHERE stream = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [
      stream,
      afterSeq,
      limit > 0 ? limit : null,
    ]);
  }

  /** Events of `stream` for a fold: checked payloads, and whether this library validated them when it wrote them. */
  async readForFold(sql: Sql, stream: string, afterSeq: number, limit: number): Promise<{ event: LogEvent; validated: boolean }[]> {
    const rows = await this.readRows(sql, stream, afterSeq, limit);
    return rows.map((row) => ({
      event: { stream, seq: row.seq, type: row.type, time: '', schemaVersion: row.schema_version, payload: rowPayload(row) },
      validated: row.validated,
    }));
  }

  async head(stream: string): Promise<number> {
    checkStream(stream);
    return this.headIn(this.db, stream);
  }

  /** The head of `stream` as `sql` sees it. */
  async headIn(sql: Sql, stream: string): Promise<number> {
    const [row] = await sql.rows<{ head: number }>(`SELECT head FROM ${this.db.t('streams')} WHERE stream = $1`, [stream]);
    return row?.head ?? 0;
  }

  async identity(): Promise<string> {
    if (this.#identity !== undefined) return this.#identity;
    this.#identity = await this.identityIn(this.db);
    return this.#identity;
  }

  /** The store's identity as `sql` sees it. */
  async identityIn(sql: Sql): Promise<string> {
    const [row] = await sql.rows<{ value: string }>(`SELECT value FROM ${this.db.t('store_meta')} WHERE key = 'log_identity'`);
    if (typeof row?.value !== 'string' || row.value === '')
      throw new CorruptionError(STATE_STREAM, 0, 'the schema has no store identity, so no snapshot can be bound to it');
    return row.value;
  }

  async saveSnapshot(snapshot: StoredSnapshot): Promise<void> {
    checkSnapshot(snapshot);
    await this.#upsertSnapshots(this.db, [snapshot]);
  }

  /**
   * Stores the rows of a snapshot captured at `seq` in `sql`'s transaction, which holds the `state` head
   * lock, dropping those of earlier formats, unless a purge was appended after `seq` (see
   * `StateBackend.storeSnapshot`); whether it stored them.
   */
  async storeSnapshotIn(sql: Sql, rows: readonly StoredSnapshot[], seq: number): Promise<boolean> {
    const purged = await sql.rows(`SELECT 1 FROM ${this.db.t('events')} WHERE stream = $1 AND seq > $2 AND type = $3 LIMIT 1`, [
      STATE_STREAM,
      seq,
      EventTypes.RecordsPurged,
    ]);
    if (purged.length > 0) return false;
    await this.#upsertSnapshots(sql, rows);
    await dropOtherFormats(this.db, sql);
    return true;
  }

  /**
   * Stores snapshot rows, each replacing the row at its `(stream, seq)`; a row stored before with the
   * same text is left as it is: most chunks of a snapshot are shared with the last one.
   */
  async #upsertSnapshots(sql: Sql, rows: readonly StoredSnapshot[]): Promise<void> {
    for (let i = 0; i < rows.length; i += STORE_BATCH) {
      const batch = rows.slice(i, i + STORE_BATCH);
      await sql.rows(
        `INSERT INTO ${this.db.t('snapshots')} AS s (stream, seq, data) SELECT * FROM unnest($1::text[], $2::bigint[], $3::bytea[])
          ON CONFLICT (stream, seq) DO UPDATE SET data = excluded.data WHERE s.data IS DISTINCT FROM excluded.data`,
        // Bytes, not text: a text column refuses NUL, and snapshot data may be any string.
        [batch.map((row) => row.stream), batch.map((row) => row.seq), batch.map((row) => Buffer.from(row.data, 'utf8'))],
      );
    }
  }

  async latestSnapshot(stream: string, options?: { upToSeq?: number }): Promise<StoredSnapshot | undefined> {
    return this.latestSnapshotIn(this.db, stream, options);
  }

  /** {@link latestSnapshot} as `sql` sees it. */
  async latestSnapshotIn(sql: Sql, stream: string, options?: { upToSeq?: number }): Promise<StoredSnapshot | undefined> {
    checkStream(stream);
    const upTo = parseUpToSeq(options);
    const [row] = await sql.rows<{ stream: string; seq: number; data: Buffer }>(
      `SELECT stream, seq, data FROM ${this.db.t('snapshots')} WHERE stream = $1 AND seq <= $2 ORDER BY seq DESC LIMIT 1`,
      [stream, upTo],
    );
    return row ? { stream: row.stream, seq: row.seq, data: row.data.toString('utf8') } : undefined;
  }

  /**
   * @internal The reading half of the log as `sql` sees it: inside one
   * transaction, a consistent view for verification and rebuilds.
   */
  readerIn(sql: Sql): ReplaySource {
    return {
      head: (stream) => this.headIn(sql, checkStream(stream)),
      read: async (query) => {
        const { stream, afterSeq, limit } = parseReadQuery(query);
        return (await this.readRows(sql, stream, afterSeq, limit)).map((row) => eventFromRow(row));
      },
      latestSnapshot: (stream, options) => this.latestSnapshotIn(sql, stream, options),
      identity: () => this.identityIn(sql),
    };
  }

  /**
   * Follows `options.stream` (default `state`) live: the events after
   * `options.afterSeq` (default: the head now), exactly once in seq order,
   * as they commit. Iterate the subscription; leaving the loop ends it.
   */
  subscribe(options?: SubscribeOptions): Subscription {
    return subscribeTo(this.db, this, options);
  }

  /** Ends the pool when this log owns it (see `openPostgresLog`); else nothing. */
  async close(): Promise<void> {
    await this.#onClose?.();
  }

  /** @internal Makes {@link close} close the database. */
  ownDatabase(): void {
    this.#onClose = () => this.db.close();
  }
}
