/** Reading full-text candidates page by page and keeping those core's matcher accepts. */
import type { Connection } from './connection.js';

/** Rows fetched per page when candidates are verified, unless the query says otherwise. */
const MIN_PAGE = 64;

/** A candidate query: SQL, its parameters, and those of one page (`LIMIT ? OFFSET ?` unless said otherwise). */
export interface CandidateSql {
  sql: string;
  params: unknown[];
  /** The parameters that select one page (`limit` -1: every row); default `[limit, offset]`. */
  page?: (limit: number, offset: number) => unknown[];
  /** The fewest rows a page fetches (default 64): more when the exact check may reject many, fewer when each page costs a whole ranking. */
  minPage?: number;
}

/**
 * Runs a candidate query page by page, keeping rows that pass the exact
 * check, until `limit` are kept (0: all).
 */
export function verifiedPages<R extends { rank?: number }>(conn: Connection, built: CandidateSql, limit: number, keep: (row: R) => boolean): R[] {
  const statement = conn.prepare(built.sql);
  const pageParams = built.page ?? ((l: number, o: number) => [l, o]);
  if (limit <= 0) return (statement.all(...built.params, ...pageParams(-1, 0)) as R[]).filter(keep);
  const page = Math.max(limit, built.minPage ?? MIN_PAGE);
  const out: R[] = [];
  for (let offset = 0; ; offset += page) {
    const rows = statement.all(...built.params, ...pageParams(page, offset)) as R[];
    for (const row of rows) {
      if (!keep(row)) continue;
      out.push(row);
      if (out.length >= limit) return out;
    }
    if (rows.length < page) return out;
  }
}

/**
 * A page of candidates by relevance: `window` yields the `n` and bm25
 * `rank` of the matches to rank (a bounded set); only those ranked no
 * worse than the last row of the page are joined to their rows in `table`
 * (aliased `alias`), then sorted by rank and `order` (the tie-break). So
 * the full rows of a thousand matches are never read or sorted for a page
 * of twenty, and rows tied with the page's last one still compete on
 * `order`, as they do when every match is sorted. Each page ranks the
 * window again, and the exact check rarely rejects a candidate, so a page
 * is just the rows asked for.
 */
export function rankedCandidates(window: string, table: string, alias: string, order: string): Omit<CandidateSql, 'params'> {
  return {
    sql: `WITH w AS MATERIALIZED (${window})
      SELECT ${alias}.*, w.rank FROM w JOIN ${table} ${alias} ON ${alias}.n = w.n
      WHERE ${alias}.deleted = 0 AND w.rank <= (SELECT max(rank) FROM (SELECT rank FROM w ORDER BY rank LIMIT ?))
      ORDER BY w.rank, ${order} LIMIT ? OFFSET ?`,
    page: (limit, offset) => [limit < 0 ? -1 : offset + limit, limit, offset],
    minPage: 1,
  };
}
