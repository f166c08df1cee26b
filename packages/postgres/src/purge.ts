/**
 * Purge in PostgreSQL (docs/contract.md §7, "Purge"): which rows a purge
 * selects, and the erasure its `records.purged` event triggers inside the
 * same transaction: earlier events rewritten in place with fresh checksums,
 * embedding-cache entries deleted, and the snapshots that hold the text
 * patched.
 * PostgreSQL keeps dead row versions until `VACUUM` reclaims them, and its
 * WAL and backups hold what they held: running `VACUUM` is the operator's.
 */
import type { PurgedRecords, SnapshotCodec, StateChangeOf, UpcasterRegistry } from '@agentstate/core';
import { type EventTypes, STATE_STREAM } from '@agentstate/core';
import type { EventRow, PurgeSelector } from '@agentstate/core/backend';
import {
  changeRecordIds,
  descendantKeyRange,
  EVENT_ROW_COLUMNS,
  eraseEvents,
  eraseOperationHeads,
  eventFromRow,
  holdersIn,
  scopeKey,
  sortedById,
  storedTextForm,
  rowCodec,
} from '@agentstate/core/backend';
import type { Database, Sql } from './database.js';
import type { PostgresLog } from './log.js';
import { patchStoredSnapshots } from './snapshot-patch.js';

/**
 * The records a purge selects, tombstones included, each list in id order
 * (the in-memory backend's rule). By `matching`, every record that holds
 * the text in any version (a session with its turns): the events that may
 * hold it are found by a scan of the stored payloads, core's `holdersIn`
 * decides, and a turn's content is also matched in its row.
 */
export async function purgeableRows(db: Database, sql: Sql, selector: PurgeSelector): Promise<PurgedRecords> {
  if ('id' in selector) {
    const id: Where = ['id = $1', [selector.id]];
    return selectPurged(db, sql, id, ['session_id = $1 OR id = $1', [selector.id]], id, id);
  }
  if ('namespace' in selector) {
    const { from, to } = descendantKeyRange(selector.namespace);
    const under: Where = ['(scope_key = $1 OR (scope_key >= $2 AND scope_key < $3))', [scopeKey(selector.namespace), from, to]];
    return selectPurged(db, sql, under, [`session_id IN (SELECT id FROM ${db.t('sessions')} WHERE ${under[0]})`, under[1]], under, under);
  }
  const events = await sql.rows<EventRow>(
    `SELECT ${EVENT_ROW_COLUMNS}, checksum FROM ${db.t('events')} WHERE stream = $1 AND strpos(payload, $2) > 0 ORDER BY seq`,
    [STATE_STREAM, storedTextForm(selector.matching)],
  );
  const held = holdersIn(
    events.map((row) => eventFromRow(row)),
    selector.matching,
  );
  // A turn's content may be stored only as its parts, which the scan does not see whole: its row holds it.
  for (const { id } of await sql.rows<{ id: string }>(`SELECT id FROM ${db.t('turns')} WHERE strpos(content, $1) > 0`, [selector.matching])) held.turns.add(id);
  const byIds = (ids: Set<string>): Where => ['id = ANY($1::text[])', [[...ids]]];
  const turns: Where = ['session_id = ANY($1::text[]) OR id = ANY($2::text[])', [[...held.sessions], [...held.turns]]];
  return selectPurged(db, sql, byIds(held.sessions), turns, byIds(held.skills), byIds(held.memory));
}

/** A condition on a table's rows and its parameters. */
type Where = [condition: string, params: unknown[]];

/** The rows of each kind a purge selects, each by its condition, in id order. */
async function selectPurged(db: Database, sql: Sql, sessions: Where, turns: Where, skills: Where, memory: Where): Promise<PurgedRecords> {
  const all = async <R, T>(table: string, [where, params]: Where, map: (row: R) => T): Promise<T[]> =>
    (await sql.rows<R>(`SELECT * FROM ${db.t(table)} WHERE ${where}`, params)).map(map);
  return sortedById({
    sessions: await all('sessions', sessions, rowCodec.sessionFromRow),
    turns: await all('turns', turns, rowCodec.turnFromRow),
    skills: await all('skills', skills, rowCodec.skillFromRow),
    memory: await all('memory', memory, rowCodec.memoryFromRow),
  });
}

