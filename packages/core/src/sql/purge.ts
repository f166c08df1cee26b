/**
 * Purge in the SQL of both backends (docs/contract.md §7, "Purge"): which
 * rows a purge selects, and the steps of the erasure its `records.purged`
 * event triggers inside its write transaction, in their order. What the
 * backends spell or store differently is theirs ({@link PurgeSql},
 * {@link ErasureSteps}). Synchronous where the backend's statements are:
 * SQLite's write transaction cannot wait for a promise.
 */
import type { PurgedRecords, StateChangeOf, EventTypes } from '../log/events.js';
import { type EventRow, EVENT_COLUMNS } from '../log/event-row.js';
import { changeRecordIds } from '../log/changes.js';
import { eraseEvents, eraseOperationHeads, holdersIn, storedTextForm } from '../log/erasure.js';
import type { LogEvent } from '../log/log.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import { STATE_STREAM } from '../log/events.js';
import { sortedById } from '../provider/purge.js';
import * as rowCodec from '../records/rows.js';
import type { SnapshotErasure } from '../snapshot/patch.js';
import type { Awaitable, PurgeSelector } from '../write/backend.js';
import { drive, type Steps, wait } from '../write/awaitable.js';
import { scopeCondition } from './filters.js';
import { Params, type SqlDialect } from './metadata.js';

/** How a backend runs a purge's statements. */
export interface PurgeSql {
  /** How its SQL spells a filter. */
  readonly dialect: SqlDialect;
  /** Whether its placeholders are numbered (`$1`) or not (`?`). */
  readonly numbered: boolean;
  /** The rows of a statement. */
  rows<R>(sql: string, params: readonly unknown[]): Awaitable<R[]>;
  /** Runs a statement that returns no rows. */
  run(sql: string, params: readonly unknown[]): Awaitable<unknown>;
  /** The condition that the text of `column` contains the text `placeholder` stands for. */
  contains(column: string, placeholder: string): string;
  /** The event of a stored row, its checksum checked. */
  toEvent(row: EventRow): LogEvent;
}

/** A condition on a table's rows, its values added to `p`. */
type Where = (p: Params) => string;

/** The rows of the statement `build` writes. */
function rows<R>(s: PurgeSql, build: Where): Steps<R[]> {
  const p = new Params(s.numbered);
  return wait(s.rows<R>(build(p), p.values));
}

/**
 * The records a purge selects, tombstones included, each list in id order
 * (the in-memory backend's rule). By `matching`, every record that holds
 * the text in any version (a session with its turns): the events that may
 * hold it are found by a scan of the stored payloads, core's `holdersIn`
 * decides, and a turn's content is also matched in its row.
 */
export function purgeableRows(s: PurgeSql, selector: PurgeSelector, upcasters?: UpcasterRegistry): Awaitable<PurgedRecords> {
  return drive(selectPurged(s, selector, upcasters));
}

function* selectPurged(s: PurgeSql, selector: PurgeSelector, upcasters?: UpcasterRegistry): Steps<PurgedRecords> {
  const { dialect: d } = s;
  let where: [sessions: Where, turns: Where, skills: Where, memory: Where];
  if ('id' in selector) {
    const id: Where = (p) => `id = ${p.add(selector.id)}`;
    where = [id, (p) => `session_id = ${p.add(selector.id)} OR id = ${p.add(selector.id)}`, id, id];
  } else if ('namespace' in selector) {
    const under: Where = (p) => scopeCondition(d, p, { scopes: [selector.namespace], descendantsOf: selector.namespace }, 'scope_key')!;
    where = [under, (p) => `session_id IN (SELECT id FROM ${d.table('sessions')} WHERE ${under(p)})`, under, under];
  } else {
    const text = selector.matching;
    const events = yield* rows<EventRow>(
      s,
      (p) => `SELECT ${EVENT_COLUMNS} FROM ${d.table('events')}
        WHERE stream = ${p.add(STATE_STREAM)} AND ${s.contains('payload', p.add(storedTextForm(text)))} ORDER BY seq`,
    );
    const held = holdersIn(events.map(s.toEvent), text, upcasters);
    // A turn's content may be stored only as its parts, which the scan does not see whole: its row holds it.
    for (const { id } of yield* rows<{ id: string }>(s, (p) => `SELECT id FROM ${d.table('turns')} WHERE ${s.contains('content', p.add(text))}`))
      held.turns.add(id);
    const byIds =
      (ids: Set<string>, column = 'id'): Where =>
      (p) =>
        d.inList(p, column, [...ids]);
    where = [byIds(held.sessions), (p) => `${byIds(held.sessions, 'session_id')(p)} OR ${byIds(held.turns)(p)}`, byIds(held.skills), byIds(held.memory)];
  }
  const all = <R>(table: string, condition: Where) => rows<R>(s, (p) => `SELECT * FROM ${d.table(table)} WHERE ${condition(p)}`);
  return sortedById({
    sessions: (yield* all<rowCodec.SessionRow>('sessions', where[0])).map(rowCodec.sessionFromRow),
    turns: (yield* all<rowCodec.TurnRow>('turns', where[1])).map(rowCodec.turnFromRow),
    skills: (yield* all<rowCodec.SkillRow>('skills', where[2])).map(rowCodec.skillFromRow),
    memory: (yield* all<rowCodec.MemoryRow>('memory', where[3])).map(rowCodec.memoryFromRow),
  });
}

