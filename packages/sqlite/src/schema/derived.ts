/**
 * The derived schema: everything a fold of the log writes, dropped and
 * derived again whenever a file's derived version differs from
 * {@link DERIVED_VERSION} (`schema/index.ts`). Instants are the fixed-width
 * ISO text of docs/contract.md §2, so text order is time order; HLCs are two
 * integer columns. A scope is one column, `scope_key`: the canonical JSON of
 * its labels (`["project:web","workspace:api"]`), so an exact scope is an
 * equality on it and a scope's descendants a range of it (keys starting
 * `["project:web",`), and both read the `*_by_scope` indexes.
 */

/**
 * The version of the derived schema this library writes. Change it whenever
 * a derived table changes shape or meaning: every file is folded again on
 * its next writable open.
 */
export const DERIVED_VERSION = 5;

/**
 * Every category but separators (Z*) is a token character: the indexed text
 * is already folded into tokens joined by single spaces (core's
 * `foldForIndex`), and this keeps FTS5's own notion of letters (older
 * Unicode tables) from splitting them.
 */
const FTS_TOKENIZER = `unicode61 remove_diacritics 2 categories 'L* N* M* P* S* C*'`;

/**
 * FTS5 options of the skill and memory indexes: the folded-token tokenizer;
 * prefix indexes for short prefixes (recall latency is a goal); full detail,
 * because bm25 needs term frequencies (with `detail = column` every score
 * collapses to zero and relevance order degrades to recency); no stored copy
 * of the text. Not `contentless_delete`, on which FTS5 refuses the 'delete'
 * command: the projection deletes a row with the exact text it indexed.
 * Without `secure-delete`: on these tables (prefix indexes, records updated
 * in place) it rewrote every doclist of a replaced version's terms, about
 * 100 times the cost of the insert beside it, on every update. A delete
 * leaves the old tokens behind a delete marker until a merge; a purge merges
 * the whole table (`purge.ts`), so erased text leaves the pages all the same.
 */
export const FTS_OPTIONS = `tokenize = "${FTS_TOKENIZER}", prefix = '1 2 3 4', content = ''`;

/**
 * FTS5 options of the turn index: as {@link FTS_OPTIONS} without prefix
 * indexes, which took 160 of the 220 bytes it spent per turn and about one
 * WAL page of each append's commit, for a transcript searched far less often
 * than it is written. A prefix query still matches the same rows: FTS5 reads
 * the range of terms that start with the prefix.
 */
export const TURN_FTS_OPTIONS = `tokenize = "${FTS_TOKENIZER}", content = ''`;

/** The stamp every record row carries (docs/contract.md §2), and its tombstone flag. */
const STAMP = `sync_version INTEGER NOT NULL,
  origin_instance_id TEXT NOT NULL,
  hlc_wall INTEGER NOT NULL,
  hlc_counter INTEGER NOT NULL,
  last_writer_id TEXT NOT NULL,
  deleted INTEGER NOT NULL`;

/** A full-text index of live rows only (rowid = the row's `n`). */
const fts = (table: string, options: string) => `
CREATE VIRTUAL TABLE ${table} USING fts5(text, ${options});`;

/**
 * The turn index keeps `secure-delete` (set once after creation, kept in the table's config): a turn is
 * never updated, only removed, so it costs little, and a purge of a session's turns then needs no merge
 * of the largest index: every token and entry of a deleted row leaves the pages in place.
 */
const secureFts = (table: string, options: string) => `${fts(table, options)}
INSERT INTO ${table} (${table}, rank) VALUES ('secure-delete', 1);`;