/**
 * The erasure of a committed `records.purged` event at `purgeSeq`, inside
 * its transaction: rewrites every earlier event that carried the purged
 * records, deletes their cached embeddings, and patches the snapshots at or
 * after the first such event (`snapshot-patch.ts`).
 */
export async function eraseHistory(
  db: Database,
  sql: Sql,
  change: StateChangeOf<typeof EventTypes.RecordsPurged>,
  purgeSeq: number,
  snapshots: { log: PostgresLog; codec: SnapshotCodec },
  upcasters?: UpcasterRegistry,
): Promise<void> {
  const ids = changeRecordIds(change);
  // One statement reads every earlier event the history index names for the purged ids, and one writes
  // them back: a long session's are thousands, and a round trip each was most of its purge.
  const rows = await sql.rows<EventRow>(
    `SELECT ${EVENT_ROW_COLUMNS}, checksum FROM ${db.t('events')} WHERE stream = $1
      AND seq IN (SELECT seq FROM ${db.t('record_events')} WHERE record_id = ANY($2::text[]) AND seq < $3) ORDER BY seq`,
    [STATE_STREAM, ids, purgeSeq],
  );
  const originals = rows.map((row) => eventFromRow(row));
  const erased = eraseEvents(originals, new Set(ids), purgeSeq, upcasters);
  // The first events of the batches whose later events were rewritten, unless a purge dropped their hash already.
  const heads =
    erased.batches.length === 0
      ? []
      : (
          await sql.rows<EventRow>(
            `SELECT ${EVENT_ROW_COLUMNS}, checksum FROM ${db.t('events')} WHERE stream = $1
              AND seq IN (SELECT seq FROM ${db.t('operations')} WHERE id = ANY($2::text[]) AND input_hash <> '') ORDER BY seq`,
            [STATE_STREAM, erased.batches],
          )
        ).map((row) => eventFromRow(row));
  const erasure = eraseOperationHeads(erased, heads, upcasters);
  const rewritten = erasure.events.map((e) => e.row);
  if (rewritten.length > 0)
    await sql.rows(
      `UPDATE ${db.t('events')} e SET schema_version = u.schema_version, payload = u.payload, checksum = u.checksum, validated = true
        FROM unnest($2::bigint[], $3::integer[], $4::text[], $5::text[]) AS u (seq, schema_version, payload, checksum)
        WHERE e.stream = $1 AND e.seq = u.seq`,
      [
        STATE_STREAM,
        rewritten.map((row) => row.seq),
        rewritten.map((row) => row.schema_version),
        rewritten.map((row) => row.payload),
        rewritten.map((row) => row.checksum),
      ],
    );
  // The cache's key leads with the embedder: its few ids are found by a loose index scan first, so the delete
  // is a key look-up per embedder and text. By the hash alone it would read every cached vector.
  await sql.rows(
    `WITH RECURSIVE embedders (id) AS (
        SELECT min(embedder_id) FROM ${db.t('embedding_cache')}
        UNION ALL SELECT (SELECT min(embedder_id) FROM ${db.t('embedding_cache')} WHERE embedder_id > embedders.id) FROM embedders WHERE embedders.id IS NOT NULL)
      DELETE FROM ${db.t('embedding_cache')} c USING embedders e, unnest($1::text[]) AS h (hash)
      WHERE e.id IS NOT NULL AND c.embedder_id = e.id AND c.content_hash = h.hash`,
    [erasure.contentHashes],
  );
  if (erasure.operations.length > 0) await sql.rows(`UPDATE ${db.t('operations')} SET input_hash = '' WHERE id = ANY($1::text[])`, [erasure.operations]);
  if (erasure.firstSeq > 0)
    await patchStoredSnapshots(db, sql, snapshots, { ...change.payload, operations: erasure.operations }, erasure.firstSeq, [...originals, ...heads]);
}
