/**
 * Purge in SQLite (docs/contract.md §7, "Purge"): which rows a purge
 * selects, and the erasure its `records.purged` event triggers inside the
 * same write transaction: earlier events rewritten in place with fresh
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
import type { PurgedRecords, SnapshotCodec, StateChangeOf, UpcasterRegistry } from '@agentstate/core';
import type { EventTypes } from '@agentstate/core';
import type { EventRow, PurgeSelector } from '@agentstate/core/backend';
import {
  changeRecordIds,
  EVENT_COLUMNS,
  descendantKeyRange,
  eraseEvents,
  eraseOperationHeads,
  holdersIn,
  scopeKey,
  sortedById,
  storedTextForm,
  rowCodec,
} from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import type { HistoryIdColumn } from './history.js';
import { recordSeqsSql } from './history.js';
import type { SqliteLog } from './log.js';
import { toEvent } from './log.js';
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
  // The events whose stored payload may hold a text: a superset, which core's `holdersIn` narrows.
  holding: `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = 'state' AND instr(payload, ?) > 0 ORDER BY seq`,
  // The earlier events that carried any of the purged ids, each once, in seq order: the index's rows and the turns'
  // own columns, found by session for the turns of a purged session and by id for the others (see CARRIER_IDS).
  carriers: `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = 'state' AND seq < @before AND seq IN (
    ${recordSeqsSql((column) => `${column} IN (SELECT value FROM json_each(${CARRIER_IDS[column]}))`)}) ORDER BY seq`,
  // The cached embeddings of the erased texts, under every embedder: the cache's key leads with the embedder,
  // so its few ids are found by a skip scan first. By the hash alone the delete scanned every vector of the cache.
  // The first events of the batches whose later events a purge rewrote, unless a purge dropped their hash already.
  operationHeads: `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = 'state' AND seq IN (
    SELECT seq FROM operations WHERE id IN (SELECT value FROM json_each(?)) AND input_hash <> '') ORDER BY seq`,
  dropInputHashes: `UPDATE operations SET input_hash = '' WHERE id IN (SELECT value FROM json_each(?))`,
  forgetEmbeddings: `WITH RECURSIVE embedders (id) AS (
      SELECT min(embedder_id) FROM embedding_cache
      UNION ALL SELECT (SELECT min(embedder_id) FROM embedding_cache WHERE embedder_id > embedders.id) FROM embedders WHERE embedders.id IS NOT NULL)
    DELETE FROM embedding_cache WHERE (embedder_id, content_hash) IN (
      SELECT embedders.id, hash.value FROM embedders, json_each(?) AS hash WHERE embedders.id IS NOT NULL)`,
} as const;

/**
 * The records a purge selects, tombstones included, each list in id order
 * (the in-memory backend's rule). By `matching`, every record that holds
 * the text in any version (a session with its turns): the events that may
 * hold it are found by a scan of the stored payloads, core's `holdersIn`
 * decides, and a turn's content is also matched in its row.
 */
export function purgeableRows(conn: Connection, selector: PurgeSelector, upcasters?: UpcasterRegistry): PurgedRecords {
  if ('id' in selector) {
    const id: Where = ['id = ?', [selector.id]];
    return selectPurged(conn, id, ['session_id = ? OR id = ?', [selector.id, selector.id]], id, id);
  }
  if ('namespace' in selector) {
    const { from, to } = descendantKeyRange(selector.namespace);
    const under: Where = ['(scope_key = ? OR (scope_key >= ? AND scope_key < ?))', [scopeKey(selector.namespace), from, to]];
    return selectPurged(conn, under, [`session_id IN (SELECT id FROM sessions WHERE ${under[0]})`, under[1]], under, under);
  }
  const events = (conn.prepare(SQL.holding).all(storedTextForm(selector.matching)) as EventRow[]).map(toEvent);
  const held = holdersIn(events, selector.matching, upcasters);
  // A turn's content may be stored only as its parts, which the scan does not see whole: its row holds it.
  for (const { id } of conn.prepare('SELECT id FROM turns WHERE instr(content, ?) > 0').all(selector.matching) as { id: string }[]) held.turns.add(id);
  const inList = (column: string) => `${column} IN (SELECT value FROM json_each(?))`;
  const byIds = (ids: Set<string>): Where => [inList('id'), [JSON.stringify([...ids])]];
  const turns: Where = [`${inList('session_id')} OR ${inList('id')}`, [JSON.stringify([...held.sessions]), JSON.stringify([...held.turns])]];
  return selectPurged(conn, byIds(held.sessions), turns, byIds(held.skills), byIds(held.memory));
}

