/**
 * The checkpoint tables: rows, their records, what the
 * projection writes and the queries of {@link CheckpointQueries}. JSON
 * columns hold `JSON.stringify` text, which reads back to the same value.
 */
import type { Checkpoint, CheckpointWrite, JsonObject, JsonValue } from '@agentstate/core';
import type { CheckpointKey, CheckpointQueries } from '@agentstate/core/backend';
import { checkpointPageSql, Params, rowCodec } from '@agentstate/core/backend';
import type { Database, Sql } from './database.js';

/** A row of `checkpoints`. */
interface CheckpointRow {
  thread_id: string;
  namespace: string;
  checkpoint_id: string;
  id: string;
  parent_checkpoint_id: string | null;
  checkpoint: string;
  metadata: string;
  created_at: string;
  updated_at: string;
  sync_version: number;
  origin_instance_id: string;
  hlc_wall: number;
  hlc_counter: number;
  last_writer_id: string;
}

function checkpointFromRow(r: CheckpointRow): Checkpoint {
  return {
    id: r.id,
    threadId: r.thread_id,
    namespace: r.namespace,
    checkpointId: r.checkpoint_id,
    parentCheckpointId: r.parent_checkpoint_id,
    checkpoint: JSON.parse(r.checkpoint) as JsonValue,
    metadata: JSON.parse(r.metadata) as JsonObject,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    syncVersion: r.sync_version,
    originInstanceId: r.origin_instance_id,
    updatedHlc: { wall: r.hlc_wall, counter: r.hlc_counter },
    lastWriterId: r.last_writer_id,
  };
}

/** The columns of a checkpoint's row, its key first: the record in full (SQLite's own layout points at its event instead). */
const CHECKPOINT_COLUMNS = `thread_id, namespace, checkpoint_id, id, parent_checkpoint_id, checkpoint, metadata, created_at, updated_at,
  sync_version, origin_instance_id, hlc_wall, hlc_counter, last_writer_id`;

/** Writes a checkpoint's post-image (a re-save replaces the row). */
export async function putCheckpointRow(db: Database, sql: Sql, c: Checkpoint): Promise<void> {
  await sql.rows(
    `INSERT INTO ${db.t('checkpoints')} (${CHECKPOINT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     ${rowCodec.onConflictUpdate(CHECKPOINT_COLUMNS, 'thread_id, namespace, checkpoint_id')}`,
    [
      c.threadId,
      c.namespace,
      c.checkpointId,
      c.id,
      c.parentCheckpointId,
      JSON.stringify(c.checkpoint),
      JSON.stringify(c.metadata),
      c.createdAt,
      c.updatedAt,
      c.syncVersion,
      c.originInstanceId,
      c.updatedHlc.wall,
      c.updatedHlc.counter,
      c.lastWriterId,
    ],
  );
}

/** Writes a write (one at a negative idx replaces the one there). */
export async function putCheckpointWriteRow(db: Database, sql: Sql, w: CheckpointWrite): Promise<void> {
  await sql.rows(
    `INSERT INTO ${db.t('checkpoint_writes')} (${rowCodec.CHECKPOINT_WRITE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ${rowCodec.onConflictUpdate(rowCodec.CHECKPOINT_WRITE_COLUMNS, rowCodec.CHECKPOINT_WRITE_KEY)}`,
    rowCodec.checkpointWriteValues(w),
  );
}

/** Removes a thread's checkpoints and writes. */
export async function deleteCheckpointThreadRows(db: Database, sql: Sql, threadId: string): Promise<void> {
  await sql.rows(`DELETE FROM ${db.t('checkpoints')} WHERE thread_id = $1`, [threadId]);
  await sql.rows(`DELETE FROM ${db.t('checkpoint_writes')} WHERE thread_id = $1`, [threadId]);
}

