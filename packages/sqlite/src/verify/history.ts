/**
 * The history index against the log: `record_events` is derived from the
 * events, so the replay's index must equal it row for row (core's check).
 */
import { checkHistoryIndex as compareHistoryIndex } from '@agentstate/core/backend';
import type { Connection } from '../connection.js';
import { allRecordEvents } from '../history.js';
import type { VerifyProblem } from './report.js';

/** Differences between the stored history index and the one a replay built; at most a few listed. */
export function checkHistoryIndex(conn: Connection, replayed: ReadonlyMap<string, readonly number[]>): VerifyProblem[] {
  return compareHistoryIndex(
    allRecordEvents(conn).map((row) => ({ recordId: row.record_id, seq: row.seq })),
    replayed,
  );
}
