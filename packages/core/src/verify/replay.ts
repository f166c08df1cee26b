/**
 * The backend-independent part of `verify()`: the `state` stream read back
 * (dense seqs, each row's checksum, full payload validation) and replayed in
 * memory; the tables must equal the replay at their seq, byte for byte (the
 * canonical snapshot text), and every stored snapshot a loader would trust
 * must equal the replay at its seq. A backend runs {@link checkReplay} over
 * a log view of one consistent transaction.
 */
import { CorruptionError } from '../errors.js';
import { decodeStateEvent } from '../log/decode.js';
import { ErasureMarks } from '../log/erasure-marks.js';
import { STATE_STREAM } from '../log/events.js';
import { canonicalJson } from '../log/json.js';
import { type Log, type LogEvent, follows } from '../log/log.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import { InMemoryState } from '../fold/state.js';
import { eventAt, identityOf, sha256Hex } from '../snapshot/binding.js';
import { type SnapshotCodec, plainCodec } from '../snapshot/codecs.js';
import { type SkippedSnapshot, skippedSnapshot, trustStoredSnapshot } from '../snapshot/restore.js';
import { storedHeadRows, storedRows } from '../snapshot/heads.js';
import { type Snapshot, encodeSnapshot } from '../snapshot/snapshot.js';
import type { HistoryRow } from '../log/history-index.js';
import { checkHistoryIndex } from './history.js';
import { type VerifyProblem, type VerifyReport, listed } from './report.js';

/** Events read per batch. */
export const REPLAY_BATCH = 5_000;

/** The replay's part of a verification report, with the problems it found. */
export type ReplayResult = Pick<VerifyReport, 'events' | 'tablesSeq' | 'sha256' | 'bytes' | 'differences' | 'storedSnapshot' | 'skippedSnapshots'> & {
  problems: VerifyProblem[];
};

/** A problem of the log, which only a backup repairs. */
const logProblem = (message: string): VerifyProblem => ({ part: 'log', object: 'events', message, repair: 'restore-backup' });

/** An error as one line. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The part of a log a replay check reads, all from one consistent read. */
export type ReplaySource = Pick<Log, 'head' | 'read' | 'latestSnapshot' | 'identity' | 'gapped'>;

/** Options of {@link checkReplay}. */
export interface CheckReplayOptions {
  /** The tables, captured in the same consistent read as the log. */
  tables: Snapshot;
  /** Opens stored snapshots. Default: plain. */
  codec?: SnapshotCodec | undefined;
  upcasters?: UpcasterRegistry | undefined;
  /** The streams besides `state`, read back for their checksums and seq order. */
  otherStreams?: readonly string[];
  /** Called while the log is replayed, with the events done and the total. */
  onProgress?: ((done: number, total: number) => void) | undefined;
  /** The backend's stored history index, in the same read: compared with the replay's when the log replayed to the tables' seq. */
  historyIndex?: (() => Promise<Iterable<HistoryRow>>) | undefined;
}

/**
 * Replays `source` (a view of one consistent read: a backend's read-only
 * transaction) against `options.tables` and its stored snapshots: every
 * stored snapshot a loader would trust is checked first, then the events are
 * replayed in seq order, each trusted snapshot compared with the replay at
 * its seq. Problems of the log come first, then the tables' differences, then
 * the stored snapshots'.
 */
