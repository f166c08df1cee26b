/** Reading full-text candidates page by page and keeping those core's matcher accepts. */
import type { Connection } from './connection.js';

/** Rows fetched per page when candidates are verified. */
const MIN_PAGE = 64;

/**
 * Runs a candidate query page by page, keeping rows that pass the exact
 * check, until `limit` are kept (0: all).
 */
export function verifiedPages<R extends { rank?: number }>(
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
