/**
 * Version 3: derived vectors. One sqlite-vec `vec0` table per embedder
 * (`memory_vec_<no>`, created on first use, rowid = `memory.n`), listed in
 * `vector_indexes`; `memory_vectors` says which live items have one; the
 * embedding cache keeps vectors by `(embedder id, content hash)` across
 * rebuilds. Nothing here is needed when no embedder is configured.
 */
import type { Migration } from './migration.js';

export const migration003: Migration = {
  version: 3,
  name: 'vectors',
  sql: `
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

CREATE TABLE embedding_cache (
  position INTEGER PRIMARY KEY,
  embedder_id TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  UNIQUE (embedder_id, content_hash)
);
`,
};
