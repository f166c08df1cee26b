/**
 * The event log in SQLite (docs/contract.md §7): events and snapshots in two tables of
 * the same file as the projection, so an append and its projection share
 * one transaction. It is a complete {@link Log} on its own too
 * ({@link openSqliteLog}). Appends follow core's shared rules
 * (`toLogEvent`); a failed append consumes no seq.
 */
import { hash } from 'node:crypto';
import type { AppendInput, Log, LogEvent, ReadQuery, StoredSnapshot, UpcasterRegistry, Vector } from '@agentstate/core';
import { CorruptionError, EventTypes, formatInstant, STATE_STREAM, systemClock, ValidationError } from '@agentstate/core';
import type { EventRow, EventRowValues, LogOptions } from '@agentstate/core/backend';
import {
  checkSnapshot,
  checkStream,
  EVENT_COLUMNS,
  eventFromRow,
  eventRowFromValues,
  lacks,
  parseReadQuery,
  parseUpToSeq,
  prepareEvent,
  rowPayload,
  storedChecksum,
} from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import { mapErrors } from './errors.js';
import { DROP_OTHER_FORMATS } from './snapshot-patch.js';

/** The origin of a received event (`schema/log.ts`), read after {@link EVENT_COLUMNS}. */
const ORIGIN_COLUMNS = 'origin, origin_seq, origin_time';

const SQL = {
  head: 'SELECT max(seq) AS seq FROM events WHERE stream = ?',
  timeAt: 'SELECT time FROM events WHERE stream = ? AND seq = ?',
  insert: `INSERT INTO events (${EVENT_COLUMNS}, validated, origin, origin_seq, origin_time) VALUES (${Array(17).fill('?').join(', ')})`,
  readForFold: `SELECT ${EVENT_COLUMNS}, validated, origin FROM events WHERE stream = ? AND seq > ? ORDER BY seq LIMIT ?`,
  read: `SELECT ${EVENT_COLUMNS}, ${ORIGIN_COLUMNS} FROM events WHERE stream = ? AND seq > ? ORDER BY seq LIMIT ?`,
  readForSeed: `SELECT ${EVENT_COLUMNS}, ${ORIGIN_COLUMNS}, validated FROM events WHERE stream = 'state' AND seq > ? ORDER BY seq LIMIT ?`,
  // Each origin held and its last place, two look-ups of the `events_origin` index an origin (a skip scan):
  // a GROUP BY read every received event's entry.
  originHeads: `WITH RECURSIVE origins (origin) AS (
      SELECT min(origin) FROM events WHERE origin IS NOT NULL
      UNION ALL SELECT (SELECT min(origin) FROM events WHERE origin > origins.origin) FROM origins WHERE origins.origin IS NOT NULL)
    SELECT origin, (SELECT max(origin_seq) FROM events AS e WHERE e.origin = origins.origin) AS seq FROM origins WHERE origin IS NOT NULL`,
  atOrigin: `SELECT ${EVENT_COLUMNS}, ${ORIGIN_COLUMNS} FROM events WHERE origin = ? AND origin_seq = ?`,
  atOwn: `SELECT ${EVENT_COLUMNS}, ${ORIGIN_COLUMNS} FROM events WHERE stream = 'state' AND seq = ? AND origin IS NULL`,
  // The first in the log of an origin's events after a place: a store that received part of an origin (a scoped
  // sync) holds its events out of their order, so the index range is read for its least seq.
  firstOfOrigin: `SELECT min(seq) AS seq FROM events WHERE origin = ? AND origin_seq > ?`,
  received: 'SELECT count(*) AS n FROM events WHERE origin IS NOT NULL',
  receivedAfter: `SELECT count(*) AS n FROM events WHERE stream = 'state' AND seq > ? AND origin IS NOT NULL`,
  // A row stored before with the same text is left as it is: most chunks of a snapshot are shared with the last one.
  saveSnapshot: `INSERT INTO snapshots (stream, seq, data) VALUES (?, ?, ?)
    ON CONFLICT (stream, seq) DO UPDATE SET data = excluded.data WHERE data IS NOT excluded.data`,
  purgedAfter: 'SELECT 1 FROM events WHERE stream = ? AND seq > ? AND type = ? LIMIT 1',
  identityTable: "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'store_meta'",
  identity: "SELECT value FROM store_meta WHERE key = 'log_identity'",
  latestSnapshot: 'SELECT stream, seq, data FROM snapshots WHERE stream = ? AND seq <= ? ORDER BY seq DESC LIMIT 1',
} as const;

/**
 * The checksum rows written before version 0.2 carry: SHA-1 of the type,
 * schema version and payload text only. Such rows are still read and
 * checked this way; their envelope (stream, seq, time, linkage) is not
 * covered. Tests use it to forge legacy rows.
 */
