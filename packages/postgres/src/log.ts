/**
 * The event log in PostgreSQL (docs/contract.md §7): `events`, `snapshots`
 * and one `streams` row per stream. The `state` stream's seqs are positions
 * from a sequence, taken by each event's writer after the locks its change
 * depends on (`writers-lock.ts`, `lookups.ts`): writers run in parallel and
 * commit out of position order, a rolled-back write leaves a gap, and a
 * reader reads only up to the high-water mark (`settled_position()`), below
 * which every position is settled, so it never skips or repeats an event.
 * Every other stream's append locks its row (an upsert that increments
 * `head`) until it commits: dense, committed in seq order. Appends follow
 * core's shared rules (`toLogEvent`).
 */
import type { SubscribeOptions, Subscription } from './subscribe.js';
import { subscribeTo } from './subscribe.js';
import type { AppendInput, Log, LogEvent, ReadQuery, StoredSnapshot, UpcasterRegistry, Vector } from '@agentstate/core';
import { CorruptionError, EventTypes, formatInstant, STATE_STREAM, systemClock, ValidationError } from '@agentstate/core';
import type { EventRow, LogOptions, ReceivedEvent, ReplaySource, UnplacedEvent } from '@agentstate/core/backend';
import {
  checkSnapshot,
  checkStream,
  EVENT_COLUMNS,
  eventFromRow,
  parseReadQuery,
  parseUpToSeq,
  prepareEvent,
  prepareUnplaced,
  rowPayload,
} from '@agentstate/core/backend';
import type { Database, Sql } from './database.js';
import { foldPending } from './fold.js';
import { tableLookups } from './lookups.js';
import { Projection } from './projection.js';
import { dropOtherFormats } from './snapshot-patch.js';
import { beginWriting } from './writers-lock.js';

/** The origin of a received event (`ORIGIN_SQL`), read after the event columns. */
const ORIGIN_COLUMNS = 'origin, origin_seq, origin_time';
/** Rows of received events per INSERT: 17 parameters each, well under PostgreSQL's 65,535 a statement. */
const RECEIVED_ROWS = 1_000;

/** A stored row with its origin columns. */
type OriginRow = EventRow & { origin: string | null; origin_seq: number | null; origin_time: string | null };

/** The event of a row read with {@link ORIGIN_COLUMNS}, with its origin when it was received. */
export function eventWithOrigin(row: OriginRow): LogEvent {
  const event = eventFromRow(row);
  if (row.origin !== null) Object.assign(event, { origin: row.origin, originSeq: row.origin_seq, originTime: row.origin_time });
  return event;
}

/** Snapshot rows per statement of a snapshot's store: a chunk is at most about 16 KB, so a statement stays a few megabytes. */
const STORE_BATCH = 200;

/**
 * A {@link Log} in one schema. An append to the `state` stream is refused
 * with a `ValidationError` unless the decoder will read it.
 */
export class PostgresLog implements Log {
  /** The `state` stream's seqs are positions that may skip numbers. */
  readonly gapped = true;
  readonly #now: () => string;
  readonly #upcasters: UpcasterRegistry | undefined;
  /** The insert of one event: one text, made once, which the connection's prepared statements find at once. */
  readonly #insertText: string;
  #identity: string | undefined;
  #onClose: (() => Promise<void>) | undefined;

  constructor(
    private readonly db: Database,
    options: LogOptions = {},
  ) {
    const clock = options.clock ?? systemClock;
    this.#now = () => formatInstant(clock.now());
    this.#upcasters = options.upcasters;
    this.#insertText = `INSERT INTO ${db.t('events')} (${EVENT_COLUMNS}, validated, ${ORIGIN_COLUMNS}) VALUES (${Array.from({ length: 17 }, (_, i) => `$${i + 1}`).join(', ')})`;
  }

  async append<P>(input: AppendInput<P>): Promise<LogEvent<P>> {
    const stream = checkStream((input as AppendInput<P> | undefined)?.stream);
    return this.#transaction(stream === STATE_STREAM, async (sql, appended) => {
      const { event, text } = await this.#appendOne(sql, stream, input, appended);
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
    const state = inputs.some((input) => (input as AppendInput<P> | undefined)?.stream === STATE_STREAM);
    return this.#transaction(state, async (sql, appended) => {
      const out: LogEvent<P>[] = [];
      for (const [i, input] of inputs.entries()) {
        try {
          const stream = checkStream((input as AppendInput<P> | undefined)?.stream);
          out.push((await this.#appendOne(sql, stream, input, appended)).event);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          throw new ValidationError(`${i}${error.field ? `.${error.field}` : ''}`, error.message.replace(/^invalid (input|\S+): /, ''));
        }
      }
      return out;
    });
  }