/** Every checkpoint and write, for a snapshot. */
export async function allCheckpointRows(db: Database, sql: Sql): Promise<{ checkpoints: Checkpoint[]; checkpointWrites: CheckpointWrite[] }> {
  return {
    checkpoints: (await sql.rows<CheckpointRow>(`SELECT ${CHECKPOINT_COLUMNS} FROM ${db.t('checkpoints')}`)).map(checkpointFromRow),
    checkpointWrites: (await sql.rows<rowCodec.CheckpointWriteRow>(`SELECT ${rowCodec.CHECKPOINT_WRITE_COLUMNS} FROM ${db.t('checkpoint_writes')}`)).map(
      rowCodec.checkpointWriteFromRow,
    ),
  };
}

/** The checkpoint look-ups, and the ones a fold's rules need besides. */
export interface TableCheckpointQueries extends CheckpointQueries {
  /** True when the task has a write at `idx` against the checkpoint at `key`. */
  writeExists(key: CheckpointKey, taskId: string, idx: number): Promise<boolean>;
}

/** {@link CheckpointQueries} over `db`'s tables through `sql` (the pool, or a transaction). */
export function checkpointQueries(db: Database, sql: Sql, locking = false): TableCheckpointQueries {
  const one = async (text: string, params: unknown[]): Promise<Checkpoint | undefined> => {
    const [row] = await sql.rows<CheckpointRow>(text, params);
    return row === undefined ? undefined : checkpointFromRow(row);
  };
  // In a write, a thread's checkpoints and writes are decided one writer at a time: its rows may not exist yet to lock.
  const lockThread = async (threadId: string): Promise<void> => {
    if (locking) await sql.rows('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`agentstate:${db.schema}:checkpoints:${threadId}`]);
  };
  return {
    at: async (key) => {
      await lockThread(key.threadId);
      return one(`SELECT ${CHECKPOINT_COLUMNS} FROM ${db.t('checkpoints')} WHERE thread_id = $1 AND namespace = $2 AND checkpoint_id = $3`, [
        key.threadId,
        key.namespace,
        key.checkpointId,
      ]);
    },
    latest: (threadId, namespace) =>
      one(`SELECT ${CHECKPOINT_COLUMNS} FROM ${db.t('checkpoints')} WHERE thread_id = $1 AND namespace = $2 ORDER BY checkpoint_id DESC LIMIT 1`, [
        threadId,
        namespace,
      ]),
    writes: async (key) => {
      await lockThread(key.threadId);
      const rows = await sql.rows<rowCodec.CheckpointWriteRow>(
        `SELECT ${rowCodec.CHECKPOINT_WRITE_COLUMNS} FROM ${db.t('checkpoint_writes')} WHERE thread_id = $1 AND namespace = $2 AND checkpoint_id = $3 ORDER BY task_id, idx`,
        [key.threadId, key.namespace, key.checkpointId],
      );
      return rows.map(rowCodec.checkpointWriteFromRow);
    },
    writeExists: async (key, taskId, idx) =>
      (
        await sql.rows(
          `SELECT 1 FROM ${db.t('checkpoint_writes')} WHERE thread_id = $1 AND namespace = $2 AND checkpoint_id = $3 AND task_id = $4 AND idx = $5`,
          [key.threadId, key.namespace, key.checkpointId, taskId, idx],
        )
      ).length > 0,
    threadExists: async (threadId) => {
      await lockThread(threadId);
      const [row] = await sql.rows<{ found: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${db.t('checkpoints')} WHERE thread_id = $1) OR EXISTS (SELECT 1 FROM ${db.t('checkpoint_writes')} WHERE thread_id = $1) AS found`,
        [threadId],
      );
      return row?.found === true;
    },
    list: async (query) => {
      const p = new Params();
      return (await sql.rows<CheckpointRow>(`SELECT ${CHECKPOINT_COLUMNS} FROM ${db.t('checkpoints')}${checkpointPageSql(p, query, '', null)}`, p.values)).map(
        checkpointFromRow,
      );
    },
  };
}
