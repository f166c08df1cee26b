/**
 * Writing an export of any {@link Log}: its `state` stream as canonical
 * JSON Lines, read in batches, then its `retention` stream (the policies),
 * then the trailer (see `trailer.ts`). A gapped log's positions are
 * renumbered densely from 1, and each `erasedBy` mark with them, so the
 * same history exports the same from every backend (docs/contract.md §7,
 * "Positions").
 */
import { RETENTION_STREAM, STATE_STREAM } from '../log/events.js';
import type { Log, LogEvent } from '../log/log.js';
import { lowerBound } from '../records/order.js';
import { exportLine } from './lines.js';
import { type Trailer, ExportDigest, trailerLine } from './trailer.js';

/** Options of {@link exportLog}. */
export interface ExportOptions {
  /** The last seq to export. Default: the head when the export starts, so writes that arrive meanwhile are left out. */
  upTo?: number;
  /** Events read per batch. Default: 5,000. */
  batchSize?: number;
  /** Told the number of events written so far, after each batch. */
  onProgress?: (events: number) => void;
}

/**
 * Writes the export of `log` to `sink`, one chunk of whole lines (each with
 * its newline) per call, the trailer last; waits for each call. Returns the
 * trailer.
 */
export async function exportLog(log: Log, sink: (chunk: string) => Promise<void> | void, options: ExportOptions = {}): Promise<Trailer> {
  const upTo = options.upTo ?? (await log.head(STATE_STREAM));
  // Policies are few and small: the whole stream as it stands when the export starts.
  const policiesUpTo = await log.head(RETENTION_STREAM);
  const batchSize = options.batchSize ?? 5_000;
  const digest = new ExportDigest();
  const dense = log.gapped === true ? denseNumbers(log, upTo, batchSize) : undefined;
  for (const [stream, head] of [
    [STATE_STREAM, upTo],
    [RETENTION_STREAM, policiesUpTo],
  ] as const) {
    for (let after = 0; after < head; ) {
      const batch = await log.read({ stream, afterSeq: after, limit: Math.min(batchSize, head - after) });
      if (batch.length === 0) break;
      const events = batch.filter((event) => event.seq <= head);
      const lines = (stream === STATE_STREAM && dense ? await dense(events) : events).map(exportLine);
      for (const line of lines) digest.add(line);
      await sink(`${lines.join('\n')}\n`);
      after = batch[batch.length - 1]!.seq;
      options.onProgress?.(digest.events);
    }
  }
  const trailer = digest.finish();
  await sink(`${trailerLine(trailer)}\n`);
  return trailer;
}

/** The position an event's `erasedBy` mark points to, if it has one. */
function markOf(event: LogEvent): number | undefined {
  const payload = event.payload as { erasedBy?: unknown } | null;
  return typeof payload === 'object' && payload !== null && typeof payload.erasedBy === 'number' ? payload.erasedBy : undefined;
}

/**
 * The renumbering of a gapped log's `state` events up to `upTo`, given
 * batch by batch in order: each event at its rank among them, its
 * `erasedBy` mark (a later position) at that position's rank, its time
 * raised to the latest before it. A mark's rank counts the positions before
 * it, so the positions up to a mark past the batch are read ahead (and again
 * with their batches); a log without such a mark is read once.
 */
function denseNumbers(log: Log, upTo: number, batchSize: number): (batch: readonly LogEvent[]) => Promise<LogEvent[]> {
  /** Every position up to `known`, ascending. */
  const positions: number[] = [];
  let known = 0;
  const learn = (events: readonly LogEvent[]): void => {
    for (const event of events) if (event.seq > known && event.seq <= upTo) positions.push(event.seq);
    known = Math.max(known, events[events.length - 1]?.seq ?? 0);
  };
  /** 1 + how many positions precede `seq`: its rank when it is one, else the rank the next one has. */
  const rank = (seq: number): number => lowerBound(positions, seq, (a, b) => a - b) + 1;
  // Writers in parallel stamp their own clocks, so times may go back along the positions (docs/contract.md §7). Raised
  // to the latest before it, each time still selects what `at({ time })` selects on the gapped log (the longest prefix
  // stamped at or before an instant), and the export reads as a dense log's, whose times never decrease.
  let latest = '';
  return async (batch) => {
    learn(batch);
    let farthest = 0;
    for (const event of batch) farthest = Math.max(farthest, markOf(event) ?? 0);
    while (known < Math.min(upTo, farthest)) {
      const ahead = await log.read({ stream: STATE_STREAM, afterSeq: known, limit: batchSize });
      if (ahead.length === 0) known = upTo;
      learn(ahead);
    }
    return batch.map((event) => {
      latest = event.time > latest ? event.time : latest;
      const mark = markOf(event);
      return {
        ...event,
        seq: rank(event.seq),
        time: latest,
        payload: mark !== undefined ? { ...(event.payload as object), erasedBy: rank(mark) } : event.payload,
      };
    });
  };
}
