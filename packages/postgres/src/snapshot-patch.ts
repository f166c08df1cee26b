/**
 * The snapshot part of a purge in PostgreSQL (docs/contract.md §7, "Purge"):
 * core's {@link patchSnapshots} over the rows of the `snapshots` table,
 * inside the purge's transaction. The rows the patch reads (the heads, the
 * index chunks and chunks holding the purged records, the events at the
 * heads' seqs) are fetched first, so the patch runs as in every backend;
 * heads of chunks are patched in place, snapshots of earlier formats dropped
 * with their parts, and chunk rows no head names any more deleted.
 */
import type { LogEvent, SnapshotCodec } from '@agentstate/core';
import { STATE_STREAM } from '@agentstate/core';
import type { EventRow, SnapshotErasure, SnapshotPatch } from '@agentstate/core/backend';
import { CHUNK_STREAM_PREFIX, chunkStream, chunksToPatch, EVENT_COLUMNS, eventFromRow, looseChunkDigests, patchSnapshots } from '@agentstate/core/backend';
import type { Database, Sql } from './database.js';
import type { PostgresLog } from './log.js';

/** What the patch needs besides the transaction. */
export interface SnapshotPatchContext {
  log: PostgresLog;
  /** The provider's codec, to open and seal heads (plain when none was given). */
  codec: SnapshotCodec;
}

/**
 * Deletes the rows of snapshots of earlier formats (core's `ofOtherFormat`)
 * in `sql`'s transaction: what a save and a purge drop.
 */
export async function dropOtherFormats(db: Database, sql: Sql): Promise<void> {
  await sql.rows(
    `DELETE FROM ${db.t('snapshots')} WHERE (stream = $1 AND convert_from(data, 'UTF8') ~ '"format":"agentstate[.]snapshot/[1-4]"')
      OR (starts_with(stream, $1 || '#') AND NOT starts_with(stream, $2))`,
    [STATE_STREAM, CHUNK_STREAM_PREFIX],
  );
}

/**
 * Patches (or drops) every stored snapshot at or after `firstSeq`, the first
 * event the purge rewrote, erasing `purged` from it, and drops every one of
 * an earlier format; `originals` are the rewritten events as they were.
 */
export async function patchStoredSnapshots(
  db: Database,
  sql: Sql,
  ctx: SnapshotPatchContext,
  purged: SnapshotErasure,
  firstSeq: number,
  originals: readonly LogEvent[],
): Promise<SnapshotPatch> {
  await dropOtherFormats(db, sql);
  const snapshots = db.t('snapshots');
  // Snapshot text is stored as UTF-8 bytes (see `schema-script.ts`).
  const text = (rows: { seq: number; data: Buffer }[]) => rows.map((row) => ({ seq: row.seq, data: row.data.toString('utf8') }));
  const heads = text(
    await sql.rows<{ seq: number; data: Buffer }>(`SELECT seq, data FROM ${snapshots} WHERE stream = $1 AND seq >= $2 ORDER BY seq`, [STATE_STREAM, firstSeq]),
  );
  const chunks = new Map<string, string>();
  const fetch = async (digests: readonly string[]): Promise<void> => {
    const streams = digests.map(chunkStream).filter((stream) => !chunks.has(stream));
    if (streams.length === 0) return;
    const rows = await sql.rows<{ stream: string; data: Buffer }>(`SELECT stream, data FROM ${snapshots} WHERE stream = ANY($1::text[]) AND seq = 0`, [
      streams,
    ]);
    for (const row of rows) chunks.set(row.stream, row.data.toString('utf8'));
  };
  const known = (sha256: string) => chunks.get(chunkStream(sha256));
  // The index chunks first, then the chunks they lead to.
  await fetch(chunksToPatch(heads, purged));
  await fetch(chunksToPatch(heads, purged, known));
  const now = new Map(
    (
      await sql.rows<EventRow>(`SELECT ${EVENT_COLUMNS} FROM ${db.t('events')} WHERE stream = $1 AND seq = ANY($2::bigint[])`, [
        STATE_STREAM,
        heads.map((head) => head.seq),
      ])
    ).map((row) => {
      const event = eventFromRow(row);
      return [event.seq, event];
    }),
  );
  const before = new Map(originals.map((event) => [event.seq, event]));
  // No identity: no snapshot can be trusted, so every one at or after the rewrite is dropped.
  const identity = await ctx.log.identityIn(sql).catch(() => '');
  const patch = (older: readonly { seq: number; data: string }[] | undefined) => {
    let needsOlder = false;
    const result = patchSnapshots({
      heads,
      chunk: known,
      purged,
      codec: ctx.codec,
      identity,
      before: (seq) => before.get(seq) ?? now.get(seq),
      after: (seq) => now.get(seq),
      olderHeads: () => {
        needsOlder = older === undefined;
        return older ?? [];
      },
    });
    return { result, needsOlder };
  };
  let { result, needsOlder } = patch(undefined);
  // Only a dropped head's rows may be shared with the heads before the rewrite: they, and every head's
  // index chunks (which name the chunks that may be shared), are read only then.
  if (needsOlder) {
    const older = text(await sql.rows(`SELECT seq, data FROM ${snapshots} WHERE stream = $1 AND seq < $2`, [STATE_STREAM, firstSeq]));
    await fetch([...heads, ...older].flatMap((head) => looseChunkDigests(head.data)));
    ({ result } = patch(older));
  }
  for (const stored of result.save)
    await sql.rows(`INSERT INTO ${snapshots} (stream, seq, data) VALUES ($1, $2, $3) ON CONFLICT (stream, seq) DO UPDATE SET data = excluded.data`, [
      stored.stream,
      stored.seq,
      Buffer.from(stored.data, 'utf8'),
    ]);
  if (result.drop.length > 0)
    await sql.rows(`DELETE FROM ${snapshots} s USING unnest($1::text[], $2::bigint[]) AS d (stream, seq) WHERE s.stream = d.stream AND s.seq = d.seq`, [
      result.drop.map((key) => key.stream),
      result.drop.map((key) => key.seq),
    ]);
  return result;
}
