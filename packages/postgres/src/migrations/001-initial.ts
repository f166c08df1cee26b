/**
 * Version 1: the log (`streams`, `events`, `snapshots`), the store's
 * identity, and the projection tables with their lexical indexes
 * (`tsvector` of core's folded tokens, GIN-indexed) and metadata rows.
 */
import type { Migration } from './migration.js';

const ENVELOPE = `sync_version bigint NOT NULL,
  origin_instance_id text NOT NULL,
  hlc_wall bigint NOT NULL,
  hlc_counter bigint NOT NULL,
  last_writer_id text NOT NULL,
  deleted boolean NOT NULL`;

export const migration001: Migration = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE {schema}.store_meta (key text PRIMARY KEY, value text NOT NULL);
INSERT INTO {schema}.store_meta (key, value) VALUES ('log_identity', md5(random()::text || clock_timestamp()::text) || md5(random()::text));

-- One row per stream: locked FOR UPDATE by every append, so seqs are dense and commit in seq order.
CREATE TABLE {schema}.streams (stream text PRIMARY KEY, head bigint NOT NULL);
INSERT INTO {schema}.streams (stream, head) VALUES ('state', 0);

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

CREATE TABLE {schema}.snapshots (
  stream text NOT NULL,
  seq bigint NOT NULL,
  data text NOT NULL,
  PRIMARY KEY (stream, seq)
);

CREATE TABLE {schema}.projection_state (
  id integer PRIMARY KEY CHECK (id = 1),
  seq bigint NOT NULL,
  hlc_wall bigint NOT NULL,
  hlc_counter bigint NOT NULL,
  generation integer NOT NULL
);
INSERT INTO {schema}.projection_state VALUES (1, 0, 0, 0, 0);

CREATE TABLE {schema}.sessions (
  id text COLLATE "C" PRIMARY KEY,
  title text NOT NULL,
  model text NOT NULL,
  scope_key text COLLATE "C" NOT NULL,
  metadata text NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text NOT NULL,
  ${ENVELOPE}
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
  search tsvector,
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
  ${ENVELOPE},
  search tsvector
);
CREATE INDEX skills_at ON {schema}.skills (scope_key, slug);
CREATE INDEX skills_by_slug ON {schema}.skills (slug, id) WHERE NOT deleted;
CREATE INDEX skills_search ON {schema}.skills USING gin (search);
-- Live records too large for a tsvector (see lexical.ts): every search takes them as candidates.
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
  search tsvector
);
CREATE INDEX memory_recent ON {schema}.memory (created_at DESC, id DESC) WHERE NOT deleted;
CREATE INDEX memory_by_scope ON {schema}.memory (scope_key) WHERE NOT deleted;
CREATE INDEX memory_by_key ON {schema}.memory (scope_key, key) WHERE NOT deleted AND key IS NOT NULL;
CREATE INDEX memory_expiry ON {schema}.memory (expires_at) WHERE NOT deleted AND expires_at IS NOT NULL;
CREATE INDEX memory_search ON {schema}.memory USING gin (search);
-- Live records too large for a tsvector (see lexical.ts): every search takes them as candidates.
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
`,
};