  /**
   * Runs a bare append. One to `state` holds the writers' lock exclusive
   * (no store write in flight) and folds its events into the tables before
   * it commits, so the tables always equal the fold of the committed log; an
   * event the fold refuses fails the append (a `ValidationError`) and
   * nothing is stored. Once committed, subscribers are woken.
   */
  async #transaction<T>(state: boolean, fn: (sql: Sql, appended: { after: number | undefined }) => Promise<T>): Promise<T> {
    const wakes = () => true;
    return state
      ? this.db.transaction(
          async (sql) => {
            const appended: { after: number | undefined } = { after: undefined };
            const result = await fn(sql, appended);
            if (appended.after !== undefined) {
              try {
                await foldPending(sql, this, new Projection(this.db), tableLookups(this.db, sql), this.#upcasters, appended.after);
              } catch (error) {
                if (!(error instanceof CorruptionError)) throw error;
                throw new ValidationError('', `the state stream cannot take this event: ${error.message}`);
              }
            }
            return result;
          },
          beginWriting(this.db, 'exclusive'),
          false,
          wakes,
        )
      : this.db.transaction((sql) => fn(sql, { after: undefined }), 'BEGIN', false, wakes);
  }

  /** Appends one event of `stream`; `appended.after` learns the position before the first `state` event. */
  async #appendOne<P>(sql: Sql, stream: string, input: AppendInput<P>, appended: { after: number | undefined }): Promise<{ event: LogEvent<P>; text: string }> {
    if (stream !== STATE_STREAM) {
      const { seq, previous } = await this.#nextSeq(sql, stream);
      return this.#insert(sql, input, seq, previous, true);
    }
    // Under the exclusive lock the last event is settled: its time is the one the new event may not precede.
    const [last] = await sql.rows<{ seq: number; time: string }>(`SELECT seq, time FROM ${this.db.t('events')} WHERE stream = $1 ORDER BY seq DESC LIMIT 1`, [
      STATE_STREAM,
    ]);
    // Checked before a position is taken, so a refused event leaves no gap.
    prepareEvent(input, 1, this.#now, () => last?.time, { upcasters: this.#upcasters });
    const seq = await this.takePosition(sql);
    appended.after ??= last?.seq ?? 0;
    return this.#insert(sql, input, seq, last?.time, true);
  }

  /**
   * @internal Appends events of streams other than `state`, in order, checked as {@link append} checks them, inside
   * the caller's transaction: the head of a run of events of one stream is taken once, one round trip for the run.
   */
  async appendChecked(sql: Sql, inputs: readonly AppendInput[]): Promise<void> {
    for (let i = 0; i < inputs.length; ) {
      const stream = checkStream(inputs[i]!.stream);
      let n = 1;
      while (i + n < inputs.length && inputs[i + n]!.stream === stream) n += 1;
      let { seq, previous } = await this.#nextSeq(sql, stream, n);
      for (const input of inputs.slice(i, i + n)) {
        previous = (await this.#insert(sql, input, seq, previous, true)).event.time;
        seq += 1;
      }
      i += n;
    }
  }

  /** @internal The next position of the `state` stream, taken inside the caller's write transaction. */
  async takePosition(sql: Sql): Promise<number> {
    const [row] = await sql.rows<{ seq: number }>(`SELECT nextval('${this.db.t('positions')}') AS seq`);
    return row!.seq;
  }

  /**
   * Moves the head of `stream` (not `state`) on by `count` and locks it until
   * the transaction ends; returns the first new seq and the time of the event
   * before it, read in the same statement under that lock.
   */
  async #nextSeq(sql: Sql, stream: string, count = 1): Promise<{ seq: number; previous: string | undefined }> {
    const [row] = await sql.rows<{ head: number; previous: string | null }>(
      `WITH next AS (INSERT INTO ${this.db.t('streams')} AS s (stream, head) VALUES ($1, $2::int) ON CONFLICT (stream) DO UPDATE SET head = s.head + $2::int RETURNING head)
       SELECT next.head, (SELECT e.time FROM ${this.db.t('events')} e WHERE e.stream = $1 AND e.seq = next.head - $2::int) AS previous FROM next`,
      [stream, count],
    );
    const seq = row!.head - count + 1;
    // The statement's snapshot began before it waited for the lock: an event its holder appended is read now.
    return { seq, previous: row!.previous ?? (seq > 1 ? await this.timeAt(sql, stream, seq - 1) : undefined) };
  }

