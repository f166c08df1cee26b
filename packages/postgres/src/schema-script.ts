/**
 * The creation script of agentstate's schema, in two parts. The durable
 * part is the log (`streams` with the `state` head row, `events`, the
 * `state` stream's positions), the store's identity and the versions of
 * both parts; nothing else is truth. The derived part is everything folded
 * from the log: the projection tables with their lexical indexes (a
 * `tsvector` of core's folded tokens, GIN-indexed) and metadata rows, the
 * operations index, the checkpoint tables, the history index, vectors, the
 * embedding cache and stored snapshots. It carries one version,
 * {@link DERIVED_VERSION}: a schema whose derived part has another is
 * dropped and folded again (see `schema.ts`). Every statement names its
 * table through the `{schema}` placeholder.
 */
/**
 * The version of the durable part; a schema recording a larger one is a newer library's, refused.
 * 3: no trigger on `events` (writers wake subscribers after they commit, `Database.announce`).
 * 4: the origin of received events ({@link ORIGIN_SQL}).
 */
export const LOG_VERSION = 4;

/** The first log version upgraded in place to {@link LOG_VERSION} by {@link ORIGIN_SQL} alone, with nothing folded. */
export const ORIGIN_UPGRADE_SINCE = 3;

/**
 * The origin of a received event (docs/contract.md §12): its replica, its seq and its time there, NULL for the
 * store's own events, so an own append writes what it wrote before; at most one event per place. Idempotent:
 * it upgrades a log of an earlier version in place.
 */
export const ORIGIN_SQL = `
ALTER TABLE {schema}.events ADD COLUMN IF NOT EXISTS origin text, ADD COLUMN IF NOT EXISTS origin_seq bigint, ADD COLUMN IF NOT EXISTS origin_time text;
CREATE UNIQUE INDEX IF NOT EXISTS events_origin ON {schema}.events (origin, origin_seq) WHERE origin IS NOT NULL;
`;

/**
 * The version of the derived part; raise it whenever the derived part changes, and every schema folds again on open,
 * but for one whose tables are those of this version ({@link SAME_TABLES_SINCE}).
 * 3: a write's session look-up, and the projection's turn upsert and session bump, are functions.
 * 4: a session's compaction summary (`sessions.summary`).
 * 5: the clock of a session's latest field write (`sessions.fields_clock`).
 * 6: a skill's content clock and outcomes (`skills.content_clock`, `skills.outcomes`) and the clock of a removed
 *    or purged turn's append (`turns.appended_hlc`), folded again: a merge of outcomes received apart, which a log
 *    of version 5 may hold, gives them.
 * 7: no functions: a write's look-up, upsert and bump are plain statements, prepared once per connection.
 */
export const DERIVED_VERSION = 7;

/**
 * The first derived version whose tables and indexes are this version's: a schema of it or later has at most
 * functions of earlier versions ({@link DROP_FUNCTIONS_SQL}), dropped in place on open, with no fold. Set it to {@link DERIVED_VERSION} when a
 * table or an index changes otherwise.
 */
export const SAME_TABLES_SINCE = 6;

/**
 * The advisory lock of a schema's writers, as the two keys of
 * `pg_advisory_xact_lock(int, int)`: every write to the `state` stream holds
 * it shared until it ends, so a reader can find the writers that may still
 * hold positions, and work that needs no writer in flight takes it
 * exclusive. The first key is agentstate's, the second the schema's.
 */
export const WRITERS_LOCK_KEY = 1_634_953_331;

/** The table recording both versions; its presence marks a schema as agentstate's. */
export const VERSIONS_TABLE = 'agentstate_schema';

/**
 * The positions of the `state` stream (docs/contract.md §7) and the reader's
 * high-water mark. `settled_position()` reads the sequence's last value L,
 * then the transactions holding the writers' lock ({@link WRITERS_LOCK_KEY})
 * and waits until each has ended: every position up to L was taken by a
 * transaction that held that lock from before it took it, so afterwards
 * each is committed or never will be, and a statement that starts later
 * sees exactly the committed events up to L. Call it as a statement of its
 * own: a statement that began before the wait does not see what committed
 * during it.
 */
export const POSITIONS_SQL = `
CREATE SEQUENCE IF NOT EXISTS {schema}.positions AS bigint MINVALUE 1 START 1;
CREATE OR REPLACE FUNCTION {schema}.settled_position() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  mark bigint;
  writers text[];
BEGIN
  SELECT CASE WHEN is_called THEN last_value ELSE 0 END INTO mark FROM {schema}.positions;
  SELECT array_agg(virtualtransaction) INTO writers FROM pg_locks
    WHERE locktype = 'advisory' AND classid = ${WRITERS_LOCK_KEY} AND objid = hashtext('{schema}')::oid AND objsubid = 2
      AND pid <> pg_backend_pid();
  WHILE writers IS NOT NULL AND EXISTS (
    SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = ${WRITERS_LOCK_KEY} AND objid = hashtext('{schema}')::oid
      AND objsubid = 2 AND virtualtransaction = ANY (writers)) LOOP
    PERFORM pg_sleep(0.0005);
  END LOOP;
  RETURN mark;
END
$$;
`;

