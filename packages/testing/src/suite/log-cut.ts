/** A log cut at a seq, written independently of core's time travel: the reference a view, a diff or a patched snapshot is held to. */
import { encodeSnapshot, type EventSourcedProvider, type Log, ReadOnlyViewError, type Snapshot, STATE_STREAM } from '@agentstate/core';
import { foldLog } from '@agentstate/core/backend';
import { expect } from 'vitest';

/** A view of `log` that answers with `overrides` where given and passes every other call on to `log`. */
export function logWith(log: Log, overrides: Partial<Omit<Log, 'gapped'>>): Log {
  return {
    ...(log.gapped === true ? { gapped: true } : {}),
    identity: () => log.identity(),
    append: (input) => log.append(input),
    read: (query) => log.read(query),
    head: (stream) => log.head(stream),
    saveSnapshot: (snapshot) => log.saveSnapshot(snapshot),
    latestSnapshot: (stream, options) => log.latestSnapshot(stream, options),
    ...overrides,
  };
}

/** `log` as it was at `seq`, without snapshots (a fold of it replays every event). */
export function cutAt(log: Log, seq: number): Log {
  const readOnly = () => Promise.reject(new ReadOnlyViewError('the reference cut of the log is read-only'));
  return logWith(log, {
    append: readOnly,
    saveSnapshot: readOnly,
    latestSnapshot: async () => undefined,
    head: async (stream) => (stream === STATE_STREAM ? Math.min(seq, await log.head(stream)) : 0),
    read: async (query) => (query.stream === STATE_STREAM ? (await log.read(query)).filter((e) => e.seq <= seq) : []),
  });
}

/** The projection of a fresh replay, from seq 1 and no snapshot, of `log` cut at `seq`. */
export async function replayedAt(log: Log, seq: number): Promise<Snapshot> {
  return (await foldLog(cutAt(log, seq), { fromScratch: true })).state.capture();
}

/** The view of `p` at `seq` is at that seq and captures, byte for byte, the replay of the log cut there. */
export async function expectViewIsReplay(p: EventSourcedProvider, seq: number, label = `view at seq ${seq}`): Promise<void> {
  const view = await p.at({ seq });
  expect(view.seq, label).toBe(seq);
  expect(encodeSnapshot(await view.capture()), label).toBe(encodeSnapshot(await replayedAt(p.log, seq)));
}
