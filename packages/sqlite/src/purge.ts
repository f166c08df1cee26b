/**
 * Purge in SQLite (docs/contract.md §7, "Purge"): the statements of core's
 * purge routines (`sql/purge.ts`), which select the rows and run the erasure a
 * `records.purged` event triggers inside the same write transaction: earlier events rewritten in place with fresh
 * checksums (and the input hashes of the operations that wrote them
 * dropped, in the index too), embedding-cache entries and the snapshots
 * that hold the text dropped. The full-text rows went when the projection made the records
 * tombstones: the turn index is a secure-delete table (`schema/derived.ts`), whose tokens
 * are removed from the pages in place; the memory and skill indexes are not (an update would
 * pay for it), so a delete leaves the tokens of every earlier version behind delete markers,
 * and the purge merges the index whole ('optimize'), which writes no deleted entry. With
 * `secure_delete` on, freed space is zeroed; after the commit a `TRUNCATE` checkpoint empties
 * the `-wal` file, so the old pages leave the disk too.
 */
import type { SnapshotCodec, StateChangeOf, UpcasterRegistry } from '@agentstate/core';
import type { EventTypes } from '@agentstate/core';
import type { EventRow, PurgeSql } from '@agentstate/core/backend';
import { EVENT_COLUMNS, eraseHistory as eraseWith } from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import type { HistoryIdColumn } from './history.js';
import { recordSeqsSql } from './history.js';
import type { SqliteLog } from './log.js';
import { toEvent } from './log.js';
import { SQLITE } from './scope-sql.js';
import { patchStoredSnapshots } from './snapshot-patch.js';

/**
 * Which ids the carrier read looks up in each column of the history index: a turn of a purged session is
 * found through its session's rows alone, never by its own id (for a long session, thousands of scattered
 * pages of both id indexes). Every event that carries a turn carries its session too, but a purge, whose
 * post-images hold no text and which an erasure never rewrites (core's `redactChange`): the rows only its
 * id has mark earlier purges. Record ids: every purged id but those turns; turn ids: the other purged
 * turns; session ids: the purged sessions.
 */
const CARRIER_IDS: Readonly<Record<HistoryIdColumn, string>> = { record_id: '@records', id: '@turns', session_id: '@sessions' };

const SQL = {
  // The earlier events that carried any of the purged ids, each once, in seq order: the index's rows and the turns'
  // own columns, found by session for the turns of a purged session and by id for the others (see CARRIER_IDS).
  carriers: `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = 'state' AND seq < @before AND seq IN (
    ${recordSeqsSql((column) => `${column} IN (SELECT value FROM json_each(${CARRIER_IDS[column]}))`)}) ORDER BY seq`,
  // The cached embeddings of the erased texts, under every embedder: the cache's key leads with the embedder,
  // so its few ids are found by a skip scan first. By the hash alone the delete scanned every vector of the cache.
  forgetEmbeddings: `WITH RECURSIVE embedders (id) AS (
      SELECT min(embedder_id) FROM embedding_cache
      UNION ALL SELECT (SELECT min(embedder_id) FROM embedding_cache WHERE embedder_id > embedders.id) FROM embedders WHERE embedders.id IS NOT NULL)
    DELETE FROM embedding_cache WHERE (embedder_id, content_hash) IN (
      SELECT embedders.id, hash.value FROM embedders, json_each(?) AS hash WHERE embedders.id IS NOT NULL)`,
} as const;

/** How a purge's statements run on `conn`, at once. */
export function purgeSql(conn: Connection): PurgeSql {
  return {
    dialect: SQLITE,
    numbered: false,
    rows: <R>(sql: string, params: readonly unknown[]) => conn.prepare(sql).all(...params) as R[],
    run: (sql, params) => conn.prepare(sql).run(...params),
    contains: (column, placeholder) => `instr(${column}, ${placeholder}) > 0`,
    toEvent,
  };
}

/**
 * The erasure of a committed `records.purged` event at `purgeSeq`, inside
 * its write transaction (core's `eraseHistory`, whose every statement runs at once here); then the merge of the full-text index
 * of erased memory items or skills.
 */
export function eraseHistory(
  conn: Connection,
  change: StateChangeOf<typeof EventTypes.RecordsPurged>,
  purgeSeq: number,
  snapshots: { log: SqliteLog; codec: SnapshotCodec },
  upcasters?: UpcasterRegistry,
): void {
  const rewrite = conn.prepare('UPDATE events SET schema_version = ?, payload = ?, checksum = ?, validated = 1 WHERE stream = ? AND seq = ?');
  void eraseWith(
    purgeSql(conn),
    {
      // One statement reads every earlier event the history index names for the purged ids
      // (a long session's are thousands, spread over the log), rather than a look-up and a read per event.
      carriers: (purge, ids, before) => {
        const sessions = new Set(purge.payload.sessions.map((session) => session.id));
        const sessionTurns = new Set(purge.payload.turns.filter((turn) => sessions.has(turn.sessionId)).map((turn) => turn.id));
        const turns = purge.payload.turns.filter((turn) => !sessionTurns.has(turn.id)).map((turn) => turn.id);
        const records = ids.filter((id) => !sessionTurns.has(id));
        return conn
          .prepare(SQL.carriers)
          .all({ records: JSON.stringify(records), turns: JSON.stringify(turns), sessions: JSON.stringify([...sessions]), before }) as EventRow[];
      },
      rewrite: (rows) => {
        for (const row of rows) rewrite.run(row.schema_version, row.payload, row.checksum, row.stream, row.seq);
      },
      forgetEmbeddings: (hashes) => conn.prepare(SQL.forgetEmbeddings).run(JSON.stringify(hashes)),
      patchSnapshots: (purged, firstSeq, originals) => patchStoredSnapshots(conn, snapshots, purged, firstSeq, originals),
    },
    change,
    purgeSeq,
    upcasters,
  );
  for (const [records, table] of [
    [change.payload.memory, 'memory_fts'],
    [change.payload.skills, 'skills_fts'],
  ] as const)
    if (records.length > 0) conn.prepare(`INSERT INTO ${table} (${table}) VALUES ('optimize')`).run();
}
