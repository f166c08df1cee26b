/**
 * A log cut at a seq, written independently of core's time travel: the
 * reference a view, a diff or a patched snapshot is held to.
 */
import type { Log } from '@agentstate/core';
import { ReadOnlyViewError, STATE_STREAM } from '@agentstate/core';

/** `log` as it was at `seq`, without snapshots (a fold of it replays every event). */
export function cutAt(log: Log, seq: number): Log {
  return {
    ...(log.gapped === true ? { gapped: true } : {}),
    identity: () => log.identity(),
    append: () => Promise.reject(new ReadOnlyViewError('the reference cut of the log is read-only')),
    saveSnapshot: () => Promise.reject(new ReadOnlyViewError('the reference cut of the log is read-only')),
    latestSnapshot: async () => undefined,
    head: async (stream) => (stream === STATE_STREAM ? Math.min(seq, await log.head(stream)) : 0),
    read: async (query) => (query.stream === STATE_STREAM ? (await log.read(query)).filter((e) => e.seq <= seq) : []),
  };
}
