/**
 * Version 2: the projection of the `state` stream. Instants are the
 * fixed-width ISO text of docs/contract.md §2, so text order is time order; HLCs are two
 * integer columns. Full-text rows exist only for live records and hold
 * core's folded tokens (`foldForIndex`), so FTS5 splits them at spaces only.
 */
import type { Migration } from './migration.js';

/**
 * Every category but separators (Z*) is a token character: the indexed text
 * is already folded into tokens joined by single spaces, and this keeps
 * FTS5's own notion of letters (older Unicode tables) from splitting them.
 */
export const FTS_TOKENIZER = `unicode61 remove_diacritics 2 categories 'L* N* M* P* S* C*'`;

/**
 * FTS5 options: the folded-token tokenizer; prefix indexes for short
 * prefixes; full detail, because bm25 needs term frequencies (with
 * `detail = column` every score collapses to zero and relevance order
 * degrades to recency); no stored copy of the text; rows for live records only.
 */
export const FTS_OPTIONS = `tokenize = "${FTS_TOKENIZER}", prefix = '1 2 3 4', content = '', contentless_delete = 1`;

export const migration002: Migration = {
  version: 2,
  name: 'projection',
  sql: `
CREATE TABLE projection_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  seq INTEGER NOT NULL,
  hlc_wall INTEGER NOT NULL,
  hlc_counter INTEGER NOT NULL,
  generation INTEGER NOT NULL
);
INSERT INTO projection_state (id, seq, hlc_wall, hlc_counter, generation) VALUES (1, 0, 0, 0, 0);

CREATE TABLE sessions (
  id TEXT NOT NULL PRIMARY KEY,
  title TEXT NOT NULL,
  model TEXT NOT NULL,
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

CREATE TABLE turns (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  created_at TEXT NOT NULL,
  sync_version INTEGER NOT NULL,
  origin_instance_id TEXT NOT NULL,
  hlc_wall INTEGER NOT NULL,
  hlc_counter INTEGER NOT NULL,
  last_writer_id TEXT NOT NULL,
  deleted INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

CREATE TABLE skills (
  n INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  scope_key TEXT NOT NULL,
  slug TEXT NOT NULL,
  scope_instance TEXT NOT NULL,
  scope_project TEXT NOT NULL,
  scope_workspace TEXT NOT NULL,
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
  scope_instance TEXT NOT NULL,
  scope_project TEXT NOT NULL,
  scope_workspace TEXT NOT NULL,
  source TEXT NOT NULL,
  created_at TEXT NOT NULL,
  sync_version INTEGER NOT NULL,
  origin_instance_id TEXT NOT NULL,
  hlc_wall INTEGER NOT NULL,
  hlc_counter INTEGER NOT NULL,
  last_writer_id TEXT NOT NULL,
  deleted INTEGER NOT NULL
);
CREATE INDEX memory_live_recent ON memory (created_at, id) WHERE deleted = 0;
CREATE INDEX memory_live_by_scope ON memory (scope_key, created_at, id) WHERE deleted = 0;
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
`,
};
