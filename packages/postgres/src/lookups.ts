/**
 * The point look-ups of the projection tables (tombstones included): what
 * the stamper and a fold's rules ask. Run through the `Sql` given, so that
 * inside a write transaction they see what it sees.
 */
import type { MemoryItem, OperationEntry, Session, Skill, Turn } from '@agentstate/core';
import { STATE_STREAM } from '@agentstate/core';
import type { EventRow, StateLookups } from '@agentstate/core/backend';
import { EVENT_COLUMNS, eventFromRow, purgeableRows, scopeKey, rowCodec } from '@agentstate/core/backend';
import type { TableCheckpointQueries } from './checkpoints.js';
import { purgeSql } from './purge.js';
import { checkpointQueries } from './checkpoints.js';
import type { Database, Sql, Statement } from './database.js';
import { writersLock } from './writers-lock.js';

/** The look-ups, and the ones a fold's rules need besides. */
export interface TableLookups extends StateLookups {
  /** The turn with this id (live or tombstone). */
  turn(id: string): Promise<Turn | undefined>;
  /** The live turns of a session with seq `fromSeq` or later, in seq order. */
  turnsFrom(sessionId: string, fromSeq: number): Promise<Turn[]>;
  /**
   * For each `[scope key, name]` of `places`, the id `memoryWithKey` (kind `memory`) or `skillAt` (kind
   * `skill`) answers, in one statement; a place with none is left out. Not locked: for a fold, which holds
   * the writers' lock exclusive.
   */
  placeHolders(kind: 'memory' | 'skill', places: readonly (readonly [string, string])[]): Promise<Map<string, string>>;
  /**
   * The records with these ids of each kind, and the last turn number of each of the sessions `lastTurn` names
   * that has turns, by id, in one round trip; an id held by none is left out. In a write, the memory items and
   * skills are locked as their look-ups one by one lock them.
   */
  byIds(ids: { readonly [K in keyof HeldById]: readonly string[] }): Promise<HeldById>;
  checkpoints: TableCheckpointQueries;
  /**
   * The position a session's look-up for an append (`appends`) took for its event, once, while no statement
   * has run since; else undefined, and the commit takes one.
   */
  takenPosition(): number | undefined;
}

/** What {@link TableLookups.byIds} answers: records and last turn numbers by id. */
export interface HeldById {
  session: Map<string, Session>;
  turn: Map<string, Turn>;
  memory: Map<string, MemoryItem>;
  skill: Map<string, Skill>;
  lastTurn: Map<string, number>;
}

/** `columns` (a list of a row codec's) read from alias `alias`: `r.id, r.title, …`, which, unlike `r.*`, a connection prepares. */
export const onAlias = (alias: string, columns: string): string =>
  columns
    .split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');

/** The table and row reader of each kind {@link TableLookups.byIds} reads. */
const BY_ID = {
  session: ['sessions', rowCodec.sessionFromRow, rowCodec.SESSION_COLUMNS],
  turn: ['turns', rowCodec.turnFromRow, rowCodec.TURN_COLUMNS],
  memory: ['memory', rowCodec.memoryFromRow, rowCodec.MEMORY_COLUMNS],
  skill: ['skills', rowCodec.skillFromRow, rowCodec.SKILL_COLUMNS],
} as const;

/**
 * The look-ups of `db`'s tables through `sql` (the pool, or a transaction).
 * In a write (`locking`), writers run in parallel, so what a decision reads
 * is locked until the write ends (docs/contract.md §7, "Positions"): a
 * session, skill or memory row `FOR UPDATE` (the session's lock holds its
 * turn numbers dense and its transcript in order), a checkpoint thread by
 * an advisory lock of its own, and a purge takes the writers' lock
 * exclusive before it selects. What a decision finds missing is held by a
 * unique index instead. A look-up that waited for a lock is answered by the
 * row as committed then, and the statements after it see what committed
 * before.
 */
