/**
 * Version 5: the history index (docs/contract.md §7, "History"): which
 * `state` events carry each session, turn, skill and memory item, so the
 * versions of one record are found without reading the log. Written in the
 * transaction of each event; events stored before are indexed here from
 * their payloads.
 */
import type { Migration } from './migration.js';

export const migration005: Migration = {
  version: 5,
  name: 'record-history',
  sql: `
CREATE TABLE {schema}.record_events (
  record_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  PRIMARY KEY (record_id, seq)
);
INSERT INTO {schema}.record_events (record_id, seq)
SELECT DISTINCT r.id, e.seq
FROM {schema}.events e
CROSS JOIN LATERAL (SELECT e.payload::jsonb AS p) j
CROSS JOIN LATERAL (
  SELECT j.p #>> '{session,id}' UNION ALL SELECT j.p #>> '{turn,id}' UNION ALL SELECT j.p #>> '{turn,sessionId}' UNION ALL SELECT j.p #>> '{skill,id}' UNION ALL SELECT j.p #>> '{item,id}'
  UNION ALL SELECT x ->> 'id' FROM jsonb_array_elements(CASE jsonb_typeof(j.p -> 'turns') WHEN 'array' THEN j.p -> 'turns' ELSE '[]'::jsonb END) x
  UNION ALL SELECT x ->> 'id' FROM jsonb_array_elements(CASE jsonb_typeof(j.p -> 'removed') WHEN 'array' THEN j.p -> 'removed' ELSE '[]'::jsonb END) x
  UNION ALL SELECT x ->> 'id' FROM jsonb_array_elements(CASE jsonb_typeof(j.p -> 'added') WHEN 'array' THEN j.p -> 'added' ELSE '[]'::jsonb END) x
) r(id)
WHERE e.stream = 'state' AND r.id IS NOT NULL;
`,
};