/** The durable part of a fresh schema. */
export const LOG_SQL = `
CREATE TABLE {schema}.${VERSIONS_TABLE} (part text PRIMARY KEY, version integer NOT NULL);
INSERT INTO {schema}.${VERSIONS_TABLE} VALUES ('log', ${LOG_VERSION});

CREATE TABLE {schema}.store_meta (key text PRIMARY KEY, value text NOT NULL);
INSERT INTO {schema}.store_meta (key, value) VALUES ('log_identity', md5(random()::text || clock_timestamp()::text) || md5(random()::text));

-- One row per stream but state: locked FOR UPDATE by every append, so its seqs are dense and commit in seq order.
-- The state stream's row is kept, its head unused: its events take their positions from the sequence positions.
CREATE TABLE {schema}.streams (stream text PRIMARY KEY, head bigint NOT NULL);
INSERT INTO {schema}.streams (stream, head) VALUES ('state', 0);
${POSITIONS_SQL}
CREATE TABLE {schema}.events (
  stream text NOT NULL,
  seq bigint NOT NULL,
  type text NOT NULL,
  time text NOT NULL,
  schema_version integer NOT NULL,
  payload text NOT NULL,
  checksum text NOT NULL,
  actor text,
  trace_id text,
  span_id text,
  causation_id text,
  origin_instance_id text,
  principal text,
  validated boolean NOT NULL,
  PRIMARY KEY (stream, seq)
);
${ORIGIN_SQL}`;

/**
 * Every table the derived part has had, dropped before it is created
 * again: add a table here when the derived part gains one, and never
 * remove one, so a schema of any earlier version loses all of its own.
 */
export const DERIVED_TABLES = [
  'snapshots',
  'projection_state',
  'memory_meta',
  'memory',
  'turns',
  'sessions',
  'skills',
  'operations',
  'checkpoint_writes',
  'checkpoints',
  'record_events',
  'vectors',
  'embedding_cache',
] as const;

const ENVELOPE = `sync_version bigint NOT NULL,
  origin_instance_id text NOT NULL,
  hlc_wall bigint NOT NULL,
  hlc_counter bigint NOT NULL,
  last_writer_id text NOT NULL`;

/**
 * Drops the functions derived versions 3 to 6 made for a write's session look-up, turn upsert and session bump
 * (`lookups.ts` and `projection.ts` send plain statements, which each connection prepares once): run where a
 * schema of an earlier version is upgraded, in place or folded again.
 */
export const DROP_FUNCTIONS_SQL = `
DROP FUNCTION IF EXISTS {schema}.lock_session(text);
DROP FUNCTION IF EXISTS {schema}.put_turn(text, bigint, text, text, text, text, text, text, bigint, text, bigint, bigint, text, boolean, text[]);
DROP FUNCTION IF EXISTS {schema}.put_turn(text, bigint, text, text, text, text, text, text, bigint, text, bigint, bigint, text, boolean, text, text[]);
DROP FUNCTION IF EXISTS {schema}.bump_session(text, bigint, bigint, text, text);
`;

/**
 * The derived part, empty, recording {@link DERIVED_VERSION}. Writers run in
 * parallel: a decision that something does not exist yet (a slug or a memory
 * key free in a scope, an unused id) is held by a unique index, which makes
 * the second of two such writers fail and retry (`backend.ts`).
 */