export function eventChecksum(type: string, schemaVersion: number, payload: string): string {
  return hash('sha1', `${type}\u0000${schemaVersion}\u0000${payload}`, 'base64');
}

/**
 * The checksum a stored row must carry: over the whole row, by the format
 * its checksum names, or, for a row written before version 0.2 (a bare base64
 * checksum, no prefix), the legacy {@link eventChecksum}.
 */
function expectedChecksum(row: EventRow): string {
  return row.checksum.includes(':') ? storedChecksum(row) : eventChecksum(row.type, row.schema_version, row.payload);
}

/** Turns a row into an event; a changed or undecodable row is a `CorruptionError` naming the event. */
export const toEvent = (row: EventRow): LogEvent => eventFromRow(row, expectedChecksum);

/** The event of a row read with {@link ORIGIN_COLUMNS} after its event columns, with its origin when it was received. */
function withOrigin(values: readonly [...EventRowValues, string | null, number | null, string | null, ...unknown[]]): LogEvent {
  const event = toEvent(eventRowFromValues(values));
  if (values[13] !== null) Object.assign(event, { origin: values[13], originSeq: values[14], originTime: values[15] });
  return event;
}

/**
 * A {@link Log} stored in the `events` and `snapshots` tables of a
 * connection. An append to the `state` stream is refused with a
 * `ValidationError` unless the decoder will read it; it is then stored
 * marked as validated, so a fold does not check it again.
 */
export class SqliteLog implements Log {
  readonly #now: () => string;
  #identity: string | undefined;
  readonly #upcasters: UpcasterRegistry | undefined;
  #onClose: (() => Promise<void>) | undefined;

  constructor(
    private readonly conn: Connection,
    options: LogOptions = {},
  ) {
    const clock = options.clock ?? systemClock;
    this.#now = () => formatInstant(clock.now());
    this.#upcasters = options.upcasters;
  }

  async append<P>(input: AppendInput<P>): Promise<LogEvent<P>> {
    return mapErrors(() =>
      this.conn.exclusive(() =>
        this.conn.immediateWhenFree(() => {
          const { event, text } = this.appendChecked(input);
          return { ...event, payload: JSON.parse(text) as P };
        }),
      ),
    );
  }

  /**
   * Appends `inputs` in order as one write transaction: every event is
   * stored, or none is (a failure consumes no seq). For bulk loads such as
   * an import. The returned events carry the caller's payload objects.
   * Every `state` event is checked as {@link append} checks it; one refused
   * event refuses the whole batch.
   */
  async appendMany<P>(inputs: readonly AppendInput<P>[]): Promise<LogEvent<P>[]> {
    if (!Array.isArray(inputs as unknown)) throw new ValidationError('', 'appendMany takes an array of appends');
    return mapErrors(() =>
      this.conn.exclusive(() =>
        this.conn.immediateWhenFree(() => {
          // Each stream's head in this batch: its seq, and its time once the batch appended to it.
          const heads = new Map<string, { seq: number; time?: string }>();
          return inputs.map((input, i) => {
            try {
              const stream = checkStream((input as AppendInput<P> | undefined)?.stream);
              const head = heads.get(stream) ?? { seq: this.headNow(stream) };
              const seq = head.seq + 1;
              const previous = head.time;
              const { event } = this.appendChecked(input, seq, previous === undefined ? undefined : () => previous);
              heads.set(stream, { seq, time: event.time });
              return event;
            } catch (error) {
              if (!(error instanceof ValidationError)) throw error;
              // The position in the batch names the bad event; the reason stays the one the single append gives.
              throw new ValidationError(`${i}${error.field ? `.${error.field}` : ''}`, error.message.replace(/^invalid (input|\S+): /, ''));
            }
          });
        }),
      ),
    );
  }

  /**
   * @internal Appends an event from outside the stores (a `state` event must be one the decoder reads), inside
   * the open write transaction: at `seq`, or after the stream's head.
   */
  appendChecked<P>(input: AppendInput<P>, seq?: number, previous?: () => string | undefined): { event: LogEvent<P>; text: string } {
    return this.#insert(input, seq, previous, { upcasters: this.#upcasters });
  }

  /**
   * @internal The store's append, inside its open write transaction, of a
   * payload the stamper built and validated by construction: not checked
   * again, and marked validated. Returns the event with the caller's payload
   * object (not a copy) and its stored text. `seq` is the next seq, and
   * `previous` the time of the event before it, which the caller read in
   * this transaction; `text` the payload's JSON, when the caller made it already.
   */
  appendInTransaction<P>(input: AppendInput<P>, seq: number, previous: string | undefined, text?: string): { event: LogEvent<P>; text: string } {
    return this.#insert(input, seq, () => previous, undefined, text);
  }

