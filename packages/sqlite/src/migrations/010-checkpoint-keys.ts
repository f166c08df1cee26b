/**
 * Version 10: a checkpoint row keeps only its key and where its record is.
 * The `checkpoint.saved` event a row points at (`event_seq`) holds the whole
 * record, not just its value, so every other column repeated the event: a
 * row of ~300 bytes became one of ~60, and a save that lands in the middle
 * of the table (every thread but the newest) splits a page a fifth as often.
 * A row loaded from a snapshot, or folded from an upcast event, keeps its
 * record as JSON in `record` instead; exactly one of the two is set. Rows of
 * the old shape that held their value get a record built from their columns;
 * the others keep pointing at their event. Nothing is folded again, and a
 * file with no checkpoints (most of a big log) migrates at once.
 */
import type { Migration } from './migration.js';

export const migration010: Migration = {
  version: 10,
  name: 'checkpoint-keys',
  sql: `
CREATE TABLE checkpoints_v10 (
  thread_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  event_seq INTEGER,
  record TEXT,
  CHECK ((record IS NULL) <> (event_seq IS NULL)),
  PRIMARY KEY (thread_id, namespace, checkpoint_id)
) WITHOUT ROWID;
INSERT INTO checkpoints_v10 (thread_id, namespace, checkpoint_id, event_seq, record)
  SELECT thread_id, namespace, checkpoint_id, event_seq,
    CASE WHEN event_seq IS NULL THEN json_object(
      'id', id, 'threadId', thread_id, 'namespace', namespace, 'checkpointId', checkpoint_id, 'parentCheckpointId', parent_checkpoint_id,
      'checkpoint', json(checkpoint), 'metadata', json(metadata), 'createdAt', created_at, 'updatedAt', updated_at, 'syncVersion', sync_version,
      'originInstanceId', origin_instance_id, 'updatedHlc', json_object('wall', hlc_wall, 'counter', hlc_counter), 'lastWriterId', last_writer_id) END
  FROM checkpoints;
DROP TABLE checkpoints;
ALTER TABLE checkpoints_v10 RENAME TO checkpoints;
CREATE INDEX checkpoints_newest ON checkpoints (checkpoint_id, thread_id, namespace);
`,
};
