/**
 * The read-model queries of the SQLite backend: point look-ups (tombstones
 * included) and ordered queries (live records only), with the same orders
 * and tie-breaks as the in-memory reference.
 */
import type { MemoryItem, OperationEntry, Scope, Session, Skill, Turn, UpcasterRegistry } from '@agentstate/core';
import type { LexicalQuery, MemoryFilter, StateQueries, TurnQuery } from '@agentstate/core/backend';
import {
  compareStrings,
  descendantKeyRange,
  matchesNoScope,
  purgeableRows,
  memoryRowFilter,
  recordFilter,
  scopeCondition,
  scopeKey,
  skillSearchText,
  rowCodec,
  turnWhere,
} from '@agentstate/core/backend';
import { recordEvents, recordSeqs } from './history.js';
import { purgeSql } from './purge.js';
import type { Connection } from './connection.js';
import { mappingErrors } from './errors.js';
import { checkpointQueries } from './checkpoint-rows.js';
import { ftsQuery } from './fts.js';
import type { CandidateSql } from './candidates.js';
import { rankedCandidates, scoredMatches } from './candidates.js';
import { liveRowsUnder, sqliteSql } from './scope-sql.js';

/**
 * By default, relevance order ranks (FTS5 bm25) at most this many of the
 * most recently written matches: exact below it, bounded in time above it.
 */
export const DEFAULT_RELEVANCE_WINDOW = 5_000;

/** Options of {@link sqliteQueries}. */
export interface QueryOptions {
  /** Matches ranked by relevance order at most (the most recently written); 0: all. */
  relevanceWindow?: number;
  /** Upcasters of older payloads: a purge by text decodes earlier events. */
  upcasters?: UpcasterRegistry | undefined;
}

/**
 * The distinct live scope keys of one table that are a prefix or under it
 * (parameters: the prefix's key, then its descendant range's `from`, `to`,
 * `to`): a skip scan of the `*_by_scope` index, one look-up per
 * distinct key, so that listing namespaces costs the number of scopes, not
 * the number of records.
 */
function distinctScopeKeys(table: 'sessions' | 'skills' | 'memory'): string {
  const live = `FROM ${table} WHERE deleted = 0`;
  const next = (after: string) => `(SELECT scope_key ${live} AND scope_key ${after} AND scope_key < ? ORDER BY scope_key LIMIT 1)`;
  return `SELECT key FROM (SELECT scope_key AS key ${live} AND scope_key = ? LIMIT 1)
    UNION SELECT key FROM (
      WITH RECURSIVE keys(key) AS (SELECT ${next('>= ?')} UNION ALL SELECT ${next('> keys.key')} FROM keys WHERE keys.key IS NOT NULL)
      SELECT key FROM keys WHERE key IS NOT NULL)`;
}

/** The distinct live scope keys of every table under a prefix (see {@link distinctScopeKeys}). */
const NAMESPACES_SQL = (['sessions', 'skills', 'memory'] as const).map(distinctScopeKeys).join(' UNION ');

/** How a lexical search reads the tables. */
type Plan =
  /** No text: the live index, newest first (or by slug). */
  | 'index'
  /** Text, newest first, rows in recall order: read the full-text index backwards, stop at the limit. */
  | 'backwards'
  /** Text, any other order: every match, sorted. */
  | 'sorted'
  /** Text, relevance: bm25 over the most recent matches (see {@link DEFAULT_RELEVANCE_WINDOW}). */
  | 'ranked';

/** A row of a ranked table: its row number, tombstone flag and the columns an order reads. */
type RankedRow = { n: number; deleted: number; created_at?: string; slug?: string; id: string };

/** Newest first (memory, turns): `created_at`, then `id`, both descending in byte order, as SQLite compares text. */
const NEWEST_ORDER = {
  sql: 'r.created_at DESC, r.id DESC',
  keyset: '(r.created_at, r.id) < (?, ?)',
  compare: (a: RankedRow, b: RankedRow) => compareStrings(b.created_at!, a.created_at!) || compareStrings(b.id, a.id),
};

