/**
 * Version 4: the identity of the store, 128 random bits made once when the
 * schema reaches this version (a new file, or an older one migrated). Stored
 * snapshots record it, so a snapshot row copied from another database is
 * never adopted (docs/contract.md §8). A copy of the whole file is the same store and
 * keeps it; an imported database is a new store and gets its own.
 */
import type { Migration } from './migration.js';

export const migration004: Migration = {
  version: 4,
  name: 'identity',
  sql: `
CREATE TABLE store_meta (
  key TEXT NOT NULL PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO store_meta (key, value) VALUES ('log_identity', lower(hex(randomblob(16))));
`,
};
