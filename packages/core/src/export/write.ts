/**
 * Writing an export of any {@link Log}: its `state` stream as canonical
 * JSON Lines, read in batches, then its `retention` stream (the policies),
 * then the trailer (see `trailer.ts`).
 */
import { RETENTION_STREAM, STATE_STREAM } from '../log/events.js';
import type { Log } from '../log/log.js';
import { exportLine } from './lines.js';
import type { Trailer } from './trailer.js';
import { ExportDigest, trailerLine } from './trailer.js';

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
  for (const [stream, head] of [
    [STATE_STREAM, upTo],
    [RETENTION_STREAM, policiesUpTo],
  ] as const) {
    for (let after = 0; after < head; ) {
      const batch = await log.read({ stream, afterSeq: after, limit: Math.min(batchSize, head - after) });
      if (batch.length === 0) break;
      const lines = batch.map(exportLine);
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
