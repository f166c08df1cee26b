/**
 * `rebuild()` on PostgreSQL (docs/contract.md §8): empty every projection
 * table and derive it again from the log, starting from the newest snapshot
 * that opens, decodes and agrees with the stream. One transaction holding
 * the writers' lock exclusive, so no writer of any process interleaves and
 * readers see the old tables until it commits; a corrupted event fails it
 * with a `CorruptionError` naming its seq and leaves the schema as it was.
 * Vectors of records that are still live stay (they were derived from the
 * same content); those of records gone or deleted go. The history index is
 * derived again too.
 */
import type { Snapshot } from '@agentstate/core';
import type { RebuildOptions, RebuildResult } from '@agentstate/core/backend';
import { plainCodec, STATE_STREAM } from '@agentstate/core';
import { describeError, eventFromRow, historyRows, InMemoryState, loadSnapshot } from '@agentstate/core/backend';
import type { PostgresBackend } from './backend.js';
import type { Sql } from './database.js';
import { FOLD_BATCH, foldPending } from './fold.js';
import { tableLookups } from './lookups.js';
import type { RecordEntry } from './projection.js';
import { beginWriting } from './writers-lock.js';

/** The projection's tables, children first. */
const TABLES = ['memory_meta', 'memory', 'turns', 'sessions', 'skills', 'operations', 'checkpoint_writes', 'checkpoints', 'record_events'] as const;

/** Events read per batch of the history index's refill. */
const REFILL_BATCH = 5_000;

/** Rebuilds the projection of `backend`'s schema from its log. */
export function rebuildSchema(backend: PostgresBackend, options: RebuildOptions): Promise<RebuildResult> {
  const { db, log, projection } = backend;
  return db.transaction(
    async (sql) => {
      const head = await log.headIn(sql, STATE_STREAM);
      const loaded = options.fromScratch ? { snapshot: undefined, skipped: [] } : await loadSnapshot(log.readerIn(sql), backend.codec ?? plainCodec, head);
      for (const table of TABLES) await sql.rows(`DELETE FROM ${db.t(table)}`);
      const skipped = [...loaded.skipped];
      let snapshot = loaded.snapshot;
      let restored = new InMemoryState();
      if (snapshot) {
        // A snapshot that decodes but whose rows the tables refuse is skipped too.
        await sql.rows('SAVEPOINT restore_snapshot');
        try {
          restored = await restore(backend, sql, snapshot);
          await sql.rows('RELEASE restore_snapshot');
        } catch (error) {
          await sql.rows('ROLLBACK TO restore_snapshot');
          skipped.push({ seq: snapshot.seq, reason: describeError(error), damaged: true });
          snapshot = undefined;
          restored = new InMemoryState();
        }
      }
      await refillHistory(backend, sql, restored.seq);
      const folded = await foldPending(sql, log, projection, tableLookups(db, sql), backend.upcasters, restored.seq);
      await forgetStaleVectors(backend, sql);
      return { seq: folded.seq, snapshotSeq: snapshot?.seq ?? 0, skipped, events: folded.folded };
    },
    beginWriting(db, 'exclusive'),
  );
}

/**
 * Indexes the events up to `seq` in `record_events` by core's `historyRows`
 * (the fold indexes those after it), so one definition decides which
 * records an event carries.
 */
async function refillHistory(backend: PostgresBackend, sql: Sql, seq: number): Promise<void> {
  const { db, log } = backend;
  for (let after = 0; after < seq; ) {
    const rows = await log.readRows(sql, STATE_STREAM, after, REFILL_BATCH, seq);
    if (rows.length === 0) break;
    const index = historyRows(
      rows.map((row) => eventFromRow(row)),
      backend.upcasters,
    );
    await sql.rows(`INSERT INTO ${db.t('record_events')} (record_id, seq) SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT DO NOTHING`, [
      index.map((r) => r.recordId),
      index.map((r) => r.seq),
    ]);
    after = Number(rows[rows.length - 1]!.seq);
  }
}

/** Writes a snapshot's records into the emptied tables; returns it as a state, for its seq and largest HLC. */
async function restore(backend: PostgresBackend, sql: Sql, snapshot: Snapshot): Promise<InMemoryState> {
  const state = new InMemoryState();
  state.restore(snapshot);
  const { projection } = backend;
  const records: RecordEntry[] = [
    ...snapshot.sessions.map((record) => ({ kind: 'session' as const, record })),
    ...snapshot.turns.map((record) => ({ kind: 'turn' as const, record })),
    ...snapshot.skills.map((record) => ({ kind: 'skill' as const, record })),
    ...snapshot.memory.map((record) => ({ kind: 'memory' as const, record })),
  ];
  for (let from = 0; from < records.length; from += FOLD_BATCH) await projection.putMany(sql, records.slice(from, from + FOLD_BATCH));
  await projection.putOperations(sql, snapshot.operations);
  for (const record of snapshot.checkpoints) await projection.put(sql, { kind: 'checkpoint', record });
  for (const record of snapshot.checkpointWrites) await projection.put(sql, { kind: 'checkpointWrite', record });
  return state;
}

/** Deletes the vectors of memory items and turns that are no longer live rows. */
async function forgetStaleVectors(backend: PostgresBackend, sql: Sql): Promise<void> {
  const { db } = backend;
  await sql.rows(
    `DELETE FROM ${db.t('vectors')} v WHERE v.target = 'memory'
       AND NOT EXISTS (SELECT 1 FROM ${db.t('memory')} m WHERE m.id = v.record_id AND NOT m.deleted)`,
  );
  await sql.rows(
    `DELETE FROM ${db.t('vectors')} v WHERE v.target = 'turn'
       AND NOT EXISTS (SELECT 1 FROM ${db.t('turns')} t JOIN ${db.t('sessions')} s ON s.id = t.session_id
                       WHERE t.id = v.record_id AND NOT t.deleted AND NOT s.deleted)`,
  );
}