/** A purge's change. */
type PurgeChange = StateChangeOf<typeof EventTypes.RecordsPurged>;

/** The steps of an erasure each backend writes in its own SQL, each inside the purge's write transaction. */
export interface ErasureSteps {
  /** The rows of the `state` events before `purgeSeq` that carried any of `ids` (the purge's records), in seq order. */
  carriers(change: PurgeChange, ids: readonly string[], purgeSeq: number): Awaitable<EventRow[]>;
  /** Writes the rewritten rows over the events at their seqs (marked validated). */
  rewrite(rows: readonly EventRow[]): Awaitable<unknown>;
  /** Deletes the cached embeddings of these content hashes, under every embedder. */
  forgetEmbeddings(hashes: readonly string[]): Awaitable<unknown>;
  /** Patches the stored snapshots at or after `firstSeq`; `originals`: the events as they were before the rewrite. */
  patchSnapshots(purged: SnapshotErasure, firstSeq: number, originals: readonly LogEvent[]): Awaitable<unknown>;
}

/**
 * The erasure of a committed `records.purged` event at `purgeSeq`, inside
 * its write transaction (after the projection made the records erased
 * tombstones): rewrites every earlier event that carried them with fresh
 * checksums, drops the input hashes of the operations that wrote them,
 * deletes their cached embeddings, and patches the snapshots at or after
 * the first such event.
 */
export function eraseHistory(s: PurgeSql, steps: ErasureSteps, change: PurgeChange, purgeSeq: number, upcasters?: UpcasterRegistry): Awaitable<void> {
  return drive(erase(s, steps, change, purgeSeq, upcasters));
}

function* erase(s: PurgeSql, steps: ErasureSteps, change: PurgeChange, purgeSeq: number, upcasters?: UpcasterRegistry): Steps<void> {
  const { dialect: d } = s;
  const ids = changeRecordIds(change);
  const originals = (yield* wait(steps.carriers(change, ids, purgeSeq))).map(s.toEvent);
  const erased = eraseEvents(originals, new Set(ids), purgeSeq, upcasters);
  // The first events of the batches whose later events were rewritten, unless a purge dropped their hash already.
  const heads =
    erased.batches.length === 0
      ? []
      : (yield* rows<EventRow>(
          s,
          (p) => `SELECT ${EVENT_COLUMNS} FROM ${d.table('events')} WHERE stream = ${p.add(STATE_STREAM)} AND seq IN (
            SELECT seq FROM ${d.table('operations')} WHERE ${d.inList(p, 'id', erased.batches)} AND input_hash <> '') ORDER BY seq`,
        )).map(s.toEvent);
  const erasure = eraseOperationHeads(erased, heads, upcasters);
  if (erasure.events.length > 0) yield steps.rewrite(erasure.events.map((e) => e.row));
  if (erasure.operations.length > 0) {
    const p = new Params(s.numbered);
    yield s.run(`UPDATE ${d.table('operations')} SET input_hash = '' WHERE ${d.inList(p, 'id', erasure.operations)}`, p.values);
  }
  if (erasure.contentHashes.length > 0) yield steps.forgetEmbeddings(erasure.contentHashes);
  if (erasure.firstSeq > 0) yield steps.patchSnapshots({ ...change.payload, operations: erasure.operations }, erasure.firstSeq, [...originals, ...heads]);
}