export async function checkReplay(source: ReplaySource, options: CheckReplayOptions): Promise<ReplayResult> {
  const { tables } = options;
  const codec = options.codec ?? plainCodec;
  const head = await source.head(STATE_STREAM);
  const ownIdentity = await identityOf(source);
  /** Digests of the trusted stored snapshots, by seq. */
  const stored = new Map<number, string>();
  const skipped: SkippedSnapshot[] = [];
  for (let upToSeq = head; upToSeq >= 0; ) {
    const row = await source.latestSnapshot(STATE_STREAM, { upToSeq });
    if (!row) break;
    let event: LogEvent | undefined;
    try {
      event = await eventAt(source, row.seq);
    } catch {
      // An unreadable event fails the binding check below, and the replay reports the event itself.
    }
    // Read ahead: the trust check is synchronous.
    const rows = await storedRows(source, await storedHeadRows(source, row));
    try {
      const snapshot = trustStoredSnapshot(row, { codec, head, identity: ownIdentity, eventAt: (seq) => (seq === row.seq ? event : undefined), row: rows });
      stored.set(row.seq, sha256Hex(encodeSnapshot(snapshot)));
    } catch (error) {
      skipped.push(skippedSnapshot(row.seq, error));
    }
    upToSeq = row.seq - 1;
  }

  const state = new InMemoryState();
  const marks = new ErasureMarks();
  /** Whether each trusted stored snapshot equals the replay at its seq. */
  const results = new Map<number, boolean>();
  const compareStored = (): void => {
    const digest = stored.get(state.seq);
    if (digest !== undefined) results.set(state.seq, sha256Hex(encodeSnapshot(state.capture())) === digest);
  };
  // The empty state is seq 0, which tables or a snapshot may stand at.
  let folded = tables.seq === 0 ? state.capture() : undefined;
  compareStored();
  const problems: VerifyProblem[] = [];
  /** The first false `erasedBy` mark found, if any. */
  let forged: string | undefined;
  let readable = true;
  try {
    while (state.seq < head) {
      const batch = await source.read({ stream: STATE_STREAM, afterSeq: state.seq, limit: REPLAY_BATCH });
      if (batch.length === 0) break;
      for (const event of batch) {
        if (!follows(source, state.seq, event.seq)) throw new CorruptionError(STATE_STREAM, event.seq, `expected seq ${state.seq + 1}: the stream has a gap`);
        const change = decodeStateEvent(event, { upcasters: options.upcasters });
        state.apply(change, event.seq);
        forged ??= marks.add(change, event.seq);
        compareStored();
        if (event.seq === tables.seq) folded = state.capture();
      }
      options.onProgress?.(state.seq, head);
    }
  } catch (error) {
    readable = false;
    problems.push(logProblem(`the log cannot be replayed: ${describeError(error)}`));
  }
  for (const stream of options.otherStreams ?? []) {
    let seq = 0;
    try {
      for (;;) {
        const batch = await source.read({ stream, afterSeq: seq, limit: REPLAY_BATCH });
        if (batch.length === 0) break;
        for (const event of batch) {
          if (event.seq !== seq + 1) throw new CorruptionError(stream, event.seq, `expected seq ${seq + 1}: the stream has a gap`);
          seq = event.seq;
        }
      }
    } catch (error) {
      problems.push(logProblem(`stream ${stream} cannot be read back: ${describeError(error)}`));
    }
  }

  forged ??= readable && state.seq === head ? marks.finish()?.reason : undefined;
  if (forged !== undefined) problems.push(logProblem(`a purge mark is false: ${forged}`));
  if (readable && state.seq < head) problems.push(logProblem(`the stream's head is seq ${head}, but its events end at seq ${state.seq}`));
  const differences: string[] = [];
  if (readable && tables.seq > head) differences.push(`the tables are at seq ${tables.seq}, the log ends at ${head}`);
  else if (folded && encodeSnapshot(folded) !== encodeSnapshot(tables)) {
    differences.push(...diffSnapshots(tables, folded));
    if (differences.length === 0) differences.push('the canonical texts differ');
  }
  for (const d of differences) problems.push({ part: 'tables', message: d, repair: 'rebuild' });
  const snapshotProblem = (message: string): VerifyProblem => ({ part: 'snapshots', object: 'snapshots', message, repair: 'export-import' });
  for (const [seq, matches] of results) if (!matches) problems.push(snapshotProblem(`the stored snapshot at seq ${seq} differs from the log`));
  for (const s of skipped) if (s.damaged) problems.push(snapshotProblem(`the stored snapshot at seq ${s.seq} is damaged: ${s.reason}`));
  // The history index of the replay (record id → seqs), when the log was replayed up to the tables' seq.
  if (readable && state.seq === tables.seq && options.historyIndex) problems.push(...checkHistoryIndex(await options.historyIndex(), state.history));
  const newest = [...results.keys()].sort((a, b) => b - a)[0];
  const text = folded ? encodeSnapshot(folded) : '';
  return {
    problems,
    events: state.seq,
    tablesSeq: tables.seq,
    sha256: folded ? sha256Hex(text) : '',
    bytes: Buffer.byteLength(text),
    differences,
    storedSnapshot: newest === undefined ? null : { seq: newest, matches: results.get(newest)!, codec: codec.id },
    skippedSnapshots: skipped,
  };
}

/** What differs between two snapshots, collection by collection, a few keys each. */
export function diffSnapshots(tables: Snapshot, folded: Snapshot): string[] {
  const out: string[] = [];
  if (tables.seq !== folded.seq) out.push(`the tables are at seq ${tables.seq}, the log at ${folded.seq}`);
  const byId = (r: { id: string }): string => r.id;
  out.push(...compare('sessions', tables.sessions, folded.sessions, byId));
  out.push(...compare('turns', tables.turns, folded.turns, (t) => `${t.sessionId}#${t.seq}`));
  out.push(...compare('skills', tables.skills, folded.skills, byId));
  out.push(...compare('memory', tables.memory, folded.memory, byId));
  out.push(...compare('operations', tables.operations, folded.operations, byId));
  const checkpointKey = (c: { threadId: string; namespace: string; checkpointId: string }): string => JSON.stringify([c.threadId, c.namespace, c.checkpointId]);
  out.push(...compare('checkpoints', tables.checkpoints, folded.checkpoints, checkpointKey));
  out.push(...compare('checkpoint writes', tables.checkpointWrites, folded.checkpointWrites, (w) => `${checkpointKey(w)}#${w.taskId}#${w.idx}`));
  return out;
}

function compare<T>(name: string, tables: readonly T[], folded: readonly T[], key: (record: T) => string): string[] {
  const left = new Map(tables.map((r) => [key(r), canonicalJson(r)]));
  const right = new Map(folded.map((r) => [key(r), canonicalJson(r)]));
  const missing = [...right.keys()].filter((k) => !left.has(k));
  const extra = [...left.keys()].filter((k) => !right.has(k));
  const changed = [...right.keys()].filter((k) => left.has(k) && left.get(k) !== right.get(k));
  const out: string[] = [];
  if (missing.length) out.push(`${name}: ${missing.length} in the log but not in the tables (${listed(missing)})`);
  if (extra.length) out.push(`${name}: ${extra.length} in the tables but not in the log (${listed(extra)})`);
  if (changed.length) out.push(`${name}: ${changed.length} differ from the log (${listed(changed)})`);
  return out;
}