/** By slug (skills): `slug`, then `id`, ascending in byte order. */
const SLUG_ORDER = {
  sql: 'r.slug, r.id',
  keyset: '(r.slug, r.id) > (?, ?)',
  compare: (a: RankedRow, b: RankedRow) => compareStrings(a.slug!, b.slug!) || compareStrings(a.id, b.id),
};

/** A search's conditions on a record's row (aliased `r`) other than its expiry, and whether the rowids they allow are an index's list. */
interface RowFilter {
  sql: string;
  params: unknown[];
  /** None, or led by exact scopes: the scope index lists the rows. */
  listed: boolean;
}

/** The {@link RowFilter} of a search of `skills` or `memory`: scope, kind, metadata. */
function recordRows(query: LexicalQuery & MemoryFilter): RowFilter {
  const { sql, params } = sqliteSql((d, p) => recordFilter(d, p, { ...query, now: undefined }, 'r'));
  return { sql, params, listed: sql === '' || (query.scopes !== undefined && query.descendantsOf === undefined) };
}

/** Builds a lexical search of `table`: its candidate SQL and parameters, and whether rows carry a bm25 rank. */
function lexicalSql(
  table: 'skills' | 'memory' | 'turns',
  query: Pick<LexicalQuery & MemoryFilter, 'tokens' | 'match' | 'after' | 'now'>,
  rows: RowFilter,
  order: { sql: string; keyset: string; compare: (a: RankedRow, b: RankedRow) => number },
  plan: Plan,
  relevanceWindow: number,
): CandidateSql & { ranked: boolean } {
  const fts = `${table}_fts`;
  const match = plan === 'index' ? [] : [ftsQuery(query.tokens, query.match ?? 'all')];
  const { sql: rowWhere, params: rowParams } = rows;
  const expiry = sqliteSql((d, p) => memoryRowFilter(d, p, { now: query.now }, 'r'));
  let where = `r.deleted = 0${plan === 'index' ? '' : ` AND ${fts} MATCH ?`}${rowWhere}${expiry.sql}`;
  const params = [...match, ...rowParams, ...expiry.params];
  // A keyset on the order's columns (a row-value range the live indexes serve); relevance pages are cut after ranking.
  if (query.after !== undefined && plan !== 'ranked') {
    where += ` AND ${order.keyset}`;
    params.push(query.after.sort, query.after.id);
  }
  const matches = `${fts} JOIN ${table} r ON r.n = ${fts}.rowid WHERE ${where}`;
  switch (plan) {
    case 'index':
      return { sql: `SELECT r.* FROM ${table} r WHERE ${where} ORDER BY ${order.sql} LIMIT ? OFFSET ?`, params, ranked: false };
    case 'backwards':
      return { sql: `SELECT r.* FROM ${matches} ORDER BY ${fts}.rowid DESC LIMIT ? OFFSET ?`, params, ranked: false };
    case 'sorted':
      return { sql: `SELECT r.* FROM ${matches} ORDER BY ${order.sql} LIMIT ? OFFSET ?`, params, ranked: false };
    case 'ranked': {
      const bound = relevanceWindow > 0 ? `ORDER BY ${fts}.rowid DESC LIMIT ${Math.trunc(relevanceWindow)}` : '';
      // Full-text rows exist for live records only (rowid = the record's n): the window reads
      // the index alone, and expired items, found through their partial index, are left out by
      // rowid rather than by reading every match's row. Row conditions under exact scopes are
      // the rowids the scope index lists (`+rowid`: a list to test, never one MATCH per rowid);
      // other row conditions (every scope's kinds, metadata, a subtree) are checked on each
      // match's row, which stops at the window rather than reading the whole table.
      const expired =
        query.now === undefined ? '' : ` AND rowid NOT IN (SELECT n FROM ${table} WHERE deleted = 0 AND expires_at IS NOT NULL AND expires_at <= ?)`;
      const listed = rowWhere === '' ? '' : ` AND +rowid IN (SELECT r.n FROM ${table} r WHERE r.deleted = 0${rowWhere})`;
      const window = rows.listed
        ? {
            sql: `SELECT rowid AS n, bm25(${fts}) AS rank FROM ${fts} WHERE ${fts} MATCH ?${listed}${expired} ${bound}`,
            params: [...match, ...rowParams, ...expiry.params],
          }
        : { sql: `SELECT r.n AS n, bm25(${fts}) AS rank FROM ${matches} ${bound}`, params };
      return { ...rankedCandidates(window.sql, table, 'r', order.sql, order.compare), params: window.params, ranked: true };
    }
  }
}

