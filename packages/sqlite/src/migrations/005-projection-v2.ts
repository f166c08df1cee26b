/**
 * Version 5: the projection of payload schema version 2 (docs/contract.md §2). The
 * projection tables are dropped and created in their new shape, and the
 * projection is reset to seq 0: the next writable open folds the whole log
 * again, through the upcasters, as a bulk load, and re-derives the vectors
 * from the embedding cache. The log, snapshots and the cache are untouched.
 * Turns get a row number, a full-text index (`turns_fts`) and vectors
 * (`turn_vectors`, `turn_vec_<no>`) for transcript search.
 *
 * A scope is one column, `scope_key`: the canonical JSON of its labels
 * (`["project:web","workspace:api"]`). An exact scope is an equality on it and
 * a scope's descendants a range of it (keys starting `["project:web",`), so
 * both read the `*_by_scope` indexes.
 */
import { FTS_OPTIONS } from './002-projection.js';
import type { Migration } from './migration.js';

export const migration005: Migration = {
  version: 5,
  name: 'projection-v2',
  sql: `
DROP TABLE sessions;
DROP TABLE turns;
DROP TABLE skills;
DROP TABLE skills_fts;
DROP TABLE memory;
DROP TABLE memory_fts;
DROP TABLE memory_order;
DELETE FROM memory_vectors;
UPDATE projection_state SET seq = 0, hlc_wall = 0, hlc_counter = 0;

CREATE TABLE sessions (
  id TEXT NOT NULL PRIMARY KEY,
  title TEXT NOT NULL,
  model TEXT NOT NULL,
  metadata TEXT NOT NULL,
  scope_key TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  sync_version INTEGER NOT NULL,
  origin_instance_id TEXT NOT NULL,
  hlc_wall INTEGER NOT NULL,
  hlc_counter INTEGER NOT NULL,
  last_writer_id TEXT NOT NULL,
  deleted INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_live ON sessions (created_at, id) WHERE deleted = 0;
CREATE INDEX sessions_live_by_scope ON sessions (scope_key, created_at, id) WHERE deleted = 0;

CREATE TABLE turns (
  n INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  parts TEXT NOT NULL,
  metadata TEXT NOT NULL,
  created_at TEXT NOT NULL,
  sync_version INTEGER NOT NULL,
  origin_instance_id TEXT NOT NULL,
  hlc_wall INTEGER NOT NULL,
  hlc_counter INTEGER NOT NULL,
  last_writer_id TEXT NOT NULL,
  deleted INTEGER NOT NULL,
  UNIQUE (session_id, seq)
);
CREATE INDEX turns_live_recent ON turns (created_at, id) WHERE deleted = 0;
CREATE VIRTUAL TABLE turns_fts USING fts5(text, ${FTS_OPTIONS});

-- Which live turns have a vector in which index (the turn counterpart of memory_vectors).
CREATE TABLE turn_vectors (
  index_no INTEGER NOT NULL,
  turn_n INTEGER NOT NULL,
  PRIMARY KEY (index_no, turn_n)
) WITHOUT ROWID;

CREATE TABLE skills (
  n INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  scope_key TEXT NOT NULL,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  body TEXT NOT NULL,
  tags TEXT NOT NULL,
  uses INTEGER NOT NULL,
  wins INTEGER NOT NULL,
  check_command TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  sync_version INTEGER NOT NULL,
  origin_instance_id TEXT NOT NULL,
  hlc_wall INTEGER NOT NULL,
  hlc_counter INTEGER NOT NULL,
  last_writer_id TEXT NOT NULL,
  deleted INTEGER NOT NULL,
  UNIQUE (scope_key, slug)
);
CREATE INDEX skills_live_by_slug ON skills (slug, id) WHERE deleted = 0;
CREATE INDEX skills_live_by_scope ON skills (scope_key, slug, id) WHERE deleted = 0;
CREATE VIRTUAL TABLE skills_fts USING fts5(text, ${FTS_OPTIONS});

CREATE TABLE memory (
  n INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  content TEXT NOT NULL,
  scope_key TEXT NOT NULL,
  source TEXT NOT NULL,
  key TEXT,
  metadata TEXT NOT NULL,
  expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  sync_version INTEGER NOT NULL,
  origin_instance_id TEXT NOT NULL,
  hlc_wall INTEGER NOT NULL,
  hlc_counter INTEGER NOT NULL,
  last_writer_id TEXT NOT NULL,
  deleted INTEGER NOT NULL
);
CREATE INDEX memory_live_recent ON memory (created_at, id) WHERE deleted = 0;
CREATE INDEX memory_live_by_scope ON memory (scope_key, created_at, id) WHERE deleted = 0;
-- Not UNIQUE: the fold rules keep a key to one live item, and a coalesced fold may
-- write the new holder of a key before the row of the item that gave it up.
CREATE INDEX memory_live_key ON memory (scope_key, key) WHERE deleted = 0 AND key IS NOT NULL;
CREATE INDEX memory_live_expiring ON memory (expires_at) WHERE deleted = 0 AND expires_at IS NOT NULL;

-- Every node of a live item's metadata reached through objects: its path (JSON
-- array of keys), its JSON type and, for scalars, its value (booleans as 0/1;
-- the column has no affinity, so numbers stay numbers and text stays text).
-- Metadata filters read it through the (path, type, value) index.
CREATE TABLE memory_meta (
  item_n INTEGER NOT NULL,
  path TEXT NOT NULL,
  type TEXT NOT NULL,
  value,
  PRIMARY KEY (item_n, path)
) WITHOUT ROWID;
CREATE INDEX memory_meta_by_value ON memory_meta (path, type, value);
CREATE VIRTUAL TABLE memory_fts USING fts5(text, ${FTS_OPTIONS});

-- Whether memory rows were inserted in recall order (createdAt, then id): while
-- they are, the newest matches are the highest rowids, and recent-first recall
-- reads the full-text index backwards and stops at the limit.
CREATE TABLE memory_order (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last_created_at TEXT NOT NULL,
  last_id TEXT NOT NULL,
  in_order INTEGER NOT NULL
);
INSERT INTO memory_order (id, last_created_at, last_id, in_order) VALUES (1, '', '', 1);

-- The operations of idempotent writes (docs/contract.md §4): which event each
-- operation id wrote, and the hash of its input. A retry finds its id here.
CREATE TABLE operations (
  id TEXT NOT NULL PRIMARY KEY,
  seq INTEGER NOT NULL,
  input_hash TEXT NOT NULL
) WITHOUT ROWID;

-- Moves whenever a live item is changed in place (memory.updated): its vector
-- is derived again, so what a reader remembered about vectored rows is stale.
CREATE TABLE memory_epoch (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  epoch INTEGER NOT NULL
);
INSERT INTO memory_epoch (id, epoch) VALUES (1, 0);
`,
};
