/**
 * The history index in SQLite (docs/contract.md §7, "History"): the
 * `record_events` table, one `(record_id, seq)` row per record an event
 * carries, except for a turn appended by a live commit, whose row in
 * `turns` records the seq of its append instead (`appended_seq`), and a
 * turn a live commit purges, whose row records the seq of the purge
 * (`purged_seq`): the index answers as the union of both. Written with each
 * event (live commit and fold), refilled by a rebuild, compared with a
 * replay by verify. A history reads its events in one statement, each
 * found by its row's key where it can be (see `eventRows`).
 */
import type { LogEvent, StateChange, UpcasterRegistry } from '@agentstate/core';
import { STATE_STREAM } from '@agentstate/core';
import type { EventRow } from '@agentstate/core/backend';
import { changeRecordIds, historyRows } from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import type { SqliteLog } from './log.js';
import { toEvent } from './log.js';

/** The columns that name a record in the history index: its rows' `record_id`, a turn's `id` and its `session_id`. */
export type HistoryIdColumn = 'record_id' | 'id' | 'session_id';

/**
 * The SQL of the seqs of the events that carry the records `isId` selects (it gives the condition on an id
 * column): the index's rows, and the events the turns table records in their place: a turn's own append
 * (`appended_seq`) and purge (`purged_seq`), and each append of a turn to a selected session (a purge carries
 * the session itself when it erases it, so its seq is the session's index row). History reads one id; a purge
 * reads many.
 */
export const recordSeqsSql = (isId: (column: HistoryIdColumn) => string): string => `SELECT seq FROM record_events WHERE ${isId('record_id')}
  UNION SELECT appended_seq FROM turns WHERE ${isId('id')} AND appended_seq IS NOT NULL
  UNION SELECT purged_seq FROM turns WHERE ${isId('id')} AND purged_seq IS NOT NULL
  UNION SELECT appended_seq FROM turns WHERE ${isId('session_id')} AND appended_seq IS NOT NULL`;

/** The seqs of the events that carry record `@id`. */
const SEQS = recordSeqsSql((column) => `${column} = @id`);

/** The linkage columns of an event row, in the order its checksum covers them (see `EventRow`). */
const LINKS = ['actor', 'trace_id', 'span_id', 'causation_id', 'origin_instance_id', 'principal'] as const;

/**
 * What a history read selects of an event row: the columns its checksum covers, but not `stream` and
 * `seq`, which the join fixes (`'state'` and the indexed seq), and with the six linkage columns as one
 * value, NULL where all are, as they mostly are: the driver's cost per value is a good part of the read
 * (the 2,005 rows of a long session's history, on a file of 1,000,000 events: 5.2 ms with the 14
 * values a row of the whole row, 4.3 with these 7, 3.0 with the type alone, load average 1).
 */
const EVENT_SELECT = `e.type, e.time, e.schema_version, e.payload, e.checksum,
  CASE WHEN ${LINKS.map((column) => `e.${column} IS NULL`).join(' AND ')} THEN NULL ELSE json_array(${LINKS.map((column) => `e.${column}`).join(', ')}) END`;

/**
 * A row of `SQL.events` as the driver returns it in raw mode: the values of {@link EVENT_SELECT} (all
 * NULL where the log lacks the event), then the indexed seq.
 */
type EventsRow = [type: string | null, time: string, schemaVersion: number, payload: string, checksum: string, links: string | null, seq: number];

/** Where `EventsRow` puts the indexed seq. */
const SEQ_AT = 6;

/** The linkage of an event row that has none. */
const NO_LINKS: readonly null[] = [null, null, null, null, null, null];

