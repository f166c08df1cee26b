import type { StateQueries, TurnFilter, TurnQuery } from '@agentstate/core/backend';
import { compareStrings, rowCodec } from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import { ftsQuery } from './fts.js';
import type { CandidateSql } from './candidates.js';
import { rankedCandidates, scoredMatches } from './candidates.js';

/** A turn row as SQLite gives it, with its row number. */
type SqliteTurnRow = rowCodec.TurnRow & { n: number; deleted: number };

const NEWEST_FIRST = 't.created_at DESC, t.id DESC';
/** {@link NEWEST_FIRST} in JavaScript: byte order of the text, as SQLite compares it. */
const newestFirst = (a: rowCodec.TurnRow, b: rowCodec.TurnRow) => compareStrings(b.created_at, a.created_at) || compareStrings(b.id, a.id);

/** The WHERE clause of live turns of live sessions passing `filter`, with its parameters. */
export function turnWhere(filter: TurnFilter): { where: string; params: unknown[] } {
  let where = 't.deleted = 0 AND EXISTS (SELECT 1 FROM sessions s WHERE s.id = t.session_id AND s.deleted = 0)';
  const params: unknown[] = [];
  if (filter.sessionIds !== undefined) {
    where += ' AND t.session_id IN (SELECT value FROM json_each(?))';
    params.push(JSON.stringify(filter.sessionIds));
  }
  if (filter.roles !== undefined) {
    where += ' AND t.role IN (SELECT value FROM json_each(?))';
    params.push(JSON.stringify(filter.roles));
  }
  return { where, params };
}

/** Builds the search: its candidate SQL and parameters, and whether rows carry a bm25 rank. */
function turnSql(query: TurnQuery, relevanceWindow: number): CandidateSql & { ranked: boolean } {
  const filtered = turnWhere(query);
  let { where } = filtered;
  const { params } = filtered;
  // A keyset on the newest-first order; relevance pages are cut after ranking, in the verifier.
  if (query.after !== undefined && !(query.order === 'relevance' && query.tokens.length > 0)) {
    where += ' AND (t.created_at, t.id) < (?, ?)';
    params.push(query.after.sort, query.after.id);
  }
  if (query.tokens.length === 0) return { sql: `SELECT t.* FROM turns t WHERE ${where} ORDER BY ${NEWEST_FIRST} LIMIT ? OFFSET ?`, params, ranked: false };
  const match = ftsQuery(query.tokens, query.match ?? 'all');
  const matches = `turns_fts JOIN turns t ON t.n = turns_fts.rowid WHERE turns_fts MATCH ? AND ${where}`;
  if (query.order !== 'relevance')
    return { sql: `SELECT t.* FROM ${matches} ORDER BY ${NEWEST_FIRST} LIMIT ? OFFSET ?`, params: [match, ...params], ranked: false };
  const bound = relevanceWindow > 0 ? `ORDER BY turns_fts.rowid DESC LIMIT ${Math.trunc(relevanceWindow)}` : '';
  return {
    ...rankedCandidates<SqliteTurnRow>(`SELECT t.n AS n, bm25(turns_fts) AS rank FROM ${matches} ${bound}`, 'turns', 't', NEWEST_FIRST, newestFirst),
    params: [match, ...params],
    ranked: true,
  };
}

/** The transcript-search queries of a connection (their driver errors unmapped: `sqliteQueries` maps them). */
export function turnQueries(conn: Connection, relevanceWindow: number): Pick<StateQueries, 'searchTurns' | 'turnNeighbours'> {
  return {
    searchTurns: (query: TurnQuery) =>
      conn.read(() => {
        if (query.sessionIds?.length === 0 || query.roles?.length === 0) return [];
        const built = turnSql(query, relevanceWindow);
        return scoredMatches(conn, built, query, [rowCodec.turnFromRow, (row) => row.content, (row) => row.created_at, -1]);
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
  };
}