/** A condition on a table's rows and its parameters. */
type Where = [condition: string, params: unknown[]];

/** The rows of each kind a purge selects, each by its condition, in id order. */
function selectPurged(conn: Connection, sessions: Where, turns: Where, skills: Where, memory: Where): PurgedRecords {
  const all = <R, T>(table: string, [where, params]: Where, map: (row: R) => T): T[] =>
    (conn.prepare(`SELECT * FROM ${table} WHERE ${where}`).all(...params) as R[]).map(map);
  return sortedById({
    sessions: all('sessions', sessions, rowCodec.sessionFromRow),
    turns: all('turns', turns, rowCodec.turnFromRow),
    skills: all('skills', skills, rowCodec.skillFromRow),
    memory: all('memory', memory, rowCodec.memoryFromRow),
  });
}

/**
 * The erasure of a committed `records.purged` event at `purgeSeq`, inside
 * its write transaction (after the projection made the records erased
 * tombstones): rewrites every earlier event that carried them, drops their
 * cached embeddings, merges the full-text index of erased memory items or skills, and patches the snapshots at or after the first such
 * event (`snapshot-patch.ts`).
 */
export function eraseHistory(
  conn: Connection,
  change: StateChangeOf<typeof EventTypes.RecordsPurged>,
  purgeSeq: number,
  snapshots: { log: SqliteLog; codec: SnapshotCodec },
  upcasters?: UpcasterRegistry,
): void {
  const ids = changeRecordIds(change);
  // One statement reads every earlier event the history index names for the purged ids
  // (a long session's are thousands, spread over the log), rather than a look-up and a read per event.
  const sessions = new Set(change.payload.sessions.map((session) => session.id));
  const sessionTurns = new Set(change.payload.turns.filter((turn) => sessions.has(turn.sessionId)).map((turn) => turn.id));
  const turns = change.payload.turns.filter((turn) => !sessionTurns.has(turn.id)).map((turn) => turn.id);
  const records = ids.filter((id) => !sessionTurns.has(id));
  const rows = conn
    .prepare(SQL.carriers)
    .all({ records: JSON.stringify(records), turns: JSON.stringify(turns), sessions: JSON.stringify([...sessions]), before: purgeSeq }) as EventRow[];
  const originals = rows.map(toEvent);
  const erased = eraseEvents(originals, new Set(ids), purgeSeq, upcasters);
  const heads = erased.batches.length === 0 ? [] : (conn.prepare(SQL.operationHeads).all(JSON.stringify(erased.batches)) as EventRow[]).map(toEvent);
  const erasure = eraseOperationHeads(erased, heads, upcasters);
  const rewrite = conn.prepare('UPDATE events SET schema_version = ?, payload = ?, checksum = ?, validated = 1 WHERE stream = ? AND seq = ?');
  for (const { row } of erasure.events) rewrite.run(row.schema_version, row.payload, row.checksum, row.stream, row.seq);
  if (erasure.operations.length > 0) conn.prepare(SQL.dropInputHashes).run(JSON.stringify(erasure.operations));
  conn.prepare(SQL.forgetEmbeddings).run(JSON.stringify(erasure.contentHashes));
  for (const [records, table] of [
    [change.payload.memory, 'memory_fts'],
    [change.payload.skills, 'skills_fts'],
  ] as const)
    if (records.length > 0) conn.prepare(`INSERT INTO ${table} (${table}) VALUES ('optimize')`).run();
  if (erasure.firstSeq > 0)
    patchStoredSnapshots(conn, snapshots, { ...change.payload, operations: erasure.operations }, erasure.firstSeq, [...originals, ...heads]);
}