/** A cached statement of a session's turns, in the driver's raw mode: rows of {@link rowCodec.TRANSCRIPT_COLUMNS} as arrays. */
function transcript(conn: Connection, sql: string): { all(...params: unknown[]): rowCodec.TranscriptRow[] } {
  return conn.prepare(sql).raw(true) as unknown as { all(...params: unknown[]): rowCodec.TranscriptRow[] };
}

/** The point look-ups of the tables, synchronous (tombstones included): what the stamper and a fold's rules ask. */
export type TableLookups = ReturnType<typeof tableLookups>;

/** The {@link TableLookups} of a connection's projection tables. */
export function tableLookups(conn: Connection) {
  const one = <R, T>(sql: string, map: (row: R) => T, ...params: unknown[]): T | undefined => {
    const row = conn.prepare(sql).get(...params) as R | undefined;
    return row === undefined ? undefined : map(row);
  };
  return mappingErrors(conn.path, {
    session: (id: string) => one<rowCodec.SessionRow, Session>('SELECT * FROM sessions WHERE id = ?', rowCodec.sessionFromRow, id),
    turnExists: (id: string) => conn.prepare('SELECT 1 FROM turns WHERE id = ?').get(id) !== undefined,
    turn: (id: string) => one<rowCodec.TurnRow, Turn>('SELECT * FROM turns WHERE id = ?', rowCodec.turnFromRow, id),
    lastTurnSeq: (sessionId: string) =>
      (conn.prepare('SELECT max(seq) AS seq FROM turns WHERE session_id = ?').get(sessionId) as { seq: number | null }).seq ?? 0,
    lastTurns: (sessionId: string, n: number) =>
      rowCodec.transcriptFromRows(
        sessionId,
        transcript(conn, `SELECT ${rowCodec.TRANSCRIPT_COLUMNS} FROM turns WHERE session_id = ? AND deleted = 0 ORDER BY seq DESC LIMIT ?`)
          .all(sessionId, n > 0 ? n : -1)
          .reverse(),
      ),
    turnsFrom: (sessionId: string, fromSeq: number) =>
      (conn.prepare('SELECT * FROM turns WHERE session_id = ? AND seq >= ? ORDER BY seq').all(sessionId, fromSeq) as rowCodec.TurnRow[]).map(
        rowCodec.turnFromRow,
      ),
    skill: (id: string) => one<rowCodec.SkillRow, Skill>('SELECT * FROM skills WHERE id = ?', rowCodec.skillFromRow, id),
    skillAt: (scope: Scope, slug: string) =>
      one<rowCodec.SkillRow, Skill>('SELECT * FROM skills WHERE scope_key = ? AND slug = ?', rowCodec.skillFromRow, scopeKey(scope), slug),
    memoryItem: (id: string) => one<rowCodec.MemoryRow, MemoryItem>('SELECT * FROM memory WHERE id = ?', rowCodec.memoryFromRow, id),
    operation: (id: string) => one<rowCodec.OperationRow, OperationEntry>('SELECT * FROM operations WHERE id = ?', rowCodec.operationFromRow, id),
    // The fold's rules ask only whether a key or slug is taken, and by which id: no row to decode.
    memoryIdWithKey: (scope: Scope, key: string) =>
      (conn.prepare('SELECT id FROM memory WHERE scope_key = ? AND key = ? AND deleted = 0').get(scopeKey(scope), key) as { id: string } | undefined)?.id,
    skillIdAt: (scope: Scope, slug: string) =>
      (conn.prepare('SELECT id FROM skills WHERE scope_key = ? AND slug = ?').get(scopeKey(scope), slug) as { id: string } | undefined)?.id,
    memoryWithKey: (scope: Scope, key: string) =>
      one<rowCodec.MemoryRow, MemoryItem>('SELECT * FROM memory WHERE scope_key = ? AND key = ? AND deleted = 0', rowCodec.memoryFromRow, scopeKey(scope), key),
    checkpoints: checkpointQueries(conn),
  });
}

