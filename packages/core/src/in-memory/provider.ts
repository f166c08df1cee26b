/**
 * The in-memory provider: zero setup, the reference every other backend is
 * held to, and what `replay` returns.
 */
import type { Log } from '../log/log.js';
import { InMemoryLog } from '../log/in-memory-log.js';
import type { StateProviderOptions } from '../provider/options.js';
import { createStateProvider } from '../provider/state-provider.js';
import type { EventSourcedProvider } from '../provider/types.js';
import { systemClock } from '../time/clock.js';
import { InMemoryBackend } from './backend.js';
import { type FoldOptions, foldLog } from '../fold/fold.js';

/** Options of {@link createInMemoryProvider}. */
export interface InMemoryProviderOptions extends StateProviderOptions {
  /**
   * The log to append to; default, a new {@link InMemoryLog} on `clock`. It must
   * be empty: to continue a log that has history, use {@link replay}.
   */
  log?: Log;
}

/** A provider whose read model lives in memory over an empty log. */
export function createInMemoryProvider(options: InMemoryProviderOptions = {}): EventSourcedProvider {
  const log = options.log ?? new InMemoryLog({ clock: options.clock ?? systemClock });
  return createStateProvider(new InMemoryBackend(log, undefined, options.snapshotCodec), options);
}

/** Options of {@link replay}. */
export type ReplayOptions = StateProviderOptions & Pick<FoldOptions, 'fromScratch' | 'batchSize'>;

/**
 * Folds the `state` stream of `log` (from its newest trustworthy snapshot)
 * into a fresh in-memory provider that reads like the live one and continues
 * the same stream on new writes. Its clock starts past every stored HLC.
 */
export async function replay(log: Log, options: ReplayOptions = {}): Promise<EventSourcedProvider> {
  // The provider keeps the log: the history index of the folded events is read from it when first asked for.
  const { state } = await foldLog(log, { ...options, history: false });
  return createStateProvider(new InMemoryBackend(log, state, options.snapshotCodec), options);
}
