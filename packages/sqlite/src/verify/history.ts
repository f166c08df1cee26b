/**
 * The history index against the log: `record_events` is derived from the
 * events, so the replay's index must equal it row for row (core's check);
 * and each history run must be what the log's events give.
 */
import { checkHistoryIndex as compareHistoryIndex } from '@agentstate/core/backend';
import type { Connection } from '../connection.js';
import { allRecordEvents, recordEvents } from '../history.js';
import type { RunRow } from '../history-runs.js';
import { encodeRun, runEntry, sessionsWithRuns, storedRuns } from '../history-runs.js';
import type { VerifyProblem } from './report.js';

/** Differences between the stored history index and the one a replay built; at most a few listed. */
export function checkHistoryIndex(conn: Connection, replayed: ReadonlyMap<string, readonly number[]>): VerifyProblem[] {
  return compareHistoryIndex(
    allRecordEvents(conn).map((row) => ({ recordId: row.record_id, seq: row.seq })),
    replayed,
  );
}

// Live turns on the wrong side of a run's `last_turn`: appended before its end but numbered above it, or after but below.
const MISPLACED = `SELECT count(*) AS n FROM turns WHERE session_id = ? AND appended_seq IS NOT NULL
  AND ((seq <= ? AND appended_seq > ?) OR (seq > ? AND appended_seq <= ?))`;

/** Every run against the log: its text as the log's events give it, and no live turn on the wrong side of its `last_turn`. */
export function checkHistoryRuns(conn: Connection): VerifyProblem[] {
  const problems: VerifyProblem[] = [];
  const problem = (id: string, run: RunRow, what: string): VerifyProblem => ({
    part: 'tables',
    object: 'history_runs',
    message: `the history run of session ${JSON.stringify(id)} ending at seq ${run.last_seq} ${what}`,
    repair: 'rebuild',
  });
  for (const id of sessionsWithRuns(conn)) {
    const events = recordEvents(conn, id);
    let next = 0;
    let after = 0;
    for (const run of storedRuns(conn, id)) {
      const stretch: typeof events = [];
      while (next < events.length && events[next]!.seq <= run.last_seq) stretch.push(events[next++]!);
      // A run that ends past its last event would hide the events between from history's tail.
      if (stretch.at(-1)?.seq !== run.last_seq) problems.push(problem(id, run, 'does not end at an event of the session'));
      else if (
        encodeRun(
          stretch.map((entry) => runEntry(id, entry)),
          after,
        ) !== run.versions
      )
        problems.push(problem(id, run, 'differs from the log'));
      const misplaced = (conn.prepare(MISPLACED).get(id, run.last_turn, run.last_seq, run.last_turn, run.last_seq) as { n: number }).n;
      if (misplaced > 0) problems.push(problem(id, run, `has ${misplaced} turn(s) on the wrong side of its last turn number, ${run.last_turn}`));
      after = run.last_seq;
    }
  }
  return problems;
}
