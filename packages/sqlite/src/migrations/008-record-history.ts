/**
 * Version 8: the history index (docs/contract.md §7, "History"): which
 * `state` events carry each session, turn, skill and memory item, so the
 * versions of one record are found without reading the log. One row per
 * record and event, clustered by record id (`WITHOUT ROWID`), written in
 * the transaction of each event. Files written before are indexed here from
 * their payloads (version 1 payloads use the same keys).
 */
import type { Migration } from './migration.js';

export const migration008: Migration = {
  version: 8,
  name: 'record-history',
  sql: `
CREATE TABLE record_events (
  record_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (record_id, seq)
) WITHOUT ROWID;

INSERT OR IGNORE INTO record_events (record_id, seq)
SELECT json_extract(payload, '$.session.id'), seq FROM events WHERE stream = 'state' AND json_extract(payload, '$.session.id') IS NOT NULL;
INSERT OR IGNORE INTO record_events (record_id, seq)
SELECT json_extract(payload, '$.turn.id'), seq FROM events WHERE stream = 'state' AND json_extract(payload, '$.turn.id') IS NOT NULL;
INSERT OR IGNORE INTO record_events (record_id, seq)
SELECT json_extract(payload, '$.turn.sessionId'), seq FROM events WHERE stream = 'state' AND json_extract(payload, '$.turn.sessionId') IS NOT NULL;
INSERT OR IGNORE INTO record_events (record_id, seq)
SELECT json_extract(payload, '$.skill.id'), seq FROM events WHERE stream = 'state' AND json_extract(payload, '$.skill.id') IS NOT NULL;
INSERT OR IGNORE INTO record_events (record_id, seq)
SELECT json_extract(payload, '$.item.id'), seq FROM events WHERE stream = 'state' AND json_extract(payload, '$.item.id') IS NOT NULL;
INSERT OR IGNORE INTO record_events (record_id, seq)
SELECT json_extract(t.value, '$.id'), e.seq FROM events e, json_each(e.payload, '$.turns') t WHERE e.stream = 'state';
INSERT OR IGNORE INTO record_events (record_id, seq)
SELECT json_extract(t.value, '$.id'), e.seq FROM events e, json_each(e.payload, '$.removed') t WHERE e.stream = 'state';
INSERT OR IGNORE INTO record_events (record_id, seq)
SELECT json_extract(t.value, '$.id'), e.seq FROM events e, json_each(e.payload, '$.added') t WHERE e.stream = 'state';
`,
};
