/**
 * The durable schema: the event log and the file's identity, the only
 * tables an upgrade keeps. Every event row carries a checksum, so a changed
 * row is caught on read; `validated` marks payloads this library produced
 * and validated itself, which a fold need not re-validate while the
 * checksum holds. `store_meta` holds the two schema versions and the
 * store's identity: 128 random bits made once, so a copy of the whole file
 * is the same store and an imported one a new store; a stored snapshot
 * records it, and a snapshot row copied from another database is never
 * adopted (docs/contract.md §8).
 */

/**
 * The version of the durable schema this library writes. Version 1 (files of schema 1 to 13
 * and after) lacks the origin of received events; version 2 has it (docs/contract.md §12).
 */
export const LOG_VERSION = 2;

/**
 * Upgrades a version 1 log in place: the origin of a received event (its replica, its seq and
 * its time there), NULL for the store's own events, so an own append writes what it wrote
 * before; at most one event per place.
 */
export const ORIGIN_UPGRADE_SQL = `
ALTER TABLE events ADD COLUMN origin TEXT;
ALTER TABLE events ADD COLUMN origin_seq INTEGER;
ALTER TABLE events ADD COLUMN origin_time TEXT;
CREATE UNIQUE INDEX events_origin ON events (origin, origin_seq) WHERE origin IS NOT NULL;`;

/**
 * The identity table with a new identity unless it has one: idempotent, so
 * it also upgrades the log of a file of schema 1 to 3, which had none.
 */
export const STORE_META_SQL = `
CREATE TABLE IF NOT EXISTS store_meta (
  key TEXT NOT NULL PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO store_meta (key, value) VALUES ('log_identity', lower(hex(randomblob(16))));`;

/** The durable tables of a new file: a version 1 log and its upgrade, so a new file and an upgraded one have one schema. */
export const LOG_SQL = `
CREATE TABLE events (
  position INTEGER PRIMARY KEY,
  stream TEXT NOT NULL,
  seq INTEGER NOT NULL CHECK (seq > 0),
  type TEXT NOT NULL,
  time TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  payload TEXT NOT NULL,
  checksum TEXT NOT NULL,
  validated INTEGER NOT NULL DEFAULT 0,
  actor TEXT,
  trace_id TEXT,
  span_id TEXT,
  causation_id TEXT,
  origin_instance_id TEXT,
  principal TEXT,
  UNIQUE (stream, seq)
);
${ORIGIN_UPGRADE_SQL}
${STORE_META_SQL}`;
