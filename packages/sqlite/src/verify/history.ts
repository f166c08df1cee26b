/**
 * The history index against the log: `record_events` is derived from the
 * events, so the replay's index must equal it row for row.
 */
import type { Connection } from '../connection.js';
import { allRecordEvents } from '../history.js';
import type { VerifyProblem } from './report.js';

/** Differences between the stored history index and the one a replay built; at most a few listed. */
export function checkHistoryIndex(conn: Connection, replayed: ReadonlyMap<string, readonly number[]>): VerifyProblem[] {
  const expected = new Map<string, readonly number[]>(replayed);
  const stored = new Map<string, number[]>();
  for (const row of allRecordEvents(conn)) {
    const seqs = stored.get(row.record_id);
    if (seqs) seqs.push(row.seq);
    else stored.set(row.record_id, [row.seq]);
  }
  const differing: string[] = [];
  for (const id of new Set([...expected.keys(), ...stored.keys()])) {
    if ((expected.get(id) ?? []).join(',') !== (stored.get(id) ?? []).join(',')) differing.push(id);
  }
  if (differing.length === 0) return [];
  const listed = differing
    .slice(0, 5)
    .map((id) => JSON.stringify(id))
    .join(', ');
  return [
    {
      part: 'tables',
      object: 'record_events',
      message: `the history index differs from the log for ${differing.length} record(s): ${listed}${differing.length > 5 ? ', …' : ''}`,
      repair: 'rebuild',
    },
  ];
}