/** The derived tables of a new file, or of one folded again. */
export const DERIVED_SQL = `
-- Snapshots of the state stream (docs/contract.md §8): a cache a rebuild may start from.
CREATE TABLE snapshots (
  position INTEGER PRIMARY KEY,
  stream TEXT NOT NULL,
  seq INTEGER NOT NULL CHECK (seq >= 0),
  data TEXT NOT NULL,
  UNIQUE (stream, seq)
);

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
  metadata TEXT NOT NULL,
  scope_key TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  summary TEXT,
  fields_clock TEXT,
  ${STAMP}
) WITHOUT ROWID;
CREATE INDEX sessions_live ON sessions (created_at, id) WHERE deleted = 0;
CREATE INDEX sessions_live_by_scope ON sessions (scope_key, created_at, id) WHERE deleted = 0;

-- A turn appended by a live commit gets no history index row: its row records the seq of the
-- event that appended it (appended_seq), and of the purge that erased it (purged_seq), a few
-- bytes where two index rows cost about 90 and a B-tree's pages per append (history.ts).
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
  ${STAMP},
  appended_hlc TEXT,
  appended_seq INTEGER,
  purged_seq INTEGER,
  UNIQUE (session_id, seq)
);
-- created_at alone: turns created in the same millisecond (a batch's) are put in id order after
-- the index read, by a sort of each group of ties only.
CREATE INDEX turns_live_recent ON turns (created_at) WHERE deleted = 0;
${secureFts('turns_fts', TURN_FTS_OPTIONS)}

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
  content_clock TEXT,
  outcomes TEXT,
  ${STAMP},
  UNIQUE (scope_key, slug)
);
CREATE INDEX skills_live_by_slug ON skills (slug, id) WHERE deleted = 0;
CREATE INDEX skills_live_by_scope ON skills (scope_key, slug, id) WHERE deleted = 0;
${fts('skills_fts', FTS_OPTIONS)}

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
  ${STAMP}
);
CREATE INDEX memory_live_recent ON memory (created_at, id) WHERE deleted = 0;
CREATE INDEX memory_live_by_scope ON memory (scope_key, created_at, id) WHERE deleted = 0;
-- Not UNIQUE: the fold rules keep a key to one live item, and a coalesced fold may
-- write the new holder of a key before the row of the item that gave it up.
CREATE INDEX memory_live_key ON memory (scope_key, key) WHERE deleted = 0 AND key IS NOT NULL;
CREATE INDEX memory_live_expiring ON memory (expires_at) WHERE deleted = 0 AND expires_at IS NOT NULL;
${fts('memory_fts', FTS_OPTIONS)}

-- Every node of a live item's metadata reached through objects: its path (JSON array of keys),
-- its JSON type and, for scalars, its value (booleans as 0/1; the column has no affinity, so
-- numbers stay numbers and text stays text). Metadata filters read the (path, type, value) index.
CREATE TABLE memory_meta (
  item_n INTEGER NOT NULL,
  path TEXT NOT NULL,
  type TEXT NOT NULL,
  value,
  PRIMARY KEY (item_n, path)
) WITHOUT ROWID;
CREATE INDEX memory_meta_by_value ON memory_meta (path, type, value);

-- Whether memory rows were inserted in recall order (createdAt, then id): while they are, the
-- newest matches are the highest rowids, and recent-first recall reads the full-text index
-- backwards and stops at the limit.
CREATE TABLE memory_order (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last_created_at TEXT NOT NULL,
  last_id TEXT NOT NULL,
  in_order INTEGER NOT NULL
);
INSERT INTO memory_order (id, last_created_at, last_id, in_order) VALUES (1, '', '', 1);

-- Moves whenever a live item is changed in place (memory.updated): its vector is derived
-- again, so what a reader remembered about vectored rows is stale.
CREATE TABLE memory_epoch (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  epoch INTEGER NOT NULL
);
INSERT INTO memory_epoch (id, epoch) VALUES (1, 0);

-- The operations of idempotent writes (docs/contract.md §4): which event each operation id
-- wrote, and the hash of its input. A retry finds its id here.
CREATE TABLE operations (
  id TEXT NOT NULL PRIMARY KEY,
  seq INTEGER NOT NULL,
  input_hash TEXT NOT NULL
) WITHOUT ROWID;

-- Graph checkpoints (docs/contract.md §2, "Checkpoints"), clustered on their key. A row
-- folded from an event of the current payload schema keeps only that event's seq and reads
-- the value from it, so the value is stored once; one restored from a snapshot, or folded
-- from an upcast event, keeps its record as JSON. checkpoints_newest answers list across threads.
CREATE TABLE checkpoints (
  thread_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  checkpoint_id TEXT NOT NULL,
  event_seq INTEGER,
  record TEXT,
  CHECK ((record IS NULL) <> (event_seq IS NULL)),
  PRIMARY KEY (thread_id, namespace, checkpoint_id)
) WITHOUT ROWID;
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

-- The history index (docs/contract.md §7, "History"): which state events carry each session,
-- turn, skill and memory item, clustered by record id, besides the turns' own columns.
CREATE TABLE record_events (
  record_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (record_id, seq)
) WITHOUT ROWID;

-- Vectors (docs/contract.md §6): one pair of sqlite-vec tables per embedder, created on first
-- use (memory_vec_<no>, rowid = memory.n; turn_vec_<no>, rowid = turns.n) and listed here;
-- memory_vectors and turn_vectors say which live rows have one; the embedding cache keeps
-- vectors by (embedder id, content hash) across rebuilds.
CREATE TABLE vector_indexes (
  no INTEGER PRIMARY KEY,
  embedder_id TEXT NOT NULL UNIQUE,
  dimensions INTEGER NOT NULL CHECK (dimensions > 0)
);
CREATE TABLE memory_vectors (
  index_no INTEGER NOT NULL,
  item_n INTEGER NOT NULL,
  PRIMARY KEY (index_no, item_n)
) WITHOUT ROWID;
CREATE TABLE turn_vectors (
  index_no INTEGER NOT NULL,
  turn_n INTEGER NOT NULL,
  PRIMARY KEY (index_no, turn_n)
) WITHOUT ROWID;
CREATE TABLE embedding_cache (
  position INTEGER PRIMARY KEY,
  embedder_id TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  UNIQUE (embedder_id, content_hash)
);
`;
