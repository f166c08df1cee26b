/**
 * Version 7: a checkpoint's value is kept once. The `checkpoint.saved` event
 * that carried a checkpoint's latest post-image already holds its value, so
 * the row written by a commit or a fold keeps only `event_seq`, that event's
 * seq, and reads take the value from the event (one look-up of the log's
 * `(stream, seq)` key). A row loaded from a snapshot, or folded from an event
 * of an older payload schema (upcast, so its stored text is not the record),
 * keeps its value in `checkpoint` instead; exactly one of the two is set.
 * Rows already there keep their value. Rows being small now, the table is
 * clustered on its key (`WITHOUT ROWID`): a save writes one B-tree fewer
 * than a row number and a key index did. The table is copied into its new
 * shape; nothing is folded again.
 */
import type { Migration } from './migration.js';

export const migration007: Migration = {
  version: 7,
  name: 'checkpoint-values',
  sql: `
CREATE TABLE checkpoints_v7 (
  thread_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  checkpoint TEXT,
  event_seq INTEGER,
  metadata TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  sync_version INTEGER NOT NULL,
  origin_instance_id TEXT NOT NULL,
  hlc_wall INTEGER NOT NULL,
  hlc_counter INTEGER NOT NULL,
  last_writer_id TEXT NOT NULL,
  CHECK ((checkpoint IS NULL) <> (event_seq IS NULL)),
  PRIMARY KEY (thread_id, namespace, checkpoint_id)
) WITHOUT ROWID;
INSERT INTO checkpoints_v7 (thread_id, namespace, checkpoint_id, id, parent_checkpoint_id, checkpoint, event_seq, metadata, created_at, updated_at,
    sync_version, origin_instance_id, hlc_wall, hlc_counter, last_writer_id)
  SELECT thread_id, namespace, checkpoint_id, id, parent_checkpoint_id, checkpoint, NULL, metadata, created_at, updated_at,
    sync_version, origin_instance_id, hlc_wall, hlc_counter, last_writer_id FROM checkpoints;
DROP TABLE checkpoints;
ALTER TABLE checkpoints_v7 RENAME TO checkpoints;
CREATE INDEX checkpoints_newest ON checkpoints (checkpoint_id, thread_id, namespace);
`,
};
