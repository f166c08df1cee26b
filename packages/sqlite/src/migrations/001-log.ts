/**
 * Version 1: the event log and its snapshots. Every event row carries a
 * checksum of its type, schema version and payload text, so a changed row
 * is caught on read; `validated` marks payloads this library produced and
 * validated itself (a provider's commits), which a fold need not re-validate
 * while the checksum holds.
 */
import type { Migration } from './migration.js';

export const migration001: Migration = {
  version: 1,
  name: 'log',
  sql: `
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

CREATE TABLE snapshots (
  position INTEGER PRIMARY KEY,
  stream TEXT NOT NULL,
  seq INTEGER NOT NULL CHECK (seq >= 0),
  data TEXT NOT NULL,
  UNIQUE (stream, seq)
);
`,
};
