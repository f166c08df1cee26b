/** Reading full-text candidates page by page and keeping those core's matcher accepts. */
import type { LexicalQuery, Scored } from '@agentstate/core/backend';
import { verifiedPages as corePages, matchesTokensOf, pastKeyset, squashScore } from '@agentstate/core/backend';
import type { Connection } from './connection.js';

/** How many ranks past a page's last a relevance page reads, so that a run of ties there is usually whole. */
const RANK_SLACK = 32;

/** A candidate query: SQL, its parameters, and those of one page (`LIMIT ? OFFSET ?` unless said otherwise). */
export interface CandidateSql {
  sql: string;
  params: unknown[];
  /** The parameters that select one page (`limit` -1: every row); default `[limit, offset]`. */
  page?: (limit: number, offset: number) => unknown[];
  /** The fewest rows a page fetches (default 64): more when the exact check may reject many, fewer when each page costs a whole ranking. */
  minPage?: number;
  /** Reads one page (`limit` -1: every row) in place of running `sql` with the page's parameters. */
  read?: (conn: Connection, params: unknown[], limit: number, offset: number) => unknown[];
}

/**
 * The records a lexical search finds, scored: the candidates of `built` whose
 * searchable `text` core's matcher accepts and, when ranked, that lie past the
 * query's keyset (by a row's `sort` key, then id, in `direction`).
 */
export function scoredMatches<R extends { rank?: number; id: string }, T>(
  conn: Connection,
  built: CandidateSql & { ranked: boolean },
  query: Pick<LexicalQuery, 'tokens' | 'match' | 'after' | 'limit'>,
  [fromRow, text, sort, direction]: [fromRow: (row: R) => T, text: (row: R) => string, sort: (row: R) => string, direction: 1 | -1],
): Scored<T>[] {
  // FTS5's bm25 is lower for better matches: squashed into [0, 1) as core's `bm25Score` is.
  const score = (row: R): number => (built.ranked ? squashScore(-(row.rank ?? 0)) : 1);
  const past = (row: R): boolean => !built.ranked || pastKeyset(query.after, score(row), sort(row), row.id, direction);
  const match = query.match ?? 'all';
  const rows = verifiedPages<R>(conn, built, query.limit, (row) => past(row) && matchesTokensOf(query.tokens, text(row), match));
  return rows.map((row) => ({ record: fromRow(row), score: score(row) }));
}

/**
 * Runs a candidate query page by page, keeping rows that pass the exact
 * check, until `limit` are kept (0: all).
 */
export function verifiedPages<R extends { rank?: number }>(conn: Connection, built: CandidateSql, limit: number, keep: (row: R) => boolean): R[] {
  const pageParams = built.page ?? ((l: number, o: number) => [l, o]);
  const read = (l: number, o: number) => (built.read?.(conn, built.params, l, o) ?? conn.prepare(built.sql).all(...built.params, ...pageParams(l, o))) as R[];
  return corePages(read, limit, keep, built.minPage);
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
 *
 * A page ending `depth` rows in first reads the `n` and rank of the best
 * `depth + slack` ranks in one pass (a sorter that keeps that many; no
 * materialised window), then the rows of those no worse than the
 * `depth`-th, sorted by rank and `tieBreak` (which must order as `order`
 * does). When fewer matched, or the worst rank kept is worse than the
 * `depth`-th, every row tied with the page's last is among them, so the
 * page is exact. Only a run of equal ranks longer than the slack needs the
 * full statement.
 */
export function rankedCandidates<R extends { n: number; deleted: number }>(
  window: string,
  table: string,
  alias: string,
  order: string,
  tieBreak: (a: R, b: R) => number,
): Omit<CandidateSql, 'params'> {
  const full = `WITH w AS MATERIALIZED (${window})
      SELECT ${alias}.*, w.rank FROM w JOIN ${table} ${alias} ON ${alias}.n = w.n
      WHERE ${alias}.deleted = 0 AND w.rank <= (SELECT max(rank) FROM (SELECT rank FROM w ORDER BY rank LIMIT ?))
      ORDER BY w.rank, ${order} LIMIT ? OFFSET ?`;
  const best = `SELECT n, rank FROM (${window}) ORDER BY rank LIMIT ?`;
  const rowsOf = `SELECT * FROM ${table} WHERE n IN (SELECT value FROM json_each(?))`;
  const page = (limit: number, offset: number) => [limit < 0 ? -1 : offset + limit, limit, offset];
  return {
    sql: full,
    page,
    minPage: 1,
    read: (conn, params, limit, offset) => {
      const depth = offset + limit;
      if (limit > 0) {
        const fetched = depth + RANK_SLACK;
        const ranked = conn
          .prepare(best)
          .raw(true)
          .all(...params, fetched) as [n: number, rank: number][];
        const cut = ranked[Math.min(depth, ranked.length) - 1]?.[1];
        if (cut === undefined) return [];
        if (ranked.length < fetched || ranked[fetched - 1]![1] > cut) {
          const rankOf = new Map<number, number>();
          for (const [n, rank] of ranked) if (rank <= cut) rankOf.set(n, rank);
          const rows = conn.prepare(rowsOf).all(JSON.stringify([...rankOf.keys()])) as (R & { rank: number })[];
          const live: (R & { rank: number })[] = [];
          for (const row of rows) {
            if (row.deleted !== 0) continue;
            row.rank = rankOf.get(row.n)!;
            live.push(row);
          }
          return live.sort((a, b) => a.rank - b.rank || tieBreak(a, b)).slice(offset, depth);
        }
      }
      return conn.prepare(full).all(...params, ...page(limit, offset));
    },
  };
}
