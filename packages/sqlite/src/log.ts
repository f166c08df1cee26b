/**
 * The event log in SQLite (docs/contract.md §7): events and snapshots in two tables of
 * the same file as the projection, so an append and its projection share
 * one transaction. It is a complete {@link Log} on its own too
 * ({@link openSqliteLog}). Appends follow core's shared rules
 * (`toLogEvent`); a failed append consumes no seq.
 */
import { hash } from 'node:crypto';
import type { AppendInput, Clock, Log, LogEvent, ReadQuery, StoredSnapshot } from '@agentstate/core';
import { CorruptionError, formatInstant, STATE_STREAM, systemClock, toLogEvent, ValidationError } from '@agentstate/core';
import type { Connection } from './connection.js';
import { mapErrors, mapErrorsAsync } from './errors.js';

interface EventRow {
  stream: string;
  seq: number;
  type: string;
  time: string;
  schema_version: number;
  payload: string;
  checksum: string;
  actor: string | null;
  trace_id: string | null;
  span_id: string | null;
  causation_id: string | null;
  origin_instance_id: string | null;
  principal: string | null;
}

const EVENT_COLUMNS = 'stream, seq, type, time, schema_version, payload, checksum, actor, trace_id, span_id, causation_id, origin_instance_id, principal';

const SQL = {
  head: 'SELECT max(seq) AS seq FROM events WHERE stream = ?',
  insert: `INSERT INTO events (${EVENT_COLUMNS}, validated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  readForFold: 'SELECT seq, type, schema_version, payload, checksum, validated FROM events WHERE stream = ? AND seq > ? ORDER BY seq LIMIT ?',
  read: `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND seq > ? ORDER BY seq LIMIT ?`,
  saveSnapshot: 'INSERT INTO snapshots (stream, seq, data) VALUES (?, ?, ?) ON CONFLICT (stream, seq) DO UPDATE SET data = excluded.data',
  identityTable: "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'store_meta'",
  identity: "SELECT value FROM store_meta WHERE key = 'log_identity'",
  latestSnapshot: 'SELECT stream, seq, data FROM snapshots WHERE stream = ? AND seq <= ? ORDER BY seq DESC LIMIT 1',
} as const;

/** The checksum of an event row: SHA-1 of its type, schema version and payload text. */
export function eventChecksum(type: string, schemaVersion: number, payload: string): string {
  return hash('sha1', `${type}\u0000${schemaVersion}\u0000${payload}`, 'base64');
}

/** Parses a stored payload after checking the row's checksum; either failing is a `CorruptionError`. */
function parsePayload(stream: string, row: { seq: number; type: string; schema_version: number; payload: string; checksum: string }): unknown {
  if (eventChecksum(row.type, row.schema_version, row.payload) !== row.checksum) {
    throw new CorruptionError(stream, row.seq, 'the stored event does not match its checksum');
  }
  try {
    return JSON.parse(row.payload);
  } catch (cause) {
    throw new CorruptionError(stream, row.seq, 'the stored payload is not JSON', { cause });
  }
}

/** Turns a row into an event; a changed or undecodable row is a `CorruptionError` naming the event. */
function eventFromRow(row: EventRow): LogEvent {
  const payload = parsePayload(row.stream, row);
  const event: LogEvent = { stream: row.stream, seq: row.seq, type: row.type, time: row.time, schemaVersion: row.schema_version, payload };
  if (row.actor !== null) event.actor = row.actor;
  if (row.trace_id !== null) event.traceId = row.trace_id;
  if (row.span_id !== null) event.spanId = row.span_id;
  if (row.causation_id !== null) event.causationId = row.causation_id;
  if (row.origin_instance_id !== null) event.originInstanceId = row.origin_instance_id;
  if (row.principal !== null) event.principal = row.principal;
  return event;
}

function payloadText(payload: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(payload);
  } catch (cause) {
    throw new ValidationError('payload', `must be JSON-serialisable (${cause instanceof Error ? cause.message : String(cause)})`);
  }
  if (text === undefined) throw new ValidationError('payload', 'must be JSON-serialisable');
  return text;
}

function metaText(input: AppendInput<unknown>, key: 'actor' | 'traceId' | 'spanId' | 'causationId' | 'originInstanceId' | 'principal'): string | null {
  const value = input[key];
  if (value === undefined) return null;
  if (typeof value !== 'string') throw new ValidationError(key, 'must be a string');
  return value;
}

/** Options of {@link SqliteLog}. */
export interface SqliteLogOptions {
  /** Stamps `time` on events appended without one. Default: the system clock. */
  clock?: Clock;
}

/** A {@link Log} stored in the `events` and `snapshots` tables of a connection. */
export class SqliteLog implements Log {
  readonly #now: () => string;
  #identity: string | undefined;
  #onClose: (() => Promise<void>) | undefined;

  constructor(
    private readonly conn: Connection,
    options: SqliteLogOptions = {},
  ) {
    const clock = options.clock ?? systemClock;
    this.#now = () => formatInstant(clock.now());
  }

  async append<P>(input: AppendInput<P>): Promise<LogEvent<P>> {
    return mapErrorsAsync(() =>
      this.conn.exclusive(() =>
        this.conn.immediate(() => {
          const { event, text } = this.appendInTransaction(input);
          return { ...event, payload: JSON.parse(text) as P };
        }),
      ),
    );
  }

  /**
   * Appends `inputs` in order as one write transaction: every event is
   * stored, or none is (a failure consumes no seq). For bulk loads such as
   * an import. The returned events carry the caller's payload objects.
   */
  async appendMany<P>(inputs: readonly AppendInput<P>[]): Promise<LogEvent<P>[]> {
    return mapErrorsAsync(() =>
      this.conn.exclusive(() =>
        this.conn.immediate(() => {
          const heads = new Map<string, number>();
          return inputs.map((input) => {
            if (typeof input.stream !== 'string' || input.stream === '') throw new ValidationError('stream', 'must be a non-empty string');
            const seq = (heads.get(input.stream) ?? this.headNow(input.stream)) + 1;
            heads.set(input.stream, seq);
            return this.appendInTransaction(input, seq).event;
          });
        }),
      ),
    );
  }

  /**
   * Appends inside the caller's open write transaction and returns the event
   * with the caller's payload object (not a copy) and its stored text. `seq`
   * is the next seq when the caller already read the head in this transaction.
   */
  appendInTransaction<P>(input: AppendInput<P>, seq?: number, validated = false): { event: LogEvent<P>; text: string } {
    const event = toLogEvent(input, seq ?? this.headNow(input.stream) + 1, this.#now);
    const text = payloadText(event.payload);
    if (typeof event.time !== 'string') throw new ValidationError('time', 'must be an instant string');
    this.conn
      .prepare(SQL.insert)
      .run(
        event.stream,
        event.seq,
        event.type,
        event.time,
        event.schemaVersion,
        text,
        eventChecksum(event.type, event.schemaVersion, text),
        metaText(input, 'actor'),
        metaText(input, 'traceId'),
        metaText(input, 'spanId'),
        metaText(input, 'causationId'),
        metaText(input, 'originInstanceId'),
        metaText(input, 'principal'),
        validated ? 1 : 0,
      );
    return { event, text };
  }

  async read(query: ReadQuery): Promise<LogEvent[]> {
    return mapErrors(() => this.readNow(query.stream, query.afterSeq ?? 0, query.limit ?? 0));
  }

  /** The synchronous core of {@link read}. */
  readNow(stream: string, afterSeq: number, limit: number): LogEvent[] {
    const after = Math.max(0, Math.trunc(afterSeq) || 0);
    const take = limit && limit > 0 ? Math.trunc(limit) : -1;
    return (this.conn.prepare(SQL.read).all(stream, after, take) as EventRow[]).map(eventFromRow);
  }

  /**
   * Events of `stream` for a fold: seq, type, schema version, checked
   * payload, and whether this library validated the payload when it wrote it.
   */
  readForFold(stream: string, afterSeq: number, limit: number): { event: LogEvent; validated: boolean }[] {
    const rows = this.conn.prepare(SQL.readForFold).all(stream, afterSeq, limit) as {
      seq: number;
      type: string;
      schema_version: number;
      payload: string;
      checksum: string;
      validated: number;
    }[];
    return rows.map((row) => ({
      event: { stream, seq: row.seq, type: row.type, time: '', schemaVersion: row.schema_version, payload: parsePayload(stream, row) },
      validated: row.validated === 1,
    }));
  }

  async head(stream: string): Promise<number> {
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
   * Reads the identity made by migration 4. A file without one (opened
   * without migrating, or damaged) is a `CorruptionError`: none of its
   * snapshots can be trusted, and a loader skips them all.
   */
  private identityNow(): string {
    const table = this.conn.prepare(SQL.identityTable).get();
    const row = table ? (this.conn.prepare(SQL.identity).get() as { value: unknown } | undefined) : undefined;
    if (typeof row?.value !== 'string' || row.value === '') throw new CorruptionError(STATE_STREAM, 0, 'the database has no store identity, so no snapshot can be bound to it');
    return row.value;
  }

  async saveSnapshot(snapshot: StoredSnapshot): Promise<void> {
    if (typeof snapshot.stream !== 'string' || snapshot.stream === '') throw new ValidationError('stream', 'must be a non-empty string');
    if (!Number.isInteger(snapshot.seq) || snapshot.seq < 0) throw new ValidationError('seq', 'must be a non-negative integer');
    if (typeof snapshot.data !== 'string') throw new ValidationError('data', 'must be a string');
    await mapErrorsAsync(() =>
      this.conn.exclusive(() =>
        this.conn.immediate(() => {
          this.conn.prepare(SQL.saveSnapshot).run(snapshot.stream, snapshot.seq, snapshot.data);
        }),
      ),
    );
  }

  async latestSnapshot(stream: string, options: { upToSeq?: number } = {}): Promise<StoredSnapshot | undefined> {
    return mapErrors(() => {
      const upTo = options.upToSeq ?? Number.MAX_SAFE_INTEGER;
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