export const DERIVED_SQL = `
INSERT INTO {schema}.${VERSIONS_TABLE} VALUES ('derived', ${DERIVED_VERSION}) ON CONFLICT (part) DO UPDATE SET version = EXCLUDED.version;
-- Text held as its UTF-8 bytes: the log takes any string as snapshot data, NUL included, which text refuses.
CREATE TABLE {schema}.snapshots (
  stream text NOT NULL,
  seq bigint NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (stream, seq)
);

CREATE TABLE {schema}.sessions (
  id text COLLATE "C" PRIMARY KEY,
  title text NOT NULL,
  model text NOT NULL,
  scope_key text COLLATE "C" NOT NULL,
  metadata text NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text NOT NULL,
  summary text,
  fields_clock text,
  ${ENVELOPE},
  deleted boolean NOT NULL
);
CREATE INDEX sessions_live ON {schema}.sessions (created_at, id) WHERE NOT deleted;
CREATE INDEX sessions_by_scope ON {schema}.sessions (scope_key) WHERE NOT deleted;

CREATE TABLE {schema}.turns (
  n bigserial PRIMARY KEY,
  session_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  id text COLLATE "C" NOT NULL UNIQUE,
  role text NOT NULL,
  content text NOT NULL,
  parts text NOT NULL,
  metadata text NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  ${ENVELOPE},
  deleted boolean NOT NULL,
  search tsvector,
  appended_hlc text,
  UNIQUE (session_id, seq)
);
CREATE INDEX turns_recent ON {schema}.turns (created_at, id) WHERE NOT deleted;
CREATE INDEX turns_search ON {schema}.turns USING gin (search);
-- Live records too large for a tsvector (see lexical.ts): every search takes them as candidates.
CREATE INDEX turns_unindexed ON {schema}.turns (n) WHERE search IS NULL AND NOT deleted;

CREATE TABLE {schema}.skills (
  n bigserial PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  scope_key text COLLATE "C" NOT NULL,
  slug text COLLATE "C" NOT NULL,
  name text NOT NULL,
  body text NOT NULL,
  tags text NOT NULL,
  uses bigint NOT NULL,
  wins bigint NOT NULL,
  check_command text NOT NULL,
  version bigint NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  content_clock text,
  outcomes text,
  ${ENVELOPE},
  deleted boolean NOT NULL,
  search tsvector
);
CREATE INDEX skills_at ON {schema}.skills (scope_key, slug);
CREATE UNIQUE INDEX skills_live_place ON {schema}.skills (scope_key, slug) WHERE NOT deleted;
CREATE INDEX skills_by_slug ON {schema}.skills (slug, id) WHERE NOT deleted;
CREATE INDEX skills_search ON {schema}.skills USING gin (search);
CREATE INDEX skills_unindexed ON {schema}.skills (n) WHERE search IS NULL AND NOT deleted;

CREATE TABLE {schema}.memory (
  n bigserial PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  kind text NOT NULL,
  content text NOT NULL,
  scope_key text COLLATE "C" NOT NULL,
  source text NOT NULL,
  key text,
  metadata text NOT NULL,
  expires_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text NOT NULL,
  ${ENVELOPE},
  deleted boolean NOT NULL,
  search tsvector
);
CREATE INDEX memory_recent ON {schema}.memory (created_at DESC, id DESC) WHERE NOT deleted;
CREATE INDEX memory_by_scope ON {schema}.memory (scope_key) WHERE NOT deleted;
CREATE UNIQUE INDEX memory_by_key ON {schema}.memory (scope_key, key) WHERE NOT deleted AND key IS NOT NULL;
CREATE INDEX memory_expiry ON {schema}.memory (expires_at) WHERE NOT deleted AND expires_at IS NOT NULL;
CREATE INDEX memory_search ON {schema}.memory USING gin (search);
CREATE INDEX memory_unindexed ON {schema}.memory (n) WHERE search IS NULL AND NOT deleted;

-- One row per node of a live item's metadata reached through objects (see metadata.ts).
CREATE TABLE {schema}.memory_meta (
  item_n bigint NOT NULL,
  path text COLLATE "C" NOT NULL,
  type text NOT NULL,
  text_value text COLLATE "C",
  number_value double precision
);
CREATE INDEX memory_meta_text ON {schema}.memory_meta (path, type, text_value);
CREATE INDEX memory_meta_number ON {schema}.memory_meta (path, type, number_value);
CREATE INDEX memory_meta_item ON {schema}.memory_meta (item_n);

CREATE TABLE {schema}.operations (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL,
  input_hash text NOT NULL
);

-- Keys compare in collation "C" (code-point order), as the contract's. checkpoints_by_key answers at, latest
-- (the key range read backwards) and a thread's list; checkpoints_newest the list across threads.
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
  ${ENVELOPE}
);
CREATE UNIQUE INDEX checkpoints_by_key ON {schema}.checkpoints (thread_id, namespace, checkpoint_id);
CREATE INDEX checkpoints_newest ON {schema}.checkpoints (checkpoint_id, thread_id, namespace);

-- The primary key answers a checkpoint's writes in (task_id, idx) order.
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

-- The history index (docs/contract.md §7, "History"): which state events carry each session, turn, skill and
-- memory item, so the versions of one record are found without reading the log.
CREATE TABLE {schema}.record_events (
  record_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  PRIMARY KEY (record_id, seq)
);

CREATE TABLE {schema}.vectors (
  target text NOT NULL,
  embedder_id text NOT NULL,
  record_id text NOT NULL,
  vector real[] NOT NULL,
  PRIMARY KEY (target, embedder_id, record_id)
);
CREATE TABLE {schema}.embedding_cache (
  embedder_id text NOT NULL,
  content_hash text NOT NULL,
  vector real[] NOT NULL,
  PRIMARY KEY (embedder_id, content_hash)
);
`;
