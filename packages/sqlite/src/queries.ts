/**
 * The read-model queries of the SQLite backend: point look-ups (tombstones
 * included) and ordered queries (live records only), with the same orders
 * and tie-breaks as the in-memory reference.
 */
import type { MemoryItem, Scope, Session, Skill } from '@agentstate/core';
import type { LexicalQuery, Scored, StateQueries } from '@agentstate/core/backend';
import { pastKeyset, scopeKey, skillSearchText } from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import { mapErrors as mapDriverErrors } from './errors.js';
import { ftsQuery, relevanceScore, verifies } from './fts.js';
import type { MemoryRow, SessionRow, SkillRow, TurnRow } from './rows.js';
import { memoryFromRow, sessionFromRow, skillFromRow, turnFromRow } from './rows.js';

/** Rows fetched per page when candidates are verified. */
const MIN_PAGE = 64;

/**
 * By default, relevance order ranks (FTS5 bm25) at most this many of the
 * most recently written matches: exact below it, bounded in time above it.
 */
export const DEFAULT_RELEVANCE_WINDOW = 5_000;

/** Options of {@link sqliteQueries}. */
export interface QueryOptions {
  /** Matches ranked by relevance order at most (the most recently written); 0: all. */
  relevanceWindow?: number;
}

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

/** Builds a lexical search: SQL (ending in `LIMIT ? OFFSET ?`) and its parameters. */
function lexicalSql(
  table: 'skills' | 'memory',
  query: LexicalQuery & { kinds?: readonly string[] },
  order: { sql: string; keyset: string },
  plan: Plan,
  relevanceWindow: number,
): { sql: string; params: unknown[]; ranked: boolean } {
  const fts = `${table}_fts`;
  const params: unknown[] = [];
  let where = 'r.deleted = 0';
  if (plan !== 'index') {
    where += ` AND ${fts} MATCH ?`;
    params.push(ftsQuery(query.tokens, query.match ?? 'all'));
  }
  if (query.scopes !== undefined) {
    where += ' AND r.scope_key IN (SELECT value FROM json_each(?))';
    params.push(JSON.stringify(query.scopes.map(scopeKey)));
  }
  if (query.kinds !== undefined) {
    where += ' AND r.kind IN (SELECT value FROM json_each(?))';
    params.push(JSON.stringify(query.kinds));
  }
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
      // Full-text rows exist for live records only: without filters the window needs no join.
      const bound = relevanceWindow > 0 ? `ORDER BY ${fts}.rowid DESC LIMIT ${Math.trunc(relevanceWindow)}` : '';
      const window =
        params.length === 1
          ? `SELECT rowid AS n, bm25(${fts}) AS rank FROM ${fts} WHERE ${fts} MATCH ? ${bound}`
          : `SELECT r.n AS n, bm25(${fts}) AS rank FROM ${matches} ${bound}`;
      return {
        sql: `SELECT r.*, w.rank FROM (${window}) w JOIN ${table} r ON r.n = w.n WHERE r.deleted = 0 ORDER BY w.rank, ${order.sql} LIMIT ? OFFSET ?`,
        params,
        ranked: true,
      };
    }
  }
}

/**
 * Runs a candidate query page by page, keeping rows that pass the exact
 * check, until `limit` are kept (0: all).
 */
function verifiedPages<R extends { rank?: number }>(
  conn: Connection,
  built: { sql: string; params: unknown[] },
  limit: number,
  keep: (row: R) => boolean,
): R[] {
  const statement = conn.prepare(built.sql);
  if (limit <= 0) return (statement.all(...built.params, -1, 0) as R[]).filter(keep);
  const page = Math.max(limit, MIN_PAGE);
  const out: R[] = [];
  for (let offset = 0; ; offset += page) {
    const rows = statement.all(...built.params, page, offset) as R[];
    for (const row of rows) {
      if (!keep(row)) continue;
      out.push(row);
      if (out.length >= limit) return out;
    }
    if (rows.length < page) return out;
  }
}

/** The point look-ups of the tables, synchronous (tombstones included): what the stamper and a fold's rules ask. */
export interface TableLookups {
  session(id: string): Session | undefined;
  turnExists(id: string): boolean;
  lastTurnSeq(sessionId: string): number;
  skill(id: string): Skill | undefined;
  skillAt(scope: Scope, slug: string): Skill | undefined;
  memoryItem(id: string): MemoryItem | undefined;
}

