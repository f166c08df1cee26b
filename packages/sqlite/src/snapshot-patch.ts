/**
 * The snapshot part of a purge in SQLite (docs/contract.md §7, "Purge"):
 * core's {@link patchSnapshots} over the rows of the `snapshots` table,
 * applied inside the purge's write transaction. Heads of chunks are patched
 * in place; snapshots of earlier formats are dropped with their parts; chunk
 * rows no head names any more are deleted (`secure_delete` zeroes their pages).
 */
import type { LogEvent, SnapshotCodec } from '@agentstate/core';
import { STATE_STREAM } from '@agentstate/core';
import { CHUNK_STREAM_PREFIX, chunkStream, patchSnapshots } from '@agentstate/core/backend';
import type { SnapshotErasure, SnapshotPatch } from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import type { SqliteLog } from './log.js';

const SQL = {
  headsFrom: 'SELECT seq, data FROM snapshots WHERE stream = ? AND seq >= ? ORDER BY seq',
  headsBefore: 'SELECT seq, data FROM snapshots WHERE stream = ? AND seq < ? ORDER BY seq',
  row: 'SELECT data FROM snapshots WHERE stream = ? AND seq = ?',
  save: 'INSERT INTO snapshots (stream, seq, data) VALUES (?, ?, ?) ON CONFLICT (stream, seq) DO UPDATE SET data = excluded.data',
  drop: 'DELETE FROM snapshots WHERE stream = ? AND seq = ?',
} as const;

/** Deletes the rows of snapshots of earlier formats (core's `ofOtherFormat`): what a save and a purge drop in their transaction. */
export const DROP_OTHER_FORMATS = `DELETE FROM snapshots WHERE (stream = '${STATE_STREAM}' AND data GLOB '*"format":"agentstate.snapshot/[1-4]"*')
  OR (stream GLOB '${STATE_STREAM}#*' AND stream NOT GLOB '${CHUNK_STREAM_PREFIX}*')`;

/** What the patch needs besides the connection. */
export interface SnapshotPatchContext {
  log: SqliteLog;
  /** The provider's codec, to open and seal heads (plain when none was given). */
  codec: SnapshotCodec;
}

/**
 * Patches (or drops) every stored snapshot at or after `firstSeq`, the first
 * event the purge rewrote, erasing `purged` from it, and drops every one of
 * an earlier format; `originals` are the rewritten events as they were.
 */
export function patchStoredSnapshots(
  conn: Connection,
  ctx: SnapshotPatchContext,
  purged: SnapshotErasure,
  firstSeq: number,
  originals: readonly LogEvent[],
): SnapshotPatch {
  const before = new Map(originals.map((event) => [event.seq, event]));
  const eventNow = (seq: number): LogEvent | undefined => (seq === 0 ? undefined : ctx.log.readNow(STATE_STREAM, seq - 1, 1).find((e) => e.seq === seq));
  conn.prepare(DROP_OTHER_FORMATS).run();
  const row = conn.prepare(SQL.row);
  let identity: string;
  try {
    identity = ctx.log.identityNow();
  } catch {
    // No identity: no snapshot can be trusted, so every one at or after the rewrite is dropped.
    identity = '';
  }
  const patch = patchSnapshots({
    heads: conn.prepare(SQL.headsFrom).all(STATE_STREAM, firstSeq) as { seq: number; data: string }[],
    chunk: (sha256) => (row.get(chunkStream(sha256), 0) as { data: string } | undefined)?.data,
    purged,
    codec: ctx.codec,
    identity,
    before: (seq) => before.get(seq) ?? eventNow(seq),
    after: eventNow,
    olderHeads: () => conn.prepare(SQL.headsBefore).all(STATE_STREAM, firstSeq) as { seq: number; data: string }[],
  });
  const save = conn.prepare(SQL.save);
  for (const stored of patch.save) save.run(stored.stream, stored.seq, stored.data);
  const drop = conn.prepare(SQL.drop);
  for (const key of patch.drop) drop.run(key.stream, key.seq);
  return patch;
}