  /** The time of the event at `seq` of `stream`, as `sql` sees it now. */
  async timeAt(sql: Sql, stream: string, seq: number): Promise<string | undefined> {
    const [row] = await sql.rows<{ time: string }>(`SELECT time FROM ${this.db.t('events')} WHERE stream = $1 AND seq = $2`, [stream, seq]);
    return row?.time;
  }

  /**
   * @internal An append whose payload was checked already, inside the caller's transaction: an import's
   * (which holds the writers' lock exclusive and sets the `state` stream's positions past its last itself),
   * or the store's own `state` event at the position `seq` its writer took, whose stamped payload is valid
   * by construction. `previous` is the time the event may not precede; the row is marked validated.
   */
  async appendInTransaction<P>(sql: Sql, input: AppendInput<P>, seq: number, previous: string | undefined): Promise<LogEvent<P>> {
    if (input.stream !== STATE_STREAM) await sql.rows(`UPDATE ${this.db.t('streams')} SET head = $2 WHERE stream = $1`, [input.stream, seq]);
    return (await this.#insert(sql, input, seq, previous, false)).event;
  }

  /**
   * @internal The store's own `state` event, stamped after `previous` (as {@link appendInTransaction} stamps it)
   * for a statement that takes its position and finishes its checksum itself (`known-append.ts`).
   */
  prepareUnplaced<P>(input: AppendInput<P>, previous: string | undefined): UnplacedEvent<P> {
    return prepareUnplaced(input, this.#now, previous);
  }

  /**
   * @internal Appends received `state` events inside the caller's write transaction, which holds the writers'
   * lock exclusive, at the positions it took for them (`taken`, one each, in any order): their rows in one
   * statement a thousand, after the last event's time `previous`. Their payloads were checked by the receive,
   * and are stored as the JSON `text` it made where it made one.
   */
  async appendReceived(sql: Sql, batch: readonly ReceivedEvent[], taken: readonly number[], previous: string | undefined): Promise<LogEvent[]> {
    const seqs = [...taken].sort((a, b) => a - b);
    const events: LogEvent[] = [];
    for (let from = 0; from < batch.length; from += RECEIVED_ROWS) {
      const params: unknown[] = [];
      const rows: string[] = [];
      for (const [i, { input, text }] of batch.slice(from, from + RECEIVED_ROWS).entries()) {
        const { event, values, validated } = prepareEvent(input, seqs[from + i]!, this.#now, () => previous, undefined, text);
        previous = event.time;
        rows.push(`(${Array.from({ length: 17 }, (_, k) => `$${params.length + k + 1}`).join(', ')})`);
        params.push(...values, validated, event.origin ?? null, event.originSeq ?? null, event.originTime ?? null);
        events.push(event);
      }
      await sql.exec(`INSERT INTO ${this.db.t('events')} (${EVENT_COLUMNS}, validated, ${ORIGIN_COLUMNS}) VALUES ${rows.join(', ')}`, params);
    }
    return events;
  }

  /** Builds, checks (a `state` event from outside the stores must be one the decoder reads) and inserts one event. */
  async #insert<P>(sql: Sql, input: AppendInput<P>, seq: number, previous: string | undefined, check: boolean): Promise<{ event: LogEvent<P>; text: string }> {
    const { event, text, values, validated } = prepareEvent(input, seq, this.#now, () => previous, check ? { upcasters: this.#upcasters } : undefined);
    await sql.exec(this.#insertText, [...values, validated, event.origin ?? null, event.originSeq ?? null, event.originTime ?? null]);
    return { event, text };
  }

  /** Reads as {@link Log.read}; the `state` stream up to the high-water mark only, so a reader following it never skips an event. */
  async read(query: ReadQuery): Promise<LogEvent[]> {
    const { stream, afterSeq, limit } = parseReadQuery(query);
    const upTo = stream === STATE_STREAM ? await this.settled() : undefined;
    return (await this.readRows(this.db, stream, afterSeq, limit, upTo)).map(eventWithOrigin);
  }

  /**
   * The high-water mark of the `state` stream: every position up to it is
   * settled (committed, or never will be), waiting for the writers that may
   * still hold one (`settled_position()`). A statement run after it sees
   * every event up to it.
   */
  async settled(): Promise<number> {
    const [row] = await this.db.rows<{ mark: number }>(`SELECT ${this.db.t('settled_position')}() AS mark`);
    return row!.mark;
  }

  /** Rows of `stream` after `afterSeq` (up to `upTo` when given) in seq order (`limit` 0: all). */
  readRows(sql: Sql, stream: string, afterSeq: number, limit: number, upTo?: number): Promise<(OriginRow & { validated: boolean })[]> {
    return sql.rows(
      `SELECT ${EVENT_COLUMNS}, validated, ${ORIGIN_COLUMNS} FROM ${this.db.t('events')} WHERE stream = $1 AND seq > $2 AND seq <= $4 ORDER BY seq LIMIT $3`,
      [stream, afterSeq, limit > 0 ? limit : null, upTo ?? Number.MAX_SAFE_INTEGER],
    );
  }

  /** Events of `stream` for a fold: checked payloads, and whether this library validated them when it wrote them. */
  async readForFold(sql: Sql, stream: string, afterSeq: number, limit: number): Promise<{ event: LogEvent; validated: boolean }[]> {
    const rows = await this.readRows(sql, stream, afterSeq, limit);
    return rows.map((row) => {
      const event: LogEvent = { stream, seq: row.seq, type: row.type, time: '', schemaVersion: row.schema_version, payload: rowPayload(row) };
      // The fold merges a received event that does not chain (docs/contract.md §12, "Merge").
      if (row.origin !== null) event.origin = row.origin;
      return { event, validated: row.validated };
    });
  }

  /** The highest seq; of the `state` stream, the last event up to the high-water mark. */
  async head(stream: string): Promise<number> {
    checkStream(stream);
    return this.headIn(this.db, stream, stream === STATE_STREAM ? await this.settled() : undefined);
  }

  /** The head of `stream` as `sql` sees it (of `state`: its last event, up to `upTo` when given). */
  async headIn(sql: Sql, stream: string, upTo?: number): Promise<number> {
    if (stream !== STATE_STREAM) {
      const [row] = await sql.rows<{ head: number }>(`SELECT head FROM ${this.db.t('streams')} WHERE stream = $1`, [stream]);
      return row?.head ?? 0;
    }
    const [row] = await sql.rows<{ seq: number | null }>(`SELECT max(seq) AS seq FROM ${this.db.t('events')} WHERE stream = $1 AND seq <= $2`, [
      stream,
      upTo ?? Number.MAX_SAFE_INTEGER,
    ]);
    return row?.seq ?? 0;
  }

  /**
   * As {@link Log.vector}: its own entry the settled head, as {@link head} answers it, in the round trip of the
   * mark (`settled_position()` sets it for the statement after it, which starts once it is settled). Received
   * events commit under the writers' lock exclusive, so every origin's entry is settled.
   */
  async vector(): Promise<Vector> {
    const own = await this.identity();
    const [, rows] = (await this.db.batch([
      [`SELECT set_config('agentstate.settled', ${this.db.t('settled_position')}()::text, true)`],
      [
        `WITH RECURSIVE ${this.#origins()}
       SELECT NULL AS origin, (SELECT seq FROM ${this.db.t('events')} WHERE stream = '${STATE_STREAM}' AND seq <= current_setting('agentstate.settled')::bigint
         ORDER BY seq DESC LIMIT 1) AS seq
       UNION ALL SELECT origin, (SELECT max(origin_seq) FROM ${this.db.t('events')} e WHERE e.origin = o.origin) FROM origins o WHERE origin IS NOT NULL`,
      ],
    ])) as [unknown, { origin: string | null; seq: number | null }[]];
    return Object.fromEntries(rows.map((row) => [row.origin ?? own, row.seq ?? 0]));
  }

  /**
   * The origins held, a CTE named `origins`: a skip scan of the `events_origin` index, one look-up an origin (a
   * GROUP BY read every received event's entry).
   */
  #origins(): string {
    const events = this.db.t('events');
    return `origins (origin) AS (
        (SELECT origin FROM ${events} WHERE origin IS NOT NULL ORDER BY origin LIMIT 1)
        UNION ALL SELECT (SELECT e.origin FROM ${events} e WHERE e.origin > o.origin ORDER BY e.origin LIMIT 1) FROM origins o WHERE o.origin IS NOT NULL)`;
  }

  /** Up to which settled position this log was found to hold none of its own events, or that it holds one. */
  #ownChecked: number | true = 0;

  /** Whether the `state` stream holds an event of its own at or below the settled position `upTo`: looked for once, then only above the last `upTo`. */
  async #holdsOwn(upTo: number): Promise<boolean> {
    if (this.#ownChecked === true) return true;
    const from = Math.min(this.#ownChecked, upTo);
    const found = await this.db.rows(
      `SELECT 1 FROM ${this.db.t('events')} WHERE stream = '${STATE_STREAM}' AND origin IS NULL AND seq > $1 AND seq <= $2 LIMIT 1`,
      [from, upTo],
    );
    this.#ownChecked = found.length > 0 ? true : Math.max(this.#ownChecked, upTo);
    return found.length > 0;
  }

  /**
   * As {@link Log.changes}, up to the high-water mark, so an event committing late below a later one is never
   * skipped. Starts at the first event the vector lacks: its own entry's next (none when it names none and this
   * log holds none of its own), and each held origin's first beyond its entry, one index look-up each.
   */
  async changes(vector: Vector, limit: number, afterSeq = 0): Promise<LogEvent[]> {
    const own = await this.identity();
    const upTo = await this.settled();
    const known = Object.keys(vector).filter((origin) => origin !== own);
    const ownAfter = vector[own] ?? ((await this.#holdsOwn(upTo)) ? 0 : upTo);
    const events = this.db.t('events');
    const rows = await this.db.rows<OriginRow>(
      `WITH RECURSIVE ${this.#origins()},
       v (v_origin, v_seq) AS (SELECT u.o, u.s FROM unnest($2::text[], $3::bigint[]) AS u (o, s)),
       start AS (SELECT greatest($6::bigint, least(
         $1::bigint,
         (SELECT min(f.seq) - 1 FROM origins o LEFT JOIN v ON v_origin = o.origin CROSS JOIN LATERAL
           (SELECT min(seq) AS seq FROM ${events} WHERE origin = o.origin AND origin_seq > coalesce(v_seq, 0)) f
           WHERE o.origin IS NOT NULL))) AS from_seq)
       SELECT ${EVENT_COLUMNS}, ${ORIGIN_COLUMNS} FROM ${events} LEFT JOIN v ON v_origin = origin
       WHERE stream = '${STATE_STREAM}' AND seq > (SELECT from_seq FROM start) AND seq <= $4
         AND CASE WHEN origin IS NULL THEN seq > $1 ELSE v_seq IS NULL OR origin_seq > v_seq END
       ORDER BY seq LIMIT $5`,
      [ownAfter, known, known.map((origin) => vector[origin]), upTo, limit > 0 ? limit : null, afterSeq],
    );
    return rows.map(eventWithOrigin);
  }

  /** As {@link Log.atOrigin}: an own event by its seq, a received one by its place. */
  async atOrigin(origin: string, originSeq: number): Promise<LogEvent | undefined> {
    const own = origin === (await this.identity());
    const [row] = await this.db.rows<OriginRow>(
      `SELECT ${EVENT_COLUMNS}, ${ORIGIN_COLUMNS} FROM ${this.db.t('events')} WHERE ${
        own ? `stream = '${STATE_STREAM}' AND seq = $1 AND origin IS NULL` : 'origin = $2 AND origin_seq = $1'
      }`,
      own ? [originSeq] : [originSeq, origin],
    );
    return row === undefined ? undefined : eventWithOrigin(row);
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
   * Stores the rows of a snapshot captured at `seq` in `sql`'s transaction, which holds the writers'
   * lock shared, dropping those of earlier formats, unless a purge was appended after `seq` (see
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
      gapped: true,
      head: (stream) => this.headIn(sql, checkStream(stream)),
      read: async (query) => {
        const { stream, afterSeq, limit } = parseReadQuery(query);
        return (await this.readRows(sql, stream, afterSeq, limit)).map(eventWithOrigin);
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
