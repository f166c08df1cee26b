/**
 * The history index in SQLite (docs/contract.md §7, "History"): the
 * `record_events` table of migration 8, one `(record_id, seq)` row per
 * record an event carries. Written with each event (live commit and fold),
 * refilled by a rebuild, compared with a replay by verify.
 */
import type { StateChange } from '@agentstate/core';
import { changeRecordIds } from '@agentstate/core/backend';
import type { Connection } from './connection.js';

const SQL = {
  seqs: 'SELECT seq FROM record_events WHERE record_id = ? ORDER BY seq',
  all: 'SELECT record_id, seq FROM record_events ORDER BY record_id, seq',
} as const;

/** Where a payload keeps one record, and where it keeps lists of them. */
// A turn's event keeps its session only before payload version 3: `$.turn.sessionId` names it in every version.
const SINGLE_PATHS = ['$.session.id', '$.turn.id', '$.turn.sessionId', '$.skill.id', '$.item.id'] as const;
const LIST_PATHS = ['$.turns', '$.removed', '$.added', '$.sessions', '$.skills', '$.memory'] as const;

/** At most this many rows per insert of the index. */
const INSERT_CHUNK = 500;

/** Indexes the records of the event at `seq`. */
export function indexRecordEvents(conn: Connection, change: StateChange, seq: number): void {
  const ids = changeRecordIds(change);
  // One statement per event (a purge's may name thousands: in chunks under SQLite's parameter limit),
  // since a turn's event carries two records and every statement costs the append.
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    const chunk = ids.slice(i, i + INSERT_CHUNK);
    const values = chunk.map(() => '(?, ?)').join(', ');
    conn.prepare(`INSERT OR IGNORE INTO record_events (record_id, seq) VALUES ${values}`).run(chunk.flatMap((id) => [id, seq]));
  }
}

/**
 * The history index rows of many events, gathered while folding: written
 * {@link INSERT_CHUNK} rows per statement, one prepared statement for every
 * full chunk, rather than one statement per event.
 */
export class RecordEventsBuffer {
  /** Record id and seq, alternating: the statement's parameters as they are bound. */
  #params: Array<string | number> = [];

  /** Adds the records of the event at `seq`. */
  add(change: StateChange, seq: number): void {
    for (const id of changeRecordIds(change)) this.#params.push(id, seq);
  }

  /** Writes every row gathered and forgets them; inside the caller's write transaction. */
  flush(conn: Connection): void {
    const params = this.#params;
    this.#params = [];
    for (let i = 0; i < params.length; i += INSERT_CHUNK * 2) {
      const chunk = params.slice(i, i + INSERT_CHUNK * 2);
      conn.prepare(`INSERT OR IGNORE INTO record_events (record_id, seq) VALUES ${'(?, ?), '.repeat(chunk.length / 2 - 1)}(?, ?)`).run(chunk);
    }
  }
}

/** The seqs of the events that carry the record with this id, ascending. */
export function recordSeqs(conn: Connection, id: string): number[] {
  return (conn.prepare(SQL.seqs).all(id) as { seq: number }[]).map((row) => row.seq);
}

/** Every row of the index, in key order: what verify compares with a replay. */
export function allRecordEvents(conn: Connection): { record_id: string; seq: number }[] {
  return conn.prepare(SQL.all).all() as { record_id: string; seq: number }[];
}

/**
 * Empties the index and indexes the events up to `seq` straight from their
 * payloads, in SQL (a rebuild that starts from a snapshot at `seq` folds
 * only the events after it). Inside the caller's write transaction.
 */
export function refillRecordEvents(conn: Connection, seq: number): void {
  conn.db.exec('DELETE FROM record_events');
  if (seq === 0) return;
  for (const path of SINGLE_PATHS) {
    conn
      .prepare(
        `INSERT OR IGNORE INTO record_events (record_id, seq) SELECT json_extract(payload, '${path}'), seq FROM events
         WHERE stream = 'state' AND seq <= ? AND json_extract(payload, '${path}') IS NOT NULL`,
      )
      .run(seq);
  }
  for (const path of LIST_PATHS) {
    conn
      .prepare(
        `INSERT OR IGNORE INTO record_events (record_id, seq) SELECT json_extract(t.value, '$.id'), e.seq FROM events e, json_each(e.payload, '${path}') t
         WHERE e.stream = 'state' AND e.seq <= ?`,
      )
      .run(seq);
  }
}