/** The event row of a history read's row, which the log has: its linkage back in its six columns. */
function eventRow(r: EventsRow): EventRow {
  // `json_array` of the six columns: JSON text whatever they hold, so the parse gives them back as stored.
  const links = r[5] === null ? NO_LINKS : (JSON.parse(r[5]) as (string | null)[]);
  return {
    stream: STATE_STREAM,
    seq: r[SEQ_AT],
    type: r[0]!,
    time: r[1],
    schema_version: r[2],
    payload: r[3],
    checksum: r[4],
    actor: links[0]!,
    trace_id: links[1]!,
    span_id: links[2]!,
    causation_id: links[3]!,
    origin_instance_id: links[4]!,
    principal: links[5]!,
  };
}

/** The reads of a history's event rows, for the seqs the SQL `seqs` selects (with its named parameters). */
const readsOf = (seqs: string) =>
  ({
    // One read of the history, each seq's event row beside it (NULL where the log lacks it).
    events: `WITH h (seq) AS (${seqs}) SELECT ${EVENT_SELECT}, h.seq AS indexed_seq FROM h LEFT JOIN events e ON e.stream = 'state' AND e.seq = h.seq
    ORDER BY h.seq`,
    // How far the rows of the record's first and last events sit from their seqs (position - seq), NULL for none.
    offsets: `WITH h (seq) AS MATERIALIZED (${seqs}) SELECT
    (SELECT position - seq FROM events WHERE stream = 'state' AND seq = (SELECT min(seq) FROM h)) AS first,
    (SELECT position - seq FROM events WHERE stream = 'state' AND seq = (SELECT max(seq) FROM h)) AS last`,
    // The same read, each event found by its row's key (position) at seq + @offset, and checked to be that event.
    eventsAt: `WITH h (seq) AS (${seqs}) SELECT ${EVENT_SELECT}, h.seq AS indexed_seq FROM h LEFT JOIN events e ON e.position = h.seq + @offset
    AND e.stream = 'state' AND e.seq = h.seq ORDER BY h.seq`,
  }) as const;

/** The reads of a history's event rows: see {@link readsOf}. */
type HistoryReads = ReturnType<typeof readsOf>;

const SQL = {
  seqs: `${SEQS} ORDER BY 1`,
  record: readsOf(SEQS),
  // How far the rows of the log's first and last state events sit from their seqs (position - seq), NULL for none.
  logOffsets: `SELECT (SELECT position - seq FROM events WHERE stream = 'state' ORDER BY seq LIMIT 1) AS first,
    (SELECT position - seq FROM events WHERE stream = 'state' ORDER BY seq DESC LIMIT 1) AS last`,
  event: `SELECT ${EVENT_SELECT}, ? AS indexed_seq FROM events e WHERE e.stream = 'state' AND e.seq = ?`,
  all: `SELECT record_id, seq FROM record_events
    UNION SELECT id, appended_seq FROM turns WHERE appended_seq IS NOT NULL
    UNION SELECT session_id, appended_seq FROM turns WHERE appended_seq IS NOT NULL
    UNION SELECT id, purged_seq FROM turns WHERE purged_seq IS NOT NULL
    ORDER BY 1, 2`,
} as const;

/** At most this many rows per insert of the index. */
const INSERT_CHUNK = 500;

/** The insert of `n` rows, by `n`: built once, as its text is the statement cache's key. */
const insertSql: string[] = [];
const insertOf = (n: number): string =>
  (insertSql[n] ??= `INSERT OR IGNORE INTO record_events (record_id, seq) VALUES ${Array.from({ length: n }, () => '(?, ?)').join(', ')}`);

/**
 * Indexes the records of the event at `seq` but those in `held`: the turns whose rows record the seq
 * instead (a live commit skips the turn appends and the purged turns it records in `turns`).
 */
export function indexRecordEvents(conn: Connection, change: StateChange, seq: number, held?: ReadonlySet<string>): void {
  const all = changeRecordIds(change);
  const ids = held === undefined ? all : all.filter((id) => !held.has(id));
  // One statement per event (a purge's may name thousands: in chunks under SQLite's parameter limit),
  // since a turn's event carries two records and every statement costs the append.
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    const end = Math.min(ids.length, i + INSERT_CHUNK);
    const values: (string | number)[] = [];
    for (let j = i; j < end; j += 1) values.push(ids[j]!, seq);
    conn.prepare(insertOf(end - i)).run(values);
  }
}

