/**
 * Version 2: graph checkpoints and their pending writes (docs/contract.md §2,
 * "Checkpoints"). Schemas written before had no checkpoint events, so
 * nothing is folded again.
 *
 * `checkpoints_by_key` answers `at`, `latest` (the newest of a thread and
 * namespace: the key range read backwards) and a thread's `list`;
 * `checkpoints_newest` the `list` across threads (`checkpoint_id`,
 * `thread_id`, `namespace`, read backwards). The primary key of
 * `checkpoint_writes` answers a checkpoint's writes in `(task_id, idx)`
 * order. Keys compare in collation "C" (code-point order), as the contract's.
 */
import type { Migration } from './migration.js';

export const migration002: Migration = {
  version: 2,
  name: 'checkpoints',
  sql: `
CREATE TABLE {schema}.checkpoints (
  n bigserial PRIMARY KEY,
  thread_id text COLLATE "C" NOT NULL,
  namespace text COLLATE "C" NOT NULL,
  checkpoint_id text COLLATE "C" NOT NULL,
  id text NOT NULL,
  parent_checkpoint_id text,
  checkpoint text NOT NULL,
  metadata text NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  sync_version bigint NOT NULL,
  origin_instance_id text NOT NULL,
  hlc_wall bigint NOT NULL,
  hlc_counter bigint NOT NULL,
  last_writer_id text NOT NULL
);
CREATE UNIQUE INDEX checkpoints_by_key ON {schema}.checkpoints (thread_id, namespace, checkpoint_id);
CREATE INDEX checkpoints_newest ON {schema}.checkpoints (checkpoint_id, thread_id, namespace);

CREATE TABLE {schema}.checkpoint_writes (
  thread_id text COLLATE "C" NOT NULL,
  namespace text COLLATE "C" NOT NULL,
  checkpoint_id text COLLATE "C" NOT NULL,
  task_id text COLLATE "C" NOT NULL,
  idx bigint NOT NULL,
  task_path text NOT NULL,
  channel text NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (thread_id, namespace, checkpoint_id, task_id, idx)
);
`,
};
