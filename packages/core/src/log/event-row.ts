/**
 * The event row every SQL backend stores: its columns, the checksum over
 * them and the way back to a {@link LogEvent}. One format, so a row written
 * by SQLite and one written by Postgres carry the same checksum and an
 * export of either compares byte for byte.
 */
import { hash } from 'node:crypto';
import { CorruptionError } from '../errors.js';
import type { Instant } from '../time/instant.js';
import { payloadJson, toLogEvent } from './append.js';
import { checkStateAppend } from './state-append.js';
import type { AppendInput, LogEvent } from './log.js';
import type { UpcasterRegistry } from './upcasters.js';

/** An `events` row as the database returns it. */
export interface EventRow {
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

/** The columns that make an event, in the order its checksum covers them. */
export const EVENT_ROW_COLUMNS = 'stream, seq, type, time, schema_version, payload, actor, trace_id, span_id, causation_id, origin_instance_id, principal';

/** {@link EVENT_ROW_COLUMNS} and the checksum: the columns an insert of an event writes, before `validated`. */
export const EVENT_COLUMNS = `${EVENT_ROW_COLUMNS}, checksum`;

/**
 * What marks a checksum of the current format: the position hashed apart
 * from the rest of the row ({@link placedChecksum}). Legacy SQLite checksums
 * are bare base64, which has no colon.
 */
const ROW_CHECKSUM_PREFIX = '3:';

/** What marks a whole-row checksum of the earlier format: SHA-1 over every column at once. Such rows are still read. */
const WHOLE_ROW_PREFIX = '2:';

/** A nullable column in the checksum text: `\u0001` for null, so null and '' differ. */
const field = (value: string | number | null): string => (value === null ? '\u0001' : String(value));

/** The columns of `row` joined by NUL, `seq` as given (the earlier format put it second; the current one leaves it out). */
const rowText = (row: Omit<EventRow, 'checksum' | 'seq'>, seq: string): string =>
  `${row.stream}\u0000${seq}${row.type}\u0000${row.time}\u0000${row.schema_version}\u0000${row.payload}\u0000${field(row.actor)}\u0000${field(row.trace_id)}\u0000${field(row.span_id)}\u0000${field(row.causation_id)}\u0000${field(row.origin_instance_id)}\u0000${field(row.principal)}`;

/** The row of `event` whose payload is already the JSON `text`, without its checksum: its keys in the order of {@link EVENT_ROW_COLUMNS}. */
export function eventRow(event: LogEvent<unknown>, text: string): Omit<EventRow, 'checksum'> {
  return {
    stream: event.stream,
    seq: event.seq,
    type: event.type,
    time: event.time,
    schema_version: event.schemaVersion,
    payload: text,
    actor: event.actor ?? null,
    trace_id: event.traceId ?? null,
    span_id: event.spanId ?? null,
    causation_id: event.causationId ?? null,
    origin_instance_id: event.originInstanceId ?? null,
    principal: event.principal ?? null,
  };
}

/**
 * The SHA-1 (base64) of every column of an event row but its seq: what a
 * writer computes before it knows the event's position, when the database
 * takes the position in the insert itself (PostgreSQL's one-round-trip
 * append) and finishes the checksum there ({@link placedChecksum}).
 */
export function unplacedDigest(row: Omit<EventRow, 'checksum' | 'seq'>): string {
  // The columns joined and hashed in one call: a streaming hash's dozen native calls cost more than the copy.
  return hash('sha1', rowText(row, ''), 'base64');
}

/**
 * The checksum of the event at `seq` whose other columns hash to `digest`
 * ({@link unplacedDigest}): SHA-256 (base64) of the text `seq:digest`,
 * prefixed. The text is ASCII, so a database computes the same bytes
 * whatever its encoding: PostgreSQL's
 * `'3:' || encode(sha256(convert_to(seq || ':' || digest, 'UTF8')), 'base64')`.
 */
export function placedChecksum(seq: number, digest: string): string {
  return ROW_CHECKSUM_PREFIX + hash('sha256', `${seq}:${digest}`, 'base64');
}

/**
 * The checksum of an event row: over every column that makes the event
 * (stream, seq, type, time, schema version, payload and the linkage
 * fields), so a changed time, actor or position is caught like a changed
 * payload. The position is hashed apart from the rest, so that a database
 * taking it in the insert can finish the checksum ({@link placedChecksum}).
 */
export function rowChecksum(row: Omit<EventRow, 'checksum'>): string {
  return placedChecksum(row.seq, unplacedDigest(row));
}

/**
 * The checksum a stored row must carry, by the format its own names: the
 * current one, or the earlier whole-row SHA-1 (`2:`), which rows written
 * before this format carry. A bare one (no prefix) is SQLite's legacy
 * format, which its log checks itself.
 */
export function storedChecksum(row: EventRow): string {
  return row.checksum.startsWith(WHOLE_ROW_PREFIX) ? WHOLE_ROW_PREFIX + hash('sha1', rowText(row, `${row.seq}\u0000`), 'base64') : rowChecksum(row);
}

/** The values of {@link EVENT_COLUMNS} in that order, as a driver returns a row in array mode. */
export type EventRowValues = [
  stream: string,
  seq: number,
  type: string,
  time: string,
  schemaVersion: number,
  payload: string,
  actor: string | null,
  traceId: string | null,
  spanId: string | null,
  causationId: string | null,
  originInstanceId: string | null,
  principal: string | null,
  checksum: string,
];

/**
 * The row of the first values of `values` (a query may select more columns
 * after them). Read as arrays, as a driver builds a keyed object per row
 * more slowly than this literal, which a fold of many events pays per event.
 */
export function eventRowFromValues(values: readonly [...EventRowValues, ...unknown[]]): EventRow {
  return {
    stream: values[0],
    seq: values[1],
    type: values[2],
    time: values[3],
    schema_version: values[4],
    payload: values[5],
    actor: values[6],
    trace_id: values[7],
    span_id: values[8],
    causation_id: values[9],
    origin_instance_id: values[10],
    principal: values[11],
    checksum: values[12],
  };
}

/** An append made ready to insert: the event, its payload's JSON text and the row's values. */
export interface PreparedEvent<P> {
  event: LogEvent<P>;
  /** The payload as stored. */
  text: string;
  /** The values of {@link EVENT_COLUMNS}, in that order, checksum last. */
  values: (string | number | null)[];
  /** True when the payload was decoded as a current `state` event, so a fold need not check it again. */
  validated: boolean;
}

/**
 * The preamble every SQL log runs before its insert: the append's shared
 * rules (`toLogEvent`), the payload's JSON, the `state` check when `check`
 * is set (`checkStateAppend` on the payload as it will be read back; a
 * refused event throws `ValidationError`) and the row with its checksum.
 * Without `check` the payload is the stamper's, valid by construction, and
 * marked validated. `now` and `previous` stamp the time as `toLogEvent` does.
 * `known`: the payload's JSON, when the caller made it already.
 */
export function prepareEvent<P>(
  input: AppendInput<P>,
  seq: number,
  now: () => Instant,
  previous: (stream: string) => Instant | undefined,
  check?: { upcasters: UpcasterRegistry | undefined },
  known?: string,
): PreparedEvent<P> {
  const event = toLogEvent(input, seq, now, previous);
  const text = known ?? payloadJson(event.payload);
  const validated = check ? checkStateAppend({ ...event, payload: JSON.parse(text) as unknown }, check.upcasters) : true;
  const row = eventRow(event, text);
  const values: (string | number | null)[] = Object.values(row);
  values.push(rowChecksum(row));
  return { event, text, values, validated };
}

/** An append made ready for a database that takes its position in the insert: {@link prepareUnplaced}. */
export interface UnplacedEvent<P> {
  /** The event, its `seq` 0 until the caller learns the position. */
  event: LogEvent<P>;
  /** The payload as stored. */
  text: string;
  /** The values of {@link EVENT_ROW_COLUMNS} but `seq`, in that order. */
  values: (string | number | null)[];
  /** {@link unplacedDigest} of the row, which the database finishes into its checksum ({@link placedChecksum}). */
  digest: string;
}

/**
 * As {@link prepareEvent} for the stamper's own payload (valid by
 * construction), at a position the database takes in the insert itself:
 * the event is stamped after `previous`, the time of the last event before
 * it, and its checksum is left for the database to finish.
 */
export function prepareUnplaced<P>(input: AppendInput<P>, now: () => Instant, previous: Instant | undefined): UnplacedEvent<P> {
  const event = toLogEvent(input, 0, now, () => previous);
  const text = payloadJson(event.payload);
  const { seq: _seq, ...rest } = eventRow(event, text);
  return { event, text, values: Object.values(rest), digest: unplacedDigest(rest) };
}

/** How a backend computes the checksum a stored row must carry. */
export type RowChecksum = (row: EventRow) => string;

/**
 * Parses a stored payload after checking the row against `expected` (by
 * default {@link storedChecksum}); either failing is a `CorruptionError` naming
 * the event.
 */
export function rowPayload(row: EventRow, expected: RowChecksum = storedChecksum): unknown {
  if (expected(row) !== row.checksum) throw new CorruptionError(row.stream, row.seq, 'the stored event does not match its checksum');
  try {
    return JSON.parse(row.payload);
  } catch (cause) {
    throw new CorruptionError(row.stream, row.seq, 'the stored payload is not JSON', { cause });
  }
}

/** Turns a row into an event, checked and parsed as {@link rowPayload} does. */
export function eventFromRow(row: EventRow, expected: RowChecksum = storedChecksum): LogEvent {
  const payload = rowPayload(row, expected);
  const event: LogEvent = { stream: row.stream, seq: row.seq, type: row.type, time: row.time, schemaVersion: row.schema_version, payload };
  if (row.actor !== null) event.actor = row.actor;
  if (row.trace_id !== null) event.traceId = row.trace_id;
  if (row.span_id !== null) event.spanId = row.span_id;
  if (row.causation_id !== null) event.causationId = row.causation_id;
  if (row.origin_instance_id !== null) event.originInstanceId = row.origin_instance_id;
  if (row.principal !== null) event.principal = row.principal;
  return event;
}
