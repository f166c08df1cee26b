/**
 * The history index in SQLite (docs/contract.md §7, "History"): the
 * `record_events` table, one `(record_id, seq)` row per record an event
 * carries, except for a turn appended by a live commit, whose row in
 * `turns` records the seq of its append instead (`appended_seq`), and a
 * turn a live commit purges, whose row records the seq of the purge
 * (`purged_seq`): the index answers as the union of both. Written with each
 * event (live commit and fold), refilled by a rebuild, compared with a
 * replay by verify. A history reads its events in one statement.
 */
import type { LogEvent, StateChange, UpcasterRegistry } from '@agentstate/core';
import { STATE_STREAM } from '@agentstate/core';
import type { EventRowValues } from '@agentstate/core/backend';
import { changeRecordIds, EVENT_COLUMNS, eventRowFromValues, historyRows } from '@agentstate/core/backend';
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

/** A history read's row: an event row's columns (all NULL where the log lacks the event), then the indexed seq. */
type EventsRow = [...EventRowValues, seq: number];

const SQL = {
  seqs: `${SEQS} ORDER BY 1`,
  // One read of the history, each seq's event row beside it (NULL where the log lacks it).
  events: `WITH h (seq) AS (${SEQS}) SELECT ${EVENT_COLUMNS.split(', ')
    .map((column) => `e.${column}`)
    .join(', ')}, h.seq FROM h LEFT JOIN events e ON e.stream = 'state' AND e.seq = h.seq ORDER BY h.seq`,
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

/**
 * The events that carry the record with this id, each beside its seq, in one read; checked as the log checks them.
 * Rows as arrays: the driver builds a keyed object per row at about twice the cost.
 */
export function recordEvents(conn: Connection, id: string): { seq: number; event: LogEvent | undefined }[] {
  const rows = conn.prepare(SQL.events).raw(true).all({ id }) as EventsRow[];
  return rows.map((r) => ({ seq: r[13], event: r[0] === null ? undefined : toEvent(eventRowFromValues(r)) }));
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
