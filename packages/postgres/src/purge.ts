/**
 * Purge in PostgreSQL (docs/contract.md §7, "Purge"): the statements of
 * core's purge routines (`sql/purge.ts`), which select the rows and run the
 * erasure a `records.purged` event triggers inside the same transaction: earlier events rewritten in place with fresh checksums,
 * embedding-cache entries deleted, and the snapshots that hold the text
 * patched.
 * PostgreSQL keeps dead row versions until `VACUUM` reclaims them, and its
 * WAL and backups hold what they held: running `VACUUM` is the operator's.
 */
import type { SnapshotCodec, StateChangeOf, UpcasterRegistry } from '@agentstate/core';
import { type EventTypes, STATE_STREAM } from '@agentstate/core';
import type { EventRow, PurgeSql } from '@agentstate/core/backend';
import { EVENT_COLUMNS, eraseHistory as eraseWith, eventFromRow } from '@agentstate/core/backend';
import type { Database, Sql } from './database.js';
import type { PostgresLog } from './log.js';
import { postgresDialect } from './metadata.js';
import { patchStoredSnapshots } from './snapshot-patch.js';

/** How a purge's statements run in the transaction `sql` on the schema of `db`. */
export function purgeSql(db: Database, sql: Sql): PurgeSql {
  return {
    dialect: postgresDialect(db),
    numbered: true,
    rows: (text, params) => sql.rows(text, params),
    run: (text, params) => sql.rows(text, params),
    contains: (column, placeholder) => `strpos(${column}, ${placeholder}) > 0`,
    toEvent: (row) => eventFromRow(row),
  };
}

/** The erasure of a committed `records.purged` event at `purgeSeq`, inside its transaction (core's `eraseHistory`). */
export async function eraseHistory(
  db: Database,
  sql: Sql,
  change: StateChangeOf<typeof EventTypes.RecordsPurged>,
  purgeSeq: number,
  snapshots: { log: PostgresLog; codec: SnapshotCodec },
  upcasters?: UpcasterRegistry,
): Promise<void> {
  await eraseWith(
    purgeSql(db, sql),
    {
      // One statement reads every earlier event the history index names for the purged ids, and one writes
      // them back: a long session's are thousands, and a round trip each was most of its purge.
      carriers: (_, ids, before) =>
        sql.rows<EventRow>(
          `SELECT ${EVENT_COLUMNS} FROM ${db.t('events')} WHERE stream = $1
            AND seq IN (SELECT seq FROM ${db.t('record_events')} WHERE record_id = ANY($2::text[]) AND seq < $3) ORDER BY seq`,
          [STATE_STREAM, ids, before],
        ),
      rewrite: (rows) =>
        sql.rows(
          `UPDATE ${db.t('events')} e SET schema_version = u.schema_version, payload = u.payload, checksum = u.checksum, validated = true
            FROM unnest($2::bigint[], $3::integer[], $4::text[], $5::text[]) AS u (seq, schema_version, payload, checksum)
            WHERE e.stream = $1 AND e.seq = u.seq`,
          [STATE_STREAM, rows.map((row) => row.seq), rows.map((row) => row.schema_version), rows.map((row) => row.payload), rows.map((row) => row.checksum)],
        ),
      // The cache's key leads with the embedder: its few ids are found by a loose index scan first, so the delete
      // is a key look-up per embedder and text. By the hash alone it would read every cached vector.
      forgetEmbeddings: (hashes) =>
        sql.rows(
          `WITH RECURSIVE embedders (id) AS (
              SELECT min(embedder_id) FROM ${db.t('embedding_cache')}
              UNION ALL SELECT (SELECT min(embedder_id) FROM ${db.t('embedding_cache')} WHERE embedder_id > embedders.id) FROM embedders WHERE embedders.id IS NOT NULL)
            DELETE FROM ${db.t('embedding_cache')} c USING embedders e, unnest($1::text[]) AS h (hash)
            WHERE e.id IS NOT NULL AND c.embedder_id = e.id AND c.content_hash = h.hash`,
          [hashes],
        ),
      patchSnapshots: (purged, firstSeq, originals) => patchStoredSnapshots(db, sql, snapshots, purged, firstSeq, originals),
    },
    change,
    purgeSeq,
    upcasters,
  );
}
