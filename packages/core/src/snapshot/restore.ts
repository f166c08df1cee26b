/**
 * Finding a snapshot to start from (docs/contract.md §8): the newest one that opens with
 * the codec, decodes, agrees with its stored seq and does not lie beyond the
 * stream head. Anything else is skipped and the next older one is tried.
 */
import type { Log } from '../spine/log.js';
import { STATE_STREAM } from '../spine/events.js';
import type { SnapshotCodec } from './codecs.js';
import type { Snapshot } from './snapshot.js';
import { decodeSnapshot } from './snapshot.js';

/** A snapshot that was passed over, and why. */
export interface SkippedSnapshot {
  seq: number;
  reason: string;
}

/** The result of {@link loadSnapshot}. */
export interface LoadedSnapshot {
  /** The snapshot to start from, or undefined for a full fold. */
  snapshot: Snapshot | undefined;
  /** Newer snapshots that were refused. */
  skipped: SkippedSnapshot[];
}

/** Loads the newest trustworthy snapshot of the `state` stream at or below `head`. */
export async function loadSnapshot(log: Log, codec: SnapshotCodec, head: number): Promise<LoadedSnapshot> {
  const skipped: SkippedSnapshot[] = [];
  let upToSeq = head;
  while (upToSeq >= 0) {
    const stored = await log.latestSnapshot(STATE_STREAM, { upToSeq });
    if (!stored) break;
    try {
      const snapshot = decodeSnapshot(codec.open(stored.data), stored.seq);
      if (snapshot.seq !== stored.seq) throw new Error(`inner seq ${snapshot.seq} disagrees with stored seq ${stored.seq}`);
      if (snapshot.seq > head) throw new Error(`seq ${snapshot.seq} lies beyond the stream head ${head}`);
      return { snapshot, skipped };
    } catch (error) {
      skipped.push({ seq: stored.seq, reason: error instanceof Error ? error.message : String(error) });
      upToSeq = stored.seq - 1;
    }
  }
  return { snapshot: undefined, skipped };
}
