/**
 * Version 12: a purge's turns out of the history index's B-tree.
 *
 * A live commit of a `records.purged` event no longer writes a
 * `record_events` row for each turn it erases: the turn's row records the
 * seq of the purge (`purged_seq`), and the turn's history reads it from
 * there (`history.ts`), as it reads its append from `appended_seq`
 * (migration 11). A session's turns sit together in `turns`, which the
 * purge rewrites anyway, while their ids (UUIDv7) are spread over the
 * whole `(record_id, seq)` index: for a 2,004-turn session the rows cost
 * about 5,000 scattered pages of the purge's write-ahead log. A turn purged
 * a second time (its row already holds a seq) gets an index row as before.
 * Rows written before (and by a fold, which keeps writing index rows) stay
 * valid: a record's history is the union of both. Adding the column
 * rewrites nothing, so a large file migrates at once.
 */
import type { Migration } from './migration.js';

export const migration012: Migration = {
  version: 12,
  name: 'purged-turns',
  sql: `
ALTER TABLE turns ADD COLUMN purged_seq INTEGER;`,
};