/** The records of `ids` that `sql` (taking them as one JSON array) reads, by id. */
function byId<R, T extends { id: string }>(conn: Connection, sql: string, ids: readonly string[], map: (row: R) => T): Map<string, T> {
  const records = ids.length === 0 ? [] : (conn.prepare(sql).all(JSON.stringify(ids)) as R[]).map(map);
  return new Map(records.map((record) => [record.id, record]));
}

/** The {@link StateQueries} over a connection's projection tables. */
export function sqliteQueries(conn: Connection, options: QueryOptions = {}): StateQueries {
  const relevanceWindow = options.relevanceWindow ?? DEFAULT_RELEVANCE_WINDOW;
  const memoryInOrder = (): boolean => (conn.prepare('SELECT in_order FROM memory_order WHERE id = 1').get() as { in_order: number }).in_order === 1;

  return mappingErrors(conn.path, {
    ...tableLookups(conn),
    recordSeqs: (id: string) => recordSeqs(conn, id),
    recordEvents: (id: string) => conn.readScattered(() => recordEvents(conn, id)),
    // A received batch asks about its items and skills before it folds: one statement of each kind, not one an event.
    memoryAndSkills: async ({ memory, skill }) => ({
      memory: byId(conn, 'SELECT * FROM memory WHERE id IN (SELECT value FROM json_each(?))', memory, rowCodec.memoryFromRow),
      skill: byId(conn, 'SELECT * FROM skills WHERE id IN (SELECT value FROM json_each(?))', skill, rowCodec.skillFromRow),
    }),
    purgeable: (selector) => purgeableRows(purgeSql(conn), selector, options.upcasters),
    liveSkillsBySlug: (slug: string) =>
      (conn.prepare('SELECT * FROM skills WHERE slug = ? AND deleted = 0 ORDER BY id').all(slug) as rowCodec.SkillRow[]).map(rowCodec.skillFromRow),

    listSessions: ({ limit, offset, after, ...filter }) => {
      if (matchesNoScope(filter)) return [];
      const { descendantsOf } = filter;
      const source =
        descendantsOf === undefined
          ? sqliteSql((d, p) => `(SELECT * FROM sessions WHERE deleted = 0${filter.scopes ? ` AND ${scopeCondition(d, p, filter, 'scope_key')}` : ''})`)
          : liveRowsUnder('sessions', { ...filter, descendantsOf });
      return (
        conn
          .prepare(`SELECT * FROM ${source.sql} WHERE (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ? OFFSET ?`)
          .all(...source.params, after?.sort ?? '', after?.id ?? '', limit > 0 ? limit : -1, Math.max(0, offset)) as rowCodec.SessionRow[]
      ).map(rowCodec.sessionFromRow);
    },

    turns: (sessionId: string, { afterSeq, limit }) =>
      rowCodec.transcriptFromRows(
        sessionId,
        transcript(conn, `SELECT ${rowCodec.TRANSCRIPT_COLUMNS} FROM turns WHERE session_id = ? AND seq > ? AND deleted = 0 ORDER BY seq LIMIT ?`).all(
          sessionId,
          Math.max(0, afterSeq),
          limit > 0 ? limit : -1,
        ),
      ),

    listSkills: (scope: Scope, page) => {
      const filter = page?.includeDescendants ? { scopes: [scope], descendantsOf: scope } : { scopes: [scope] };
      const scoped = sqliteSql((d, p) => scopeCondition(d, p, filter, 'scope_key')!);
      return (
        conn
          .prepare(`SELECT * FROM skills WHERE ${scoped.sql} AND deleted = 0 AND (slug, id) > (?, ?) ORDER BY slug, id LIMIT ?`)
          .all(...scoped.params, page?.after?.sort ?? '', page?.after?.id ?? '', (page?.limit ?? 0) > 0 ? page!.limit : -1) as rowCodec.SkillRow[]
      ).map(rowCodec.skillFromRow);
    },

    liveScopes: (prefix: Scope) =>
      conn.read(() => {
        const { from, to } = descendantKeyRange(prefix);
        const keys = conn
          .prepare(NAMESPACES_SQL)
          .pluck()
          .all(...Array.from({ length: 3 }, () => [scopeKey(prefix), from, to, to]).flat()) as string[];
        return keys.map((key) => JSON.parse(key) as Scope);
      }),

    searchSkills: (query: LexicalQuery) => {
      if (matchesNoScope(query)) return [];
      const plan: Plan = query.tokens.length === 0 ? 'index' : query.order === 'relevance' ? 'ranked' : 'sorted';
      const built = lexicalSql('skills', query, recordRows(query), SLUG_ORDER, plan, relevanceWindow);
      return scoredMatches(conn, built, query, [rowCodec.skillFromRow, (row) => skillSearchText(rowCodec.skillFromRow(row)), (row) => row.slug, 1]);
    },

    expiredMemory: (now: string, limit: number) =>
      (
        conn
          .prepare('SELECT * FROM memory WHERE deleted = 0 AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at, id LIMIT ?')
          .all(now, Math.max(0, Math.trunc(limit))) as rowCodec.MemoryRow[]
      ).map(rowCodec.memoryFromRow),

    searchMemory: (query: LexicalQuery & MemoryFilter) =>
      conn.read(() => {
        if (matchesNoScope(query) || query.kinds?.length === 0) return [];
        const plan: Plan = query.tokens.length === 0 ? 'index' : query.order === 'relevance' ? 'ranked' : memoryInOrder() ? 'backwards' : 'sorted';
        const built = lexicalSql('memory', query, recordRows(query), NEWEST_ORDER, plan, relevanceWindow);
        return scoredMatches(conn, built, query, [rowCodec.memoryFromRow, (row) => row.content, (row) => row.created_at, -1]);
      }),

    turnNeighbours: (sessionId, seq, window) =>
      conn.read(() => {
        const before = conn
          .prepare('SELECT * FROM turns WHERE session_id = ? AND seq < ? AND deleted = 0 ORDER BY seq DESC LIMIT ?')
          .all(sessionId, seq, window.before) as rowCodec.TurnRow[];
        const after = conn
          .prepare('SELECT * FROM turns WHERE session_id = ? AND seq > ? AND deleted = 0 ORDER BY seq LIMIT ?')
          .all(sessionId, seq, window.after) as rowCodec.TurnRow[];
        return { before: before.reverse().map(rowCodec.turnFromRow), after: after.map(rowCodec.turnFromRow) };
      }),

    searchTurns: (query: TurnQuery) =>
      conn.read(() => {
        if (query.sessionIds?.length === 0 || query.roles?.length === 0) return [];
        const plan: Plan = query.tokens.length === 0 ? 'index' : query.order === 'relevance' ? 'ranked' : 'sorted';
        const live = sqliteSql((d, p) => ` AND ${turnWhere(d, p, query, 'r')}`);
        const built = lexicalSql('turns', query, { ...live, listed: false }, NEWEST_ORDER, plan, relevanceWindow);
        return scoredMatches(conn, built, query, [rowCodec.turnFromRow, (row) => row.content, (row) => row.created_at, -1]);
      }),
  });
}
