/**
 * The checkpoint tables (`schema/derived.ts`): rows, their records, and
 * the queries of {@link CheckpointQueries}. JSON columns hold
 * `JSON.stringify` text, which reads back to the same value. A checkpoint is
 * stored once: a row written by a commit or a fold keeps only its key and
 * the seq of the event whose payload holds the record (`event_seq`), read
 * with the row; only a row loaded from a snapshot, or folded from an upcast
 * event, holds its record itself (`record`).
 */
import type { Checkpoint, CheckpointWrite } from '@agentstate/core';
import { CorruptionError, STATE_STREAM } from '@agentstate/core';
import type { CheckpointKey, CheckpointQueries } from '@agentstate/core/backend';
import { checkpointPageSql, Params, rowCodec } from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import { mappingErrors } from './errors.js';

/** A row of `checkpoints`, with the payload of the event it points at. */
export interface CheckpointRow {
  thread_id: string;
  namespace: string;
  checkpoint_id: string;
  /** The seq of the `state` event whose payload holds the record (else `null`, and `record` is set). */
  event_seq: number | null;
  /** The record's JSON, when the row holds it. */
  record: string | null;
  /** The payload of the event at `event_seq` (`{ checkpoint: <record>, … }`), joined in by every read. */
  payload: string | null;
}

/**
 * A checkpoint from its row: its own record, or the one in the payload of
 * its event. The key is the row's, so a row pointing at another checkpoint's
 * event reads as a checkpoint that differs from the log (what verify finds),
 * never as a second row of that other key.
 */
export function checkpointFromRow(r: CheckpointRow): Checkpoint {
  const record = r.record !== null ? (JSON.parse(r.record) as Checkpoint) : eventRecord(r);
  return { ...record, threadId: r.thread_id, namespace: r.namespace, checkpointId: r.checkpoint_id };
}

/** The record in the payload of a row's event. */
function eventRecord(r: CheckpointRow): Checkpoint {
  const seq = r.event_seq ?? 0;
  if (r.payload === null) throw new CorruptionError(STATE_STREAM, seq, `the event holding checkpoint ${r.checkpoint_id} of thread ${r.thread_id} is missing`);
  const record = (JSON.parse(r.payload) as { checkpoint?: Checkpoint }).checkpoint;
  if (record === undefined || record === null || typeof record !== 'object')
    throw new CorruptionError(STATE_STREAM, seq, `the event does not hold checkpoint ${r.checkpoint_id} of thread ${r.thread_id}`);
  return record;
}

/** The columns of a checkpoint row with the payload of its event (a row holding its record joins nothing). */
const CHECKPOINT_COLUMNS = 'c.thread_id, c.namespace, c.checkpoint_id, c.event_seq, c.record, e.payload';
const JOIN_EVENT = `LEFT JOIN events e ON c.event_seq IS NOT NULL AND e.stream = '${STATE_STREAM}' AND e.seq = c.event_seq`;
const SELECT_CHECKPOINTS = `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints c ${JOIN_EVENT}`;

const SQL = {
  putCheckpoint: `INSERT INTO checkpoints (thread_id, namespace, checkpoint_id, event_seq, record) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (thread_id, namespace, checkpoint_id) DO UPDATE SET event_seq = excluded.event_seq, record = excluded.record`,
  putWrite: `INSERT INTO checkpoint_writes (${rowCodec.CHECKPOINT_WRITE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
    ${rowCodec.onConflictUpdate(rowCodec.CHECKPOINT_WRITE_COLUMNS, rowCodec.CHECKPOINT_WRITE_KEY)}`,
  deleteCheckpoints: 'DELETE FROM checkpoints WHERE thread_id = ?',
  deleteWrites: 'DELETE FROM checkpoint_writes WHERE thread_id = ?',
  at: `${SELECT_CHECKPOINTS} WHERE c.thread_id = ? AND c.namespace = ? AND c.checkpoint_id = ?`,
  latest: `${SELECT_CHECKPOINTS} WHERE c.thread_id = ? AND c.namespace = ? ORDER BY c.checkpoint_id DESC LIMIT 1`,
  writes: 'SELECT * FROM checkpoint_writes WHERE thread_id = ? AND namespace = ? AND checkpoint_id = ? ORDER BY task_id, idx',
  writeExists: 'SELECT 1 FROM checkpoint_writes WHERE thread_id = ? AND namespace = ? AND checkpoint_id = ? AND task_id = ? AND idx = ?',
  threadExists: 'SELECT EXISTS (SELECT 1 FROM checkpoints WHERE thread_id = ?) OR EXISTS (SELECT 1 FROM checkpoint_writes WHERE thread_id = ?) AS found',
} as const;