/** The seqs of the events that carry the record with this id, ascending. */
export function recordSeqs(conn: Connection, id: string): number[] {
  return (conn.prepare(SQL.seqs).all({ id }) as { seq: number }[]).map((row) => row.seq);
}

/** The events that carry the record with this id, each beside its seq, in one read; checked as the log checks them. */
export function recordEvents(conn: Connection, id: string): { seq: number; event: LogEvent | undefined }[] {
  return eventRows(conn, SQL.record, { id }).map(historyEntry);
}

/** A history read's row as its seq and event (undefined where the log lacks it). */
const historyEntry = (r: EventsRow): { seq: number; event: LogEvent | undefined } => ({
  seq: r[SEQ_AT],
  event: r[0] === null ? undefined : toEvent(eventRow(r)),
});

/**
 * The rows of `reads` for `params`. Events are appended in seq order and never deleted, and each row's
 * key (`position`) is the next free one, so `position - seq` never decreases along a stream: where it is
 * the same at the first and last event of the log (no other stream's rows in between: two lookups), or
 * else of the record, it is the same at every event between, and each row is found by its key, one
 * B-tree search instead of two (the `(stream, seq)` index's, then the table's). A row not found there
 * (the log lacks it, or another stream's rows came between after all) is looked up by its seq.
 * Rows as arrays: the driver builds a keyed object per row at about twice the cost.
 */
function eventRows(conn: Connection, reads: HistoryReads, params: Record<string, string | number>): EventsRow[] {
  const offset = sameOffset(conn.prepare(SQL.logOffsets).get()) ?? sameOffset(conn.prepare(reads.offsets).get(params));
  if (offset === undefined) return conn.prepare(reads.events).raw(true).all(params) as EventsRow[];
  const rows = conn
    .prepare(reads.eventsAt)
    .raw(true)
    .all({ ...params, offset }) as EventsRow[];
  for (let i = 0; i < rows.length; i += 1) {
    const seq = rows[i]![SEQ_AT];
    if (rows[i]![0] === null) rows[i] = (conn.prepare(SQL.event).raw(true).get(seq, seq) as EventsRow | undefined) ?? rows[i]!;
  }
  return rows;
}

/** The offset `position - seq` of both ends of a span of events, when it is the same. */
function sameOffset(row: unknown): number | undefined {
  const { first, last } = row as { first: number | null; last: number | null };
  return first !== null && first === last ? first : undefined;
}

/** Every row of the index, the turns' appends and purges included, in key order: what verify compares with a replay. */
export function allRecordEvents(conn: Connection): { record_id: string; seq: number }[] {
  return conn.prepare(SQL.all).all() as { record_id: string; seq: number }[];
}

/** Events read per batch of a refill. */
const REFILL_BATCH = 5_000;

/**
 * Empties the index and indexes the events up to `seq` (a rebuild that
 * starts from a snapshot at `seq` folds only the events after it), by
 * core's `historyRows`: the same definition the live commit uses. Inside
 * the caller's write transaction.
 */
export function refillRecordEvents(conn: Connection, log: SqliteLog, seq: number, upcasters?: UpcasterRegistry): void {
  conn.db.exec('DELETE FROM record_events');
  const insert = conn.prepare('INSERT OR IGNORE INTO record_events (record_id, seq) VALUES (?, ?)');
  for (let after = 0; after < seq; ) {
    const batch = log.readNow(STATE_STREAM, after, Math.min(REFILL_BATCH, seq - after));
    if (batch.length === 0) break;
    for (const row of historyRows(batch, upcasters)) insert.run(row.recordId, row.seq);
    after = batch[batch.length - 1]!.seq;
  }
}
