/**
 * The history index against the log: a backend's stored index is derived
 * from the events, so the one a replay builds must equal it row for row.
 */
import { entryFor } from '../map-entry.js';
import type { HistoryRow } from '../log/history-index.js';
import { type VerifyProblem, listed } from './report.js';

/**
 * Differences between the stored history index (`stored`, any order) and
 * the one a replay built (`replayed`: record id → ascending seqs), as one
 * `record_events` problem listing a few of the records that differ.
 */
export function checkHistoryIndex(stored: Iterable<HistoryRow>, replayed: ReadonlyMap<string, readonly number[]>): VerifyProblem[] {
  const byRecord = new Map<string, number[]>();
  for (const row of stored) entryFor(byRecord, row.recordId, () => []).push(row.seq);
  const differing: string[] = [];
  for (const id of new Set([...replayed.keys(), ...byRecord.keys()])) {
    const seqs = (byRecord.get(id) ?? []).sort((a, b) => a - b);
    if ((replayed.get(id) ?? []).join(',') !== seqs.join(',')) differing.push(id);
  }
  if (differing.length === 0) return [];
  const message = `the history index differs from the log for ${differing.length} record(s): ${listed(differing.map((id) => JSON.stringify(id)))}`;
  return [{ part: 'tables', object: 'record_events', message, repair: 'rebuild' }];
}
