/**
 * The history index's rows (docs/contract.md §7, "History"), derived from
 * events by the one definition of which records an event carries
 * (`changeRecordIds`): what a backend writes with each event, refills on a
 * rebuild and what verify compares with a replay.
 */
import { changeRecordIds } from './changes.js';
import { decodeStateEvent } from './decode.js';
import type { LogEvent } from './log.js';
import type { UpcasterRegistry } from './upcasters.js';

/** One row of the history index: the event at `seq` carries the record `recordId`. */
export interface HistoryRow {
  recordId: string;
  seq: number;
}

/**
 * The index rows of `events` (of the `state` stream). Decoded as trusted:
 * every row's checksum was checked on read, and the fold or replay that
 * follows validates what it applies.
 */
export function historyRows(events: readonly LogEvent[], upcasters?: UpcasterRegistry): HistoryRow[] {
  const rows: HistoryRow[] = [];
  for (const event of events) {
    const change = decodeStateEvent(event, upcasters ? { upcasters, trusted: true } : { trusted: true });
    for (const recordId of changeRecordIds(change)) rows.push({ recordId, seq: event.seq });
  }
  return rows;
}
