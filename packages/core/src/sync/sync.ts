/** `sync(a, b)`: two stores exchange what each lacks, batch by batch (docs/contract.md §12). */
import { ValidationError } from '../errors.js';
import type { EventSourcedProvider } from '../provider/types.js';

/** A store that syncs: what {@link sync} calls. */
export type SyncPeer = Pick<EventSourcedProvider, 'vector' | 'changes' | 'receive'>;

/** How far a sync has come: events received by each side so far, and batches. */
export interface SyncSummary {
  /** Events `a` received from `b`. */
  toA: number;
  /** Events `b` received from `a`. */
  toB: number;
  /** Batches received, each one transaction. */
  batches: number;
}

/** Options of {@link sync}. */
export interface SyncOptions {
  /** Events per batch (one transaction each). Default: 1,000. */
  batchSize?: number;
  /** Told the summary so far after each batch. */
  onProgress?: (progress: SyncSummary) => void;
  /** Stops the sync before its next batch, with the signal's reason; the batches received stay. */
  signal?: AbortSignal;
}

/** The default number of events per batch. */
export const SYNC_BATCH = 1_000;

/**
 * Pulls into `a` what `b` holds and `a` lacks, then pushes into `b` what `a` holds and `b`
 * lacks, each batch one transaction: an interrupted sync resumes where it stopped, and a
 * finished one run again sends nothing and writes nothing.
 */
export async function sync(a: SyncPeer, b: SyncPeer, options: SyncOptions = {}): Promise<SyncSummary> {
  const batchSize = options.batchSize ?? SYNC_BATCH;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new ValidationError('batchSize', 'must be a positive integer');
  const summary: SyncSummary = { toA: 0, toB: 0, batches: 0 };
  for (const [from, to, side] of [[b, a, 'toA'] as const, [a, b, 'toB'] as const]) {
    for (;;) {
      options.signal?.throwIfAborted();
      const batch = await from.changes(await to.vector(), { limit: batchSize });
      if (batch.length === 0) break;
      const { received } = await to.receive(batch);
      summary[side] += received;
      summary.batches += 1;
      options.onProgress?.({ ...summary });
      // Nothing new although the vector lacked it: the sender is answering something else than asked.
      if (received === 0) break;
      // Fewer than asked for: the sender had nothing more, and asking again would cost two more calls.
      if (batch.length < batchSize) break;
    }
  }
  return summary;
}