  /**
   * Builds, checks (with `check`: a `state` event must be one the decoder reads) and inserts one event.
   * Without `previous`, the time of the event before is read here, in this transaction: no other writer can
   * append between the two.
   */
  #insert<P>(
    input: AppendInput<P>,
    seq: number | undefined,
    previous?: () => string | undefined,
    check?: { upcasters: UpcasterRegistry | undefined },
    known?: string,
  ): { event: LogEvent<P>; text: string } {
    const at = seq ?? this.headNow(checkStream(input?.stream)) + 1;
    const before = previous ?? ((stream: string) => (this.conn.prepare(SQL.timeAt).get(stream, at - 1) as { time: string } | undefined)?.time);
    const { event, text, values, validated } = prepareEvent(input, at, this.#now, before, check, known);
    values.push(validated ? 1 : 0, event.origin ?? null, event.originSeq ?? null, event.originTime ?? null);
    this.conn.prepare(SQL.insert).run(values);
    return { event, text };
  }

  async read(query: ReadQuery): Promise<LogEvent[]> {
    const { stream, afterSeq, limit } = parseReadQuery(query);
    return mapErrors(() => this.readNow(stream, afterSeq, limit));
  }

  /** The synchronous core of {@link read}, for a checked query (`limit` 0: all). */
  readNow(stream: string, afterSeq: number, limit: number): LogEvent[] {
    // Rows as arrays: the driver's keyed object per row costs more than the rest of the decode.
    const rows = this.conn
      .prepare(SQL.read)
      .raw(true)
      .all(stream, afterSeq, limit > 0 ? limit : -1) as Parameters<typeof withOrigin>[0][];
    return rows.map(withOrigin);
  }

  async vector(): Promise<Vector> {
    return mapErrors(() => this.conn.read(() => ({ [this.identityNow()]: this.headNow(STATE_STREAM), ...this.#originHeads() })));
  }

  /** The last place held of each origin received from. */
  #originHeads(): Record<string, number> {
    const heads: Record<string, number> = {};
    for (const { origin, seq } of this.conn.prepare(SQL.originHeads).all() as { origin: string; seq: number }[]) heads[origin] = seq;
    return heads;
  }

  /** How many received events the log held at `head`, counted once, then only past the last head counted. */
  #received: { head: number; count: number } | undefined;

  /** Whether the `state` stream, whose head is `head`, holds an event of its own: its head is more than the events it received. */
  #holdsOwn(head: number): boolean {
    const last = this.#received;
    const count =
      last !== undefined && last.head <= head
        ? last.count + (this.conn.prepare(SQL.receivedAfter).get(last.head) as { n: number }).n
        : (this.conn.prepare(SQL.received).get() as { n: number }).n;
    this.#received = { head, count };
    return count < head;
  }

  async changes(vector: Vector, limit: number, afterSeq = 0): Promise<LogEvent[]> {
    return mapErrors(() =>
      this.conn.read(() => {
        // Each run the vector lacks and the seq before its first event: its own events by seq, each origin's by its index.
        const own = this.identityNow();
        const head = this.headNow(STATE_STREAM);
        const ownAfter = lacks(vector, own, 1) ? 0 : vector[own]!;
        const runs: { sql: string; params: unknown[]; start: number }[] = [];
        // A vector without this store names none of its events: unless it holds one, nothing of its own is lacked.
        if (ownAfter < head && this.#holdsOwn(head)) runs.push({ sql: '(origin IS NULL AND seq > ?)', params: [ownAfter], start: ownAfter });
        for (const [origin, last] of Object.entries(this.#originHeads())) {
          const after = lacks(vector, origin, 1) ? 0 : vector[origin]!;
          if (last <= after) continue;
          const first = (this.conn.prepare(SQL.firstOfOrigin).get(origin, after) as { seq: number }).seq;
          runs.push({ sql: '(origin = ? AND origin_seq > ?)', params: [origin, after], start: first - 1 });
        }
        if (runs.length === 0) return [];
        const lacking = runs.map((run) => run.sql).join(' OR ');
        const rows = this.conn
          .prepare(`SELECT ${EVENT_COLUMNS}, ${ORIGIN_COLUMNS} FROM events WHERE stream = 'state' AND seq > ? AND (${lacking}) ORDER BY seq LIMIT ?`)
          .raw(true)
          .all(Math.max(Math.min(...runs.map((run) => run.start)), afterSeq), ...runs.flatMap((run) => run.params), limit > 0 ? limit : -1);
        return (rows as Parameters<typeof withOrigin>[0][]).map(withOrigin);
      }),
    );
  }

  async atOrigin(origin: string, originSeq: number): Promise<LogEvent | undefined> {
    return mapErrors(() => {
      const row = (
        origin === this.identityNow() ? this.conn.prepare(SQL.atOwn).raw(true).get(originSeq) : this.conn.prepare(SQL.atOrigin).raw(true).get(origin, originSeq)
      ) as Parameters<typeof withOrigin>[0] | undefined;
      return row === undefined ? undefined : withOrigin(row);
    });
  }

  /**
   * `state` events for a seed (`seed.ts`), each with its payload's stored text and whether this library
   * validated the payload when it wrote it; checked against its checksum.
   */
  readForSeed(afterSeq: number, limit: number): { event: LogEvent; text: string; validated: boolean }[] {
    const rows = this.conn.prepare(SQL.readForSeed).raw(true).all(afterSeq, limit) as [
      ...EventRowValues,
      string | null,
      number | null,
      string | null,
      number,
    ][];
    return rows.map((values) => ({ event: withOrigin(values), text: values[5], validated: values[16] === 1 }));
  }

  /**
   * Events of `stream` for a fold: seq, type, schema version, checked
   * payload, and whether this library validated the payload when it wrote it.
   */
  readForFold(stream: string, afterSeq: number, limit: number): { event: LogEvent; validated: boolean }[] {
    const rows = this.conn.prepare(SQL.readForFold).raw(true).all(stream, afterSeq, limit) as [...EventRowValues, validated: number, origin: string | null][];
    return rows.map((values) => {
      const row = eventRowFromValues(values);
      const event: LogEvent = { stream, seq: row.seq, type: row.type, time: '', schemaVersion: row.schema_version, payload: rowPayload(row, expectedChecksum) };
      // The fold merges a received event that does not chain (docs/contract.md §12, "Merge").
      if (values[14] !== null) event.origin = values[14];
      return { event, validated: values[13] === 1 };
    });
  }

  async head(stream: string): Promise<number> {
    checkStream(stream);
    return mapErrors(() => this.headNow(stream));
  }

  /** The synchronous core of {@link head}. */
  headNow(stream: string): number {
    return (this.conn.prepare(SQL.head).get(stream) as { seq: number | null }).seq ?? 0;
  }

  async identity(): Promise<string> {
    return mapErrors(() => (this.#identity ??= this.identityNow()));
  }

  /**
   * Reads the identity made with the file (`schema/log.ts`). A file without
   * one (damaged) is a `CorruptionError`: none of its snapshots can be
   * trusted, and a loader skips them all.
   */
  identityNow(): string {
    const table = this.conn.prepare(SQL.identityTable).get();
    const row = table ? (this.conn.prepare(SQL.identity).get() as { value: unknown } | undefined) : undefined;
    if (typeof row?.value !== 'string' || row.value === '')
      throw new CorruptionError(STATE_STREAM, 0, 'the database has no store identity, so no snapshot can be bound to it');
    return row.value;
  }

  async saveSnapshot(snapshot: StoredSnapshot): Promise<void> {
    checkSnapshot(snapshot);
    await mapErrors(() =>
      this.conn.exclusive(() =>
        this.conn.immediateWhenFree(() => {
          this.conn.prepare(SQL.saveSnapshot).run(snapshot.stream, snapshot.seq, snapshot.data);
        }),
      ),
    );
  }

  /**
   * Stores the rows of a snapshot captured at `seq` in one write transaction, dropping those of
   * earlier formats, unless a purge was appended after `seq` (see `StateBackend.storeSnapshot`);
   * whether it stored them.
   */
  async storeSnapshot(rows: readonly StoredSnapshot[], seq: number): Promise<boolean> {
    for (const row of rows) checkSnapshot(row);
    return mapErrors(() =>
      this.conn.exclusive(() =>
        this.conn.immediateWhenFree(() => {
          if (this.conn.prepare(SQL.purgedAfter).get(STATE_STREAM, seq, EventTypes.RecordsPurged) !== undefined) return false;
          const store = this.conn.prepare(SQL.saveSnapshot);
          for (const row of rows) store.run(row.stream, row.seq, row.data);
          this.conn.prepare(DROP_OTHER_FORMATS).run();
          return true;
        }),
      ),
    );
  }

  async latestSnapshot(stream: string, options?: { upToSeq?: number }): Promise<StoredSnapshot | undefined> {
    checkStream(stream);
    const upTo = parseUpToSeq(options);
    return mapErrors(() => {
      const row = this.conn.prepare(SQL.latestSnapshot).get(stream, upTo) as StoredSnapshot | undefined;
      return row ? { stream: row.stream, seq: row.seq, data: row.data } : undefined;
    });
  }

  /** Closes the database when this log owns it (see {@link openSqliteLog}); else nothing. */
  async close(): Promise<void> {
    await this.#onClose?.();
  }

  /** @internal Makes {@link close} close the connection. */
  ownConnection(): void {
    this.#onClose = () => this.conn.close();
  }
}
