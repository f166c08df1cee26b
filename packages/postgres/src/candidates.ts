/** Reading lexical candidates page by page and keeping those core's matcher accepts. */
import type { Params } from '@agentstate/core/backend';
import type { Sql } from './database.js';

/** Rows fetched per page when candidates are verified. */
const MIN_PAGE = 64;

/**
 * Runs a candidate query (without its `LIMIT`) page by page, keeping rows
 * that pass the exact check, until `limit` are kept (0: all).
 */
export async function verifiedPages<R>(sql: Sql, query: { text: string; params: Params }, limit: number, keep: (row: R) => boolean): Promise<R[]> {
  const values = query.params.values;
  const n = values.length;
  const text = `${query.text} LIMIT $${n + 1} OFFSET $${n + 2}`;
  if (limit <= 0) return (await sql.rows<R>(text, [...values, null, 0])).filter(keep);
  const page = Math.max(limit, MIN_PAGE);
  const out: R[] = [];
  for (let offset = 0; ; offset += page) {
    const rows = await sql.rows<R>(text, [...values, page, offset]);
    for (const row of rows) {
      if (!keep(row)) continue;
      out.push(row);
      if (out.length >= limit) return out;
    }
    if (rows.length < page) return out;
  }
}