export function tableLookups(db: Database, sql: Sql, locking = false): TableLookups {
  const lock = locking ? ' FOR UPDATE' : '';
  // A session's last turn number, read with its row: valid while no statement has run since (`sql.sent`).
  let lastTurn: { sessionId: string; seq: number; at: number } | undefined;
  // The position a session's look-up for an append took, valid as `lastTurn` is.
  let position: { seq: number; at: number } | undefined;
  const one = async <R, T>(text: string, map: (row: R) => T, params: unknown[]): Promise<T | undefined> => {
    const [row] = await sql.rows<R>(text, params);
    return row === undefined ? undefined : map(row);
  };
  const lastTurnSeq = `SELECT max(seq) AS seq FROM ${db.t('turns')} WHERE session_id = $1`;
  const byIds: TableLookups['byIds'] = async (ids) => {
    // Only the kinds asked about: a receive of one memory item reads no sessions.
    const kinds = (['session', 'turn', 'memory', 'skill'] as const).filter((kind) => ids[kind].length > 0);
    const statements: Statement[] = kinds.map((kind) => [
      `SELECT ${BY_ID[kind][2]} FROM ${db.t(BY_ID[kind][0])} WHERE id = ANY($1::text[])${kind === 'memory' || kind === 'skill' ? lock : ''}`,
      [ids[kind]],
    ]);
    if (ids.lastTurn.length > 0)
      statements.push([`SELECT session_id, max(seq) AS seq FROM ${db.t('turns')} WHERE session_id = ANY($1::text[]) GROUP BY session_id`, [ids.lastTurn]]);
    const answers = statements.length === 0 ? [] : await sql.batch(statements);
    const records = <K extends keyof typeof BY_ID>(kind: K) =>
      new Map(((answers[kinds.indexOf(kind)] ?? []) as Parameters<(typeof BY_ID)[K][1]>[0][]).map((row) => [row.id, BY_ID[kind][1](row as never)]));
    const lastTurn = (ids.lastTurn.length > 0 ? answers[kinds.length] : []) as { session_id: string; seq: number }[];
    return {
      session: records('session'),
      turn: records('turn'),
      memory: records('memory'),
      skill: records('skill'),
      lastTurn: new Map(lastTurn.map((row) => [row.session_id, row.seq])),
    } as HeldById;
  };
  // In a write, a session's row locked, then, by a statement of its own (so it sees what committed while the lock
  // was awaited), its last turn number, read down the index: a turn's append asks for it next. For an append that
  // nothing can refuse once the session is live, the event's position comes too, taken after that lock in the
  // same statement, only when the session is live: the round trip of its own is saved, and a refused append
  // leaves no gap. Plain statements, which the connection prepares once (`Pipeline`).
  const lockSession = `SELECT ${rowCodec.SESSION_COLUMNS} FROM ${db.t('sessions')} WHERE id = $1 FOR UPDATE`;
  const afterLock = `SELECT (SELECT seq FROM ${db.t('turns')} WHERE session_id = $1 ORDER BY seq DESC LIMIT 1) AS last_turn`;
  const afterLockTaking = `${afterLock}, CASE WHEN EXISTS (SELECT 1 FROM ${db.t('sessions')} WHERE id = $1 AND NOT deleted)
    THEN nextval('${db.t('positions')}') END AS position`;
  return {
    session: async (id, appends = false) => {
      if (!locking)
        return one<rowCodec.SessionRow, Session>(`SELECT ${rowCodec.SESSION_COLUMNS} FROM ${db.t('sessions')} WHERE id = $1`, rowCodec.sessionFromRow, [id]);
      const [[session], [row]] = (await sql.batch([
        [lockSession, [id]],
        [appends ? afterLockTaking : afterLock, [id]],
      ])) as [(rowCodec.SessionRow | undefined)[], { last_turn: number | null; position?: number | null }[]];
      lastTurn = { sessionId: id, seq: row?.last_turn ?? 0, at: sql.sent };
      position = row?.position == null ? undefined : { seq: row.position, at: sql.sent };
      return session === undefined ? undefined : rowCodec.sessionFromRow(session);
    },
    takenPosition: () => {
      const seq = position?.at === sql.sent ? position.seq : undefined;
      position = undefined;
      return seq;
    },
    turnExists: async (id) => (await sql.rows(`SELECT 1 FROM ${db.t('turns')} WHERE id = $1`, [id])).length > 0,
    turn: (id) => one<rowCodec.TurnRow, Turn>(`SELECT ${rowCodec.TURN_COLUMNS} FROM ${db.t('turns')} WHERE id = $1`, rowCodec.turnFromRow, [id]),
    recordSeqs: async (id) =>
      (await sql.rows<{ seq: number }>(`SELECT seq FROM ${db.t('record_events')} WHERE record_id = $1 ORDER BY seq`, [id])).map((r) => Number(r.seq)),
    // One range read of the index, each seq's event row beside it (NULL where the log lacks it), checked as the log checks rows.
    recordEvents: async (id) =>
      (
        await sql.rows<EventRow & { indexed_seq: number }>(
          `SELECT r.seq AS indexed_seq, ${onAlias('e', EVENT_COLUMNS)} FROM ${db.t('record_events')} r LEFT JOIN ${db.t('events')} e ON e.stream = $2 AND e.seq = r.seq
            WHERE r.record_id = $1 ORDER BY r.seq`,
          [id, STATE_STREAM],
        )
      ).map((row) => ({ seq: row.indexed_seq, event: row.stream === null ? undefined : eventFromRow(row) })),
    purgeable: async (selector) => {
      // A purge reads and rewrites any event: no writer may be in flight, and none starts until it commits.
      if (locking) await sql.rows(writersLock(db, 'exclusive'));
      return purgeableRows(purgeSql(db, sql), selector);
    },
    // The number read with the session answered as is: no promise, no microtask turn.
    lastTurnSeq: (sessionId) => {
      const found = lastTurn?.sessionId === sessionId && lastTurn.at === sql.sent ? lastTurn.seq : undefined;
      lastTurn = undefined;
      return found ?? sql.rows<{ seq: number | null }>(lastTurnSeq, [sessionId]).then(([row]) => row?.seq ?? 0);
    },
    lastTurns: async (sessionId, n) =>
      (
        await sql.rows<rowCodec.TurnRow>(
          `SELECT ${rowCodec.TURN_COLUMNS} FROM ${db.t('turns')} WHERE session_id = $1 AND NOT deleted ORDER BY seq DESC LIMIT $2`,
          [sessionId, n > 0 ? n : null],
        )
      )
        .map(rowCodec.turnFromRow)
        .reverse(),
    turnsFrom: async (sessionId, fromSeq) =>
      (
        await sql.rows<rowCodec.TurnRow>(`SELECT ${rowCodec.TURN_COLUMNS} FROM ${db.t('turns')} WHERE session_id = $1 AND seq >= $2 ORDER BY seq`, [
          sessionId,
          fromSeq,
        ])
      ).map(rowCodec.turnFromRow),
    skill: (id) => one<rowCodec.SkillRow, Skill>(`SELECT ${rowCodec.SKILL_COLUMNS} FROM ${db.t('skills')} WHERE id = $1${lock}`, rowCodec.skillFromRow, [id]),
    // A tombstone and a live skill may share a place: the live one (else the newest tombstone) is the one there.
    skillAt: (scope, slug) =>
      one<rowCodec.SkillRow, Skill>(
        `SELECT ${rowCodec.SKILL_COLUMNS} FROM ${db.t('skills')} WHERE scope_key = $1 AND slug = $2 ORDER BY deleted, n DESC LIMIT 1${lock}`,
        rowCodec.skillFromRow,
        [scopeKey(scope), slug],
      ),
    liveSkillsBySlug: async (slug) =>
      (
        await sql.rows<rowCodec.SkillRow>(`SELECT ${rowCodec.SKILL_COLUMNS} FROM ${db.t('skills')} WHERE slug = $1 AND NOT deleted ORDER BY id${lock}`, [slug])
      ).map(rowCodec.skillFromRow),
    memoryItem: (id) =>
      one<rowCodec.MemoryRow, MemoryItem>(`SELECT ${rowCodec.MEMORY_COLUMNS} FROM ${db.t('memory')} WHERE id = $1${lock}`, rowCodec.memoryFromRow, [id]),
    operation: (id) =>
      one<rowCodec.OperationRow, OperationEntry>(`SELECT ${rowCodec.OPERATION_COLUMNS} FROM ${db.t('operations')} WHERE id = $1`, rowCodec.operationFromRow, [
        id,
      ]),
    memoryWithKey: (scope, key) =>
      one<rowCodec.MemoryRow, MemoryItem>(
        `SELECT ${rowCodec.MEMORY_COLUMNS} FROM ${db.t('memory')} WHERE scope_key = $1 AND key = $2 AND NOT deleted${lock}`,
        rowCodec.memoryFromRow,
        [scopeKey(scope), key],
      ),
    placeHolders: async (kind, places) => {
      const [table, name, live] = kind === 'memory' ? ['memory', 'key', 'AND NOT deleted'] : ['skills', 'slug', ''];
      const rows = await sql.rows<{ scope_key: string; name: string; id: string }>(
        `SELECT DISTINCT ON (scope_key, ${name}) scope_key, ${name} AS name, id FROM ${db.t(table)}
          WHERE (scope_key, ${name}) IN (SELECT u.scope_key, u.place FROM unnest($1::text[], $2::text[]) AS u (scope_key, place)) ${live} ORDER BY scope_key, ${name}, deleted, n DESC`,
        [places.map(([scope]) => scope), places.map(([, place]) => place)],
      );
      return new Map(rows.map((row) => [`${row.scope_key}\u0000${row.name}`, row.id]));
    },
    byIds,
    memoryAndSkills: async ({ memory, skill }) => {
      const held = await byIds({ session: [], turn: [], memory, skill, lastTurn: [] });
      return { memory: held.memory, skill: held.skill };
    },
    checkpoints: checkpointQueries(db, sql, locking),
  };
}