/**
 * Writes a checkpoint's post-image (a re-save replaces the row). With
 * `eventSeq`, the seq of a `state` event of this file whose stored payload
 * holds exactly this record, the row points there and holds nothing else;
 * without it (a snapshot's record, an upcast one) the row holds the record.
 */
export function putCheckpointRow(conn: Connection, c: Checkpoint, eventSeq?: number): void {
  conn.prepare(SQL.putCheckpoint).run(c.threadId, c.namespace, c.checkpointId, eventSeq ?? null, eventSeq === undefined ? JSON.stringify(c) : null);
}

/** Writes a write (one at a negative idx replaces the one there). */
export function putCheckpointWriteRow(conn: Connection, w: CheckpointWrite): void {
  conn.prepare(SQL.putWrite).run(rowCodec.checkpointWriteValues(w));
}

/** Removes a thread's checkpoints and writes. */
export function deleteCheckpointThreadRows(conn: Connection, threadId: string): void {
  conn.prepare(SQL.deleteCheckpoints).run(threadId);
  conn.prepare(SQL.deleteWrites).run(threadId);
}

/** Every checkpoint and write, for a snapshot. */
export function allCheckpointRows(conn: Connection): { checkpoints: Checkpoint[]; checkpointWrites: CheckpointWrite[] } {
  return {
    checkpoints: (conn.prepare(SELECT_CHECKPOINTS).all() as CheckpointRow[]).map(checkpointFromRow),
    checkpointWrites: (conn.prepare('SELECT * FROM checkpoint_writes').all() as rowCodec.CheckpointWriteRow[]).map(rowCodec.checkpointWriteFromRow),
  };
}

/** The checkpoint look-ups of one connection, synchronous (the fold's view needs them so). */
export interface SyncCheckpointQueries extends CheckpointQueries {
  at(key: CheckpointKey): Checkpoint | undefined;
  writes(key: CheckpointKey): CheckpointWrite[];
  threadExists(threadId: string): boolean;
  /** True when the task has a write at `idx` against the checkpoint at `key`. */
  writeExists(key: CheckpointKey, taskId: string, idx: number): boolean;
}

/** {@link CheckpointQueries} over a connection's tables. */
export function checkpointQueries(conn: Connection): SyncCheckpointQueries {
  const one = (sql: string, ...params: unknown[]): Checkpoint | undefined => {
    const row = conn.prepare(sql).get(...params) as CheckpointRow | undefined;
    return row === undefined ? undefined : checkpointFromRow(row);
  };
  return mappingErrors(conn.path, {
    at: (key) => one(SQL.at, key.threadId, key.namespace, key.checkpointId),
    latest: (threadId, namespace) => one(SQL.latest, threadId, namespace),
    writes: (key) =>
      (conn.prepare(SQL.writes).all(key.threadId, key.namespace, key.checkpointId) as rowCodec.CheckpointWriteRow[]).map(rowCodec.checkpointWriteFromRow),
    writeExists: (key, taskId, idx) => conn.prepare(SQL.writeExists).get(key.threadId, key.namespace, key.checkpointId, taskId, idx) !== undefined,
    threadExists: (threadId) => (conn.prepare(SQL.threadExists).get(threadId, threadId) as { found: number }).found === 1,
    list: (query) => {
      const p = new Params(false);
      return (conn.prepare(`${SELECT_CHECKPOINTS}${checkpointPageSql(p, query, 'c.', -1)}`).all(...p.values) as CheckpointRow[]).map(checkpointFromRow);
    },
  });
}
