/**
 * Version 9: full-text indexes that forget for good. The indexes were
 * `contentless_delete` tables, where a delete only records a tombstone and
 * the row's tokens stay in the segments until a merge drops them, so an
 * erasure had to merge a whole index. They are now plain contentless
 * tables with FTS5's `secure-delete` option on (kept in each table's
 * config): the projection deletes a row with FTS5's 'delete' command and
 * the exact text it indexed, and FTS5 removes every token and prefix entry
 * from the pages in place. The tables are created again and filled from
 * the live projection rows with the text the projection indexes
 * (`foldForIndex`), so they equal a rebuild's.
 */
import { foldForIndex, skillSearchText, rowCodec } from '@agentstate/core/backend';
import type { Connection } from '../connection.js';
import { FTS_TOKENIZER } from './002-projection.js';
import type { Migration } from './migration.js';

/**
 * FTS5 options from version 9: as version 2's, without `contentless_delete`
 * (FTS5 refuses the 'delete' command, and so secure-delete, on such tables).
 * A table also needs `secure-delete` set once after it is created.
 */
export const FTS_SECURE_OPTIONS = `tokenize = "${FTS_TOKENIZER}", prefix = '1 2 3 4', content = ''`;

const TABLES = ['turns_fts', 'skills_fts', 'memory_fts'] as const;

/** Fills the new indexes from the live rows, in rowid order, as a rebuild does. */
function refill(conn: Connection): void {
  const insert = (table: string) => conn.db.prepare(`INSERT INTO ${table} (rowid, text) VALUES (?, ?)`);
  const turns = insert('turns_fts');
  for (const row of conn.db.prepare('SELECT n, content FROM turns WHERE deleted = 0 ORDER BY n').all() as { n: number; content: string }[])
    turns.run(row.n, foldForIndex(row.content));
  const skills = insert('skills_fts');
  for (const row of conn.db.prepare('SELECT * FROM skills WHERE deleted = 0 ORDER BY n').all() as rowCodec.SkillRow[])
    skills.run(row.n, foldForIndex(skillSearchText(rowCodec.skillFromRow(row))));
  const memory = insert('memory_fts');
  for (const row of conn.db.prepare('SELECT n, content FROM memory WHERE deleted = 0 ORDER BY n').all() as { n: number; content: string }[])
    memory.run(row.n, foldForIndex(row.content));
}

export const migration009: Migration = {
  version: 9,
  name: 'fts-secure-delete',
  sql: TABLES.map(
    (table) => `
DROP TABLE ${table};
CREATE VIRTUAL TABLE ${table} USING fts5(text, ${FTS_SECURE_OPTIONS});
INSERT INTO ${table} (${table}, rank) VALUES ('secure-delete', 1);`,
  ).join('\n'),
  after: refill,
};
