/**
 * Purge in PostgreSQL (docs/contract.md §7, "Purge"): which rows a purge
 * selects, and the erasure its `records.purged` event triggers inside the
 * same transaction: earlier events rewritten in place with fresh checksums,
 * embedding-cache entries and the snapshots that hold the text deleted.
 * PostgreSQL keeps dead row versions until `VACUUM` reclaims them, and its
 * WAL and backups hold what they held: running `VACUUM` is the operator's.
 */
import type { MemoryItem, PurgedRecords, Session, Skill, StateChangeOf, Turn, UpcasterRegistry } from '@agentstate/core';
import { decodeStateEvent, type EventTypes, STATE_STREAM } from '@agentstate/core';
import type { PurgeSelector } from '@agentstate/core/backend';
import {
  changeRecordIds,
  contentHash,
  descendantKeyRange,
  eventFromRow,
  eventRow,
  payloadJson,
  redactChange,
  rowChecksum,
  scopeKey,
  storedPayload,
} from '@agentstate/core/backend';
import type { Database, Sql } from './database.js';
import type { PostgresLog } from './log.js';
import type { MemoryRow, SessionRow, SkillRow, TurnRow } from './rows.js';
import { memoryFromRow, sessionFromRow, skillFromRow, turnFromRow } from './rows.js';

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The records a purge selects, tombstones included, each list in id order (the in-memory backend's rule). */
export async function purgeableRows(db: Database, sql: Sql, selector: PurgeSelector): Promise<PurgedRecords> {
  const all = async <R, T>(text: string, map: (row: R) => T, params: unknown[]): Promise<T[]> => (await sql.rows<R>(text, params)).map(map);
  let out: PurgedRecords;
  if ('id' in selector) {
    const id = [selector.id];
    out = {
      sessions: await all<SessionRow, Session>(`SELECT * FROM ${db.t('sessions')} WHERE id = $1`, sessionFromRow, id),
      turns: await all<TurnRow, Turn>(`SELECT * FROM ${db.t('turns')} WHERE session_id = $1 OR id = $1`, turnFromRow, id),
      skills: await all<SkillRow, Skill>(`SELECT * FROM ${db.t('skills')} WHERE id = $1`, skillFromRow, id),
      memory: await all<MemoryRow, MemoryItem>(`SELECT * FROM ${db.t('memory')} WHERE id = $1`, memoryFromRow, id),
    };
  } else if ('namespace' in selector) {
    const { from, to } = descendantKeyRange(selector.namespace);
    const params = [scopeKey(selector.namespace), from, to];
    const under = '(scope_key = $1 OR (scope_key >= $2 AND scope_key < $3))';
    const sessions = await all<SessionRow, Session>(`SELECT * FROM ${db.t('sessions')} WHERE ${under}`, sessionFromRow, params);
    out = {
      sessions,
      turns: await all<TurnRow, Turn>(`SELECT * FROM ${db.t('turns')} WHERE session_id = ANY($1::text[])`, turnFromRow, [sessions.map((s) => s.id)]),
      skills: await all<SkillRow, Skill>(`SELECT * FROM ${db.t('skills')} WHERE ${under}`, skillFromRow, params),
      memory: await all<MemoryRow, MemoryItem>(`SELECT * FROM ${db.t('memory')} WHERE ${under}`, memoryFromRow, params),
    };
  } else {
    const text = [selector.matching];
    out = {
      sessions: [],
      turns: await all<TurnRow, Turn>(`SELECT * FROM ${db.t('turns')} WHERE strpos(content, $1) > 0`, turnFromRow, text),
      skills: [],
      memory: await all<MemoryRow, MemoryItem>(`SELECT * FROM ${db.t('memory')} WHERE strpos(content, $1) > 0`, memoryFromRow, text),
    };
  }
  for (const list of Object.values(out) as { id: string }[][]) list.sort(byId);
  return out;
}

/**
 * The erasure of a committed `records.purged` event at `purgeSeq`, inside
 * its transaction: rewrites every earlier event that carried the purged
 * records, deletes their cached embeddings and every snapshot at or after
 * the first such event.
 */
export async function eraseHistory(
  db: Database,
  sql: Sql,
  log: PostgresLog,
  change: StateChangeOf<typeof EventTypes.RecordsPurged>,
  purgeSeq: number,
  upcasters?: UpcasterRegistry,
): Promise<void> {
  const ids = changeRecordIds(change);
  const seqRows = await sql.rows<{ seq: number }>(
    `SELECT DISTINCT seq FROM ${db.t('record_events')} WHERE record_id = ANY($1::text[]) AND seq < $2 ORDER BY seq`,
    [ids, purgeSeq],
  );
  const idSet = new Set(ids);
  const contents = new Set<string>();
  let first = 0;
  for (const { seq } of seqRows) {
    const [row] = await log.readRows(sql, STATE_STREAM, Number(seq) - 1, 1);
    if (row === undefined) continue;
    const event = eventFromRow(row);
    const redacted = redactChange(decodeStateEvent(event, upcasters ? { upcasters } : {}), idSet, purgeSeq);
    if (!redacted) continue;
    if (first === 0) first = event.seq;
    const rewritten = eventRow({ ...event, schemaVersion: Math.max(event.schemaVersion, 2) }, payloadJson(storedPayload(redacted.change)));
    await sql.rows(`UPDATE ${db.t('events')} SET schema_version = $1, payload = $2, checksum = $3, validated = true WHERE stream = $4 AND seq = $5`, [
      rewritten.schema_version,
      rewritten.payload,
      rowChecksum(rewritten),
      rewritten.stream,
      rewritten.seq,
    ]);
    for (const text of redacted.contents) contents.add(text);
  }
  await sql.rows(`DELETE FROM ${db.t('embedding_cache')} WHERE content_hash = ANY($1::text[])`, [[...contents].map(contentHash)]);
  if (first > 0) await sql.rows(`DELETE FROM ${db.t('snapshots')} WHERE stream = $1 AND seq >= $2`, [STATE_STREAM, first]);
}
