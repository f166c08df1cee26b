/**
 * Version 11: leaner turns, the most frequent record.
 *
 * The history index no longer gets rows for a `session.turn_appended`
 * event written by a live commit: the turn's row records the seq of the
 * event that appended it (`appended_seq`), and the history of the turn and
 * of its session reads it from there (`history.ts`). The two index rows cost
 * about 90 bytes and a B-tree's pages per append; the column costs a few
 * bytes. Rows written before (and by a fold, which keeps writing index rows)
 * stay valid: a record's history is the union of both. Adding the column
 * rewrites nothing, so a large file migrates in the time of its index.
 *
 * The newest-first index of live turns holds `created_at` alone (it held
 * `id` too, 36 bytes a turn): turns created in the same millisecond (a
 * batch's) are put in `id` order after the index read, by a sort of each
 * group of ties only (SQLite's sort of the last term of an ORDER BY).
 *
 * The full-text index of turns: transcript search keeps
 * FTS5 with the same tokenizer, `secure-delete` and no copy of the text, but
 * without prefix indexes: they took 160 of the 220 bytes the index spent per
 * turn, and about one WAL page of each append's commit, for a transcript
 * that is searched far less often than it is written. A prefix query
 * (`"tok"*`) still matches exactly the same rows: FTS5 then reads the range
 * of terms that start with the prefix instead of one prefix entry. Memory
 * and skill indexes keep theirs (recall latency is a goal there). The index
 * is created again and filled from the live turn rows with the text the
 * projection indexes (`foldForIndex`), so it equals a rebuild's.
 */
import { foldForIndex } from '@agentstate/core/backend';
import type { Connection } from '../connection.js';
import { FTS_TOKENIZER } from './002-projection.js';
import type { Migration } from './migration.js';

/** FTS5 options of `turns_fts` from version 11: version 10's without `prefix`. Needs `secure-delete` set once after creation. */
export const TURN_FTS_OPTIONS = `tokenize = "${FTS_TOKENIZER}", content = ''`;

/** Live turn rows read per chunk of the refill: a large file's turns are not all held in memory at once. */
const CHUNK = 10_000;

/** Fills the new index from the live turn rows, in rowid order, as a rebuild does. */
function refill(conn: Connection): void {
  const insert = conn.db.prepare('INSERT INTO turns_fts (rowid, text) VALUES (?, ?)');
  const read = conn.db.prepare('SELECT n, content FROM turns WHERE deleted = 0 AND n > ? ORDER BY n LIMIT ?');
  for (let after = 0; ; ) {
    const rows = read.all(after, CHUNK) as { n: number; content: string }[];
    if (rows.length === 0) return;
    for (const row of rows) insert.run(row.n, foldForIndex(row.content));
    after = rows[rows.length - 1]!.n;
  }
}

export const migration011: Migration = {
  version: 11,
  name: 'lean-turns',
  sql: `
ALTER TABLE turns ADD COLUMN appended_seq INTEGER;
DROP INDEX turns_live_recent;
CREATE INDEX turns_live_recent ON turns (created_at) WHERE deleted = 0;
DROP TABLE turns_fts;
CREATE VIRTUAL TABLE turns_fts USING fts5(text, ${TURN_FTS_OPTIONS});
INSERT INTO turns_fts (turns_fts, rank) VALUES ('secure-delete', 1);`,
  after: refill,
};
