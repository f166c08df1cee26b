/**
 * The full-text indexes against the projection rows. The FTS5 tables are
 * contentless (they keep no copy of the text), so SQLite's own check can
 * only see that an index is well formed, not that it indexes the right
 * rows. Here the expected index is built in a temporary table with the same
 * tokenizer from the rows as the projection writes them, and the two are
 * compared: rows, every term at every position, and document sizes. (The
 * totals bm25 averages over are not compared: FTS5 does not take deleted
 * rows out of them in a contentless table, so they drift in a healthy
 * file.) Nothing is written to the database file.
 */
import { describeError, listed } from '@agentstate/core/backend';
import type { VerifyProblem } from '@agentstate/core';
import type { Connection } from '../connection.js';
import type { FullTextIndex } from '../fts.js';
import { FULL_TEXT_INDEXES } from '../fts.js';

const TEMP = ['verify_expected_terms', 'verify_actual_terms', 'verify_expected'] as const;

/** Compares every full-text index with the projection rows; inside a read transaction. */
export function checkFullText(conn: Connection): VerifyProblem[] {
  const problems: VerifyProblem[] = [];
  for (const index of FULL_TEXT_INDEXES) {
    try {
      for (const message of compareIndex(conn, index))
        problems.push({ part: 'fts', object: index.table, message: `${index.table}: ${message}`, repair: 'rebuild' });
    } catch (error) {
      problems.push({ part: 'fts', object: index.table, message: `${index.table} cannot be read: ${describeError(error)}`, repair: 'rebuild' });
    } finally {
      for (const name of TEMP) conn.db.exec(`DROP TABLE IF EXISTS temp.${name}`);
    }
  }
  return problems;
}

function compareIndex(conn: Connection, index: FullTextIndex): string[] {
  const { table } = index;
  conn.db.exec(`CREATE VIRTUAL TABLE temp.verify_expected USING fts5(text, ${index.options})`);
  const insert = conn.db.prepare('INSERT INTO temp.verify_expected (rowid, text) VALUES (?, ?)');
  for (const row of index.liveTexts(conn)) insert.run(row.n, row.text);
  conn.db.exec(`CREATE VIRTUAL TABLE temp.verify_actual_terms USING fts5vocab(main, ${table}, instance)`);
  conn.db.exec('CREATE VIRTUAL TABLE temp.verify_expected_terms USING fts5vocab(temp, verify_expected, instance)');
  const out: string[] = [];
  const missing = ids(conn, `SELECT rowid AS n FROM temp.verify_expected EXCEPT SELECT rowid FROM main.${table}`);
  if (missing.length) out.push(`${missing.length} live rows are not indexed (rowid ${listed(missing)})`);
  const extra = ids(conn, `SELECT rowid AS n FROM main.${table} EXCEPT SELECT rowid FROM temp.verify_expected`);
  if (extra.length) out.push(`${extra.length} indexed rows are not live (rowid ${listed(extra)})`);
  const terms = ids(
    conn,
    `SELECT DISTINCT doc AS n FROM (
       SELECT * FROM (SELECT term, doc, offset FROM temp.verify_actual_terms EXCEPT SELECT term, doc, offset FROM temp.verify_expected_terms)
       UNION ALL
       SELECT * FROM (SELECT term, doc, offset FROM temp.verify_expected_terms EXCEPT SELECT term, doc, offset FROM temp.verify_actual_terms))`,
  ).filter((n) => !missing.includes(n) && !extra.includes(n));
  if (terms.length) out.push(`the indexed words of ${terms.length} rows differ from their text (rowid ${listed(terms)})`);
  const sizes = ids(
    conn,
    `SELECT DISTINCT id AS n FROM (
       SELECT * FROM (SELECT id, sz FROM main.${table}_docsize EXCEPT SELECT id, sz FROM temp.verify_expected_docsize)
       UNION ALL
       SELECT * FROM (SELECT id, sz FROM temp.verify_expected_docsize EXCEPT SELECT id, sz FROM main.${table}_docsize))`,
  ).filter((n) => !missing.includes(n) && !extra.includes(n));
  if (sizes.length) out.push(`the stored sizes of ${sizes.length} rows are wrong (rowid ${listed(sizes)})`);
  return out;
}

function ids(conn: Connection, sql: string): number[] {
  return (conn.db.prepare(sql).all() as { n: number | bigint }[]).map((r) => Number(r.n));
}
