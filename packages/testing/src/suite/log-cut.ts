/** A log cut at a seq and an export read back, written apart from core's time travel: what views, diffs, patched snapshots and exports are held to. */
import type { EventSourcedProvider, ExportOptions, Log, Snapshot } from '@agentstate/core';
import { encodeSnapshot, exportLog, ReadOnlyViewError, STATE_STREAM } from '@agentstate/core';
import { ExportReader, foldLog } from '@agentstate/core/backend';
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
  expect([view.seq, encodeSnapshot(await view.capture())], label).toEqual([seq, encodeSnapshot(await replayedAt(p.log, seq))]);
}

/** The text of an export of `log`, as a file would hold it. */
export async function exportText(log: Log, options?: ExportOptions): Promise<string> {
  const chunks: string[] = [];
  await exportLog(log, (chunk) => void chunks.push(chunk), options);
  return chunks.join('');
}

/** The lines of an export of `log` (the trailer last), as a file would hold them. */
export async function exportLines(log: Log, options?: ExportOptions): Promise<string[]> {
  return (await exportText(log, options)).split('\n').filter((l) => l !== '');
}

/** The state an export of `log` folds to, read line by line as an import reads it. */
export async function readExport(log: Log, options?: ExportOptions): Promise<Snapshot> {
  const reader = new ExportReader();
  for (const line of await exportLines(log, options)) reader.read(line);
  reader.finish();
  return reader.state.capture();
}