/** The {@link TableLookups} of a connection's projection tables. */
export function tableLookups(conn: Connection): TableLookups {
  const mapErrors = <T>(fn: () => T): T => mapDriverErrors(fn, conn.path);
  const one = <R, T>(sql: string, map: (row: R) => T, ...params: unknown[]): T | undefined => {
    const row = conn.prepare(sql).get(...params) as R | undefined;
    return row === undefined ? undefined : map(row);
  };
  return {
    session: (id: string) => mapErrors(() => one<SessionRow, Session>('SELECT * FROM sessions WHERE id = ?', sessionFromRow, id)),
    turnExists: (id: string) => mapErrors(() => conn.prepare('SELECT 1 FROM turns WHERE id = ?').get(id) !== undefined),
    lastTurnSeq: (sessionId: string) =>
      mapErrors(() => (conn.prepare('SELECT max(seq) AS seq FROM turns WHERE session_id = ?').get(sessionId) as { seq: number | null }).seq ?? 0),
    skill: (id: string) => mapErrors(() => one<SkillRow, Skill>('SELECT * FROM skills WHERE id = ?', skillFromRow, id)),
    skillAt: (scope: Scope, slug: string) =>
      mapErrors(() => one<SkillRow, Skill>('SELECT * FROM skills WHERE scope_key = ? AND slug = ?', skillFromRow, scopeKey(scope), slug)),
    memoryItem: (id: string) => mapErrors(() => one<MemoryRow, MemoryItem>('SELECT * FROM memory WHERE id = ?', memoryFromRow, id)),
  };
}

/** The {@link StateQueries} over a connection's projection tables. */
export function sqliteQueries(conn: Connection, options: QueryOptions = {}): StateQueries {
  const relevanceWindow = options.relevanceWindow ?? DEFAULT_RELEVANCE_WINDOW;
  const mapErrors = <T>(fn: () => T): T => mapDriverErrors(fn, conn.path);
  const memoryInOrder = (): boolean => (conn.prepare('SELECT in_order FROM memory_order WHERE id = 1').get() as { in_order: number }).in_order === 1;

  return {
    ...tableLookups(conn),
    liveSkillsBySlug: (slug: string) =>
      mapErrors(() => (conn.prepare('SELECT * FROM skills WHERE slug = ? AND deleted = 0 ORDER BY id').all(slug) as SkillRow[]).map(skillFromRow)),

    listSessions: ({ limit, offset, after }) =>
      mapErrors(() =>
        (
          conn
            .prepare('SELECT * FROM sessions WHERE deleted = 0 AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ? OFFSET ?')
            .all(after?.sort ?? '', after?.id ?? '', limit > 0 ? limit : -1, Math.max(0, offset)) as SessionRow[]
        ).map(sessionFromRow),
      ),

    turns: (sessionId: string, { afterSeq, limit }) =>
      mapErrors(() =>
        (
          conn
            .prepare('SELECT * FROM turns WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?')
            .all(sessionId, Math.max(0, afterSeq), limit > 0 ? limit : -1) as TurnRow[]
        ).map(turnFromRow),
      ),

    listSkills: (scope: Scope, page) =>
      mapErrors(() =>
        (
          conn
            .prepare('SELECT * FROM skills WHERE scope_key = ? AND deleted = 0 AND (slug, id) > (?, ?) ORDER BY slug, id LIMIT ?')
            .all(scopeKey(scope), page?.after?.sort ?? '', page?.after?.id ?? '', (page?.limit ?? 0) > 0 ? page!.limit : -1) as SkillRow[]
        ).map(skillFromRow),
      ),

    searchSkills: (query: LexicalQuery) =>
      mapErrors((): Scored<Skill>[] => {
        if (query.scopes?.length === 0) return [];
        const plan: Plan = query.tokens.length === 0 ? 'index' : query.order === 'relevance' ? 'ranked' : 'sorted';
        const built = lexicalSql('skills', query, { sql: 'r.slug, r.id', keyset: '(r.slug, r.id) > (?, ?)' }, plan, relevanceWindow);
        const match = query.match ?? 'all';
        const past = (row: SkillRow & { rank?: number }): boolean =>
          !built.ranked || pastKeyset(query.after, relevanceScore(row.rank ?? 0), row.slug, row.id, 1);
        const rows = verifiedPages<SkillRow & { rank?: number }>(
          conn,
          built,
          query.limit,
          (row) => past(row) && verifies(query.tokens, skillSearchText(skillFromRow(row)), match),
        );
        return rows.map((row) => ({ record: skillFromRow(row), score: built.ranked ? relevanceScore(row.rank ?? 0) : 1 }));
      }),

    searchMemory: (query: LexicalQuery & { kinds?: readonly string[] }) =>
      mapErrors((): Scored<MemoryItem>[] =>
        conn.read(() => {
          if (query.scopes?.length === 0 || query.kinds?.length === 0) return [];
          const plan: Plan = query.tokens.length === 0 ? 'index' : query.order === 'relevance' ? 'ranked' : memoryInOrder() ? 'backwards' : 'sorted';
          const built = lexicalSql('memory', query, { sql: 'r.created_at DESC, r.id DESC', keyset: '(r.created_at, r.id) < (?, ?)' }, plan, relevanceWindow);
          const match = query.match ?? 'all';
          const past = (row: MemoryRow & { rank?: number }): boolean =>
            !built.ranked || pastKeyset(query.after, relevanceScore(row.rank ?? 0), row.created_at, row.id, -1);
          const rows = verifiedPages<MemoryRow & { rank?: number }>(conn, built, query.limit, (row) => past(row) && verifies(query.tokens, row.content, match));
          return rows.map((row) => ({ record: memoryFromRow(row), score: built.ranked ? relevanceScore(row.rank ?? 0) : 1 }));
        }),
      ),
  };
}
