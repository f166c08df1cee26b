/**
 * Version 13: history runs (`history-runs.ts`): a session's history in
 * rows clustered by session, so a long session's history reads a few pages
 * rather than one page per event. `versions` is the run's compact text;
 * `last_seq` the seq of its last event; `last_turn` the session's highest
 * turn number when it was written. Nothing else changes, and an append
 * writes no row: a run is written once per `RUN_LENGTH` versions.
 * The runs of a file written before are written here, from its log.
 */
import { extendAllHistoryRuns } from '../history-runs.js';
import type { Migration } from './migration.js';

export const migration013: Migration = {
  version: 13,
  name: 'history-runs',
  sql: `
CREATE TABLE history_runs (
  session_id TEXT NOT NULL,
  last_seq INTEGER NOT NULL,
  last_turn INTEGER NOT NULL,
  versions TEXT NOT NULL,
  PRIMARY KEY (session_id, last_seq)
) WITHOUT ROWID;`,
  after: extendAllHistoryRuns,
};
