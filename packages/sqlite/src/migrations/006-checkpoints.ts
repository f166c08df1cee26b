/**
 * Version 6: graph checkpoints and their pending writes (docs/contract.md §2,
 * "Checkpoints"). Two projection tables; logs written before had no
 * checkpoint events, so nothing is folded again. Rows keep a row number, so
 * a checkpoint of many megabytes is not copied around a clustered key.
 *
 * `checkpoints_by_key` answers `get` (the newest of a thread and namespace:
 * the key range read backwards) and a thread's `list`; `checkpoints_newest`
 * the `list` across threads (`checkpoint_id`, `thread_id`, `namespace`,
 * read backwards). `checkpoint_writes_by_key` answers a checkpoint's writes
 * in `(task_id, idx)` order and refuses a second write at one idx.
 */
import type { Migration } from './migration.js';

export const migration006: Migration = {
  version: 6,
  name: 'checkpoints',
  sql: `
CREATE TABLE checkpoints (
  n INTEGER PRIMARY KEY,
  thread_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  checkpoint TEXT NOT NULL,
  metadata TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  sync_version INTEGER NOT NULL,
  origin_instance_id TEXT NOT NULL,
  hlc_wall INTEGER NOT NULL,
  hlc_counter INTEGER NOT NULL,
  last_writer_id TEXT NOT NULL
);
CREATE UNIQUE INDEX checkpoints_by_key ON checkpoints (thread_id, namespace, checkpoint_id);
CREATE INDEX checkpoints_newest ON checkpoints (checkpoint_id, thread_id, namespace);

CREATE TABLE checkpoint_writes (
  n INTEGER PRIMARY KEY,
  thread_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  task_path TEXT NOT NULL,
  channel TEXT NOT NULL,
  value TEXT NOT NULL
);
CREATE UNIQUE INDEX checkpoint_writes_by_key ON checkpoint_writes (thread_id, namespace, checkpoint_id, task_id, idx);
`,
};
