/**
 * The backend-independent part of `verify()`: the `state` stream read back
 * (dense seqs, each row's checksum, full payload validation) and replayed in
 * memory; the tables must equal the replay at their seq, byte for byte (the
 * canonical snapshot text), and every stored snapshot a loader would trust
 * must equal the replay at its seq. {@link ReplayCheck} is fed by the
 * backend, synchronously (SQLite, inside one read transaction) or through
 * {@link checkReplay} over a log view of one consistent transaction.
 */
import { CorruptionError } from '../errors.js';
import { decodeStateEvent } from '../log/decode.js';
import { ErasureMarks } from '../log/erasure-marks.js';
import { STATE_STREAM } from '../log/events.js';
import { canonicalJson } from '../log/json.js';
import { type Log, type LogEvent, type StoredSnapshot, follows } from '../log/log.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import { InMemoryState } from '../fold/state.js';
import { eventAt, identityOf, sha256Hex } from '../snapshot/binding.js';
import { type SnapshotCodec, plainCodec } from '../snapshot/codecs.js';
import { type SkippedSnapshot, type SnapshotTrustContext, skippedSnapshot, trustStoredSnapshot } from '../snapshot/restore.js';
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

/** What a replay check compares against. */
export interface ReplayCheckOptions {
  /** The tables, captured in the same consistent read as the log. */
  tables: Snapshot;
  /** The head of the `state` stream in that read. */
  head: number;
  /** Opens stored snapshots. Default: plain. */
  codec?: SnapshotCodec | undefined;
  upcasters?: UpcasterRegistry | undefined;
  /** The log's `state` seqs are positions that may skip numbers ({@link Log.gapped}). */
  gapped?: boolean | undefined;
}

/** A problem of the log, which only a backup repairs. */
const logProblem = (message: string): VerifyProblem => ({ part: 'log', object: 'events', message, repair: 'restore-backup' });

/** An error as one line. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Replays the `state` stream batch by batch and compares: give it every
 * stored snapshot first ({@link storedSnapshot}), then the events in seq
 * order ({@link apply}), then take the {@link result}.
 */
export class ReplayCheck {
  readonly #state = new InMemoryState();
  readonly #marks = new ErasureMarks();
  /** The first false `erasedBy` mark found, if any. */
  #forged: string | undefined;
  /** Digests of the trusted stored snapshots, by seq. */
  readonly #stored = new Map<number, string>();
  readonly #skipped: SkippedSnapshot[] = [];
  /** Whether each trusted stored snapshot equals the replay at its seq. */
  readonly #results = new Map<number, boolean>();
  readonly #problems: VerifyProblem[] = [];
  #folded: Snapshot | undefined;
  #started = false;
  #readable = true;

  constructor(private readonly options: ReplayCheckOptions) {}

  /** The seq replayed so far. */
  get seq(): number {
    return this.#state.seq;
  }

  /** The trust context of a stored snapshot, completed with the codec and head. */
  trust(ctx: Pick<SnapshotTrustContext, 'identity' | 'eventAt' | 'row'>): SnapshotTrustContext {
    return { codec: this.options.codec ?? plainCodec, head: this.options.head, ...ctx };
  }

  /** Checks one stored `state` snapshot as a loader would: trusted ones are compared with the replay at their seq. */
  storedSnapshot(row: Pick<StoredSnapshot, 'seq' | 'data'>, trust: SnapshotTrustContext): void {
    try {
      this.#stored.set(row.seq, sha256Hex(encodeSnapshot(trustStoredSnapshot(row, trust))));
    } catch (error) {
      this.#skipped.push(skippedSnapshot(row.seq, error));
    }
  }

  /** Applies the next events of the stream; a gap or an undecodable event throws a `CorruptionError`. */
  apply(events: readonly LogEvent[]): void {
    this.#start();
    const state = this.#state;
    for (const event of events) {
      if (!follows(this.options, state.seq, event.seq))
        throw new CorruptionError(STATE_STREAM, event.seq, `expected seq ${state.seq + 1}: the stream has a gap`);
      const change = decodeStateEvent(event, { upcasters: this.options.upcasters });
      state.apply(change, event.seq);
      this.#forged ??= this.#marks.add(change, event.seq);
      this.#compareStored();
      if (event.seq === this.options.tables.seq) this.#folded = state.capture();
    }
  }

  /**
   * The history index of the replay (record id → seqs), when the log was
   * replayed up to the tables' seq: a backend compares its own index with it.
   */
  replayedHistory(): ReadonlyMap<string, readonly number[]> | undefined {
    return this.#readable && this.#state.seq === this.options.tables.seq ? this.#state.history : undefined;
  }

  /** Records that the stream cannot be replayed past the seq reached. */
  failed(error: unknown): void {
    this.#readable = false;
    this.#problems.push(logProblem(`the log cannot be replayed: ${describeError(error)}`));
  }

  /** Records that another stream cannot be read back. */
  streamFailed(stream: string, error: unknown): void {
    this.#problems.push(logProblem(`stream ${stream} cannot be read back: ${describeError(error)}`));
  }

  /** The outcome: problems of the log, then the tables' differences, then the stored snapshots'. */
  result(): ReplayResult {
    this.#start();
    const { tables, head } = this.options;
    const problems = [...this.#problems];
    const forged = this.#forged ?? (this.#readable && this.#state.seq === head ? this.#marks.finish()?.reason : undefined);
    if (forged !== undefined) problems.push(logProblem(`a purge mark is false: ${forged}`));
    if (this.#readable && this.#state.seq < head) problems.push(logProblem(`the stream's head is seq ${head}, but its events end at seq ${this.#state.seq}`));
    const folded = this.#folded;
    const differences: string[] = [];
    if (this.#readable && tables.seq > head) differences.push(`the tables are at seq ${tables.seq}, the log ends at ${head}`);
    else if (folded && encodeSnapshot(folded) !== encodeSnapshot(tables)) {
      differences.push(...diffSnapshots(tables, folded));
      if (differences.length === 0) differences.push('the canonical texts differ');
    }
    for (const d of differences) problems.push({ part: 'tables', message: d, repair: 'rebuild' });
    const snapshotProblem = (message: string): VerifyProblem => ({ part: 'snapshots', object: 'snapshots', message, repair: 'export-import' });
    for (const [seq, matches] of this.#results) if (!matches) problems.push(snapshotProblem(`the stored snapshot at seq ${seq} differs from the log`));
    for (const s of this.#skipped) if (s.damaged) problems.push(snapshotProblem(`the stored snapshot at seq ${s.seq} is damaged: ${s.reason}`));
    const newest = [...this.#results.keys()].sort((a, b) => b - a)[0];
    const text = folded ? encodeSnapshot(folded) : '';
    return {
      problems,
      events: this.#state.seq,
      tablesSeq: tables.seq,
      sha256: folded ? sha256Hex(text) : '',
      bytes: Buffer.byteLength(text),
      differences,
      storedSnapshot: newest === undefined ? null : { seq: newest, matches: this.#results.get(newest)!, codec: (this.options.codec ?? plainCodec).id },
      skippedSnapshots: this.#skipped,
    };
  }

  /** Before the first event: the empty state is seq 0, which tables or a snapshot may stand at. */
  #start(): void {
    if (this.#started) return;
    this.#started = true;
    if (this.options.tables.seq === 0) this.#folded = this.#state.capture();
    this.#compareStored();
  }

  #compareStored(): void {
    const digest = this.#stored.get(this.#state.seq);
    if (digest !== undefined) this.#results.set(this.#state.seq, sha256Hex(encodeSnapshot(this.#state.capture())) === digest);
  }
}

/** The part of a log a replay check reads, all from one consistent read. */
export type ReplaySource = Pick<Log, 'head' | 'read' | 'latestSnapshot' | 'identity' | 'gapped'>;

/** Options of {@link checkReplay}. */
export interface CheckReplayOptions extends Omit<ReplayCheckOptions, 'head'> {
  /** The streams besides `state`, read back for their checksums and seq order. */
  otherStreams?: readonly string[];
  /** Called while the log is replayed, with the events done and the total. */
  onProgress?: ((done: number, total: number) => void) | undefined;
  /** The backend's stored history index, in the same read: compared with the replay's when the log replayed to the tables' seq. */
  historyIndex?: (() => Promise<Iterable<HistoryRow>>) | undefined;
}

/**
 * Replays `source` (a view of one consistent read: a backend's read-only
 * transaction) against `options.tables` and its stored snapshots.
 */
export async function checkReplay(source: ReplaySource, options: CheckReplayOptions): Promise<ReplayResult> {
  const head = await source.head(STATE_STREAM);
  const check = new ReplayCheck({ ...options, head, gapped: source.gapped });
  const ownIdentity = await identityOf(source);
  for (let upToSeq = head; upToSeq >= 0; ) {
    const stored = await source.latestSnapshot(STATE_STREAM, { upToSeq });
    if (!stored) break;
    let event: LogEvent | undefined;
    try {
      event = await eventAt(source, stored.seq);
    } catch {
      // An unreadable event fails the binding check below, and the replay reports the event itself.
    }
    // Read ahead: the trust check is synchronous.
    const rows = await storedRows(source, await storedHeadRows(source, stored));
    check.storedSnapshot(stored, check.trust({ identity: ownIdentity, eventAt: (seq) => (seq === stored.seq ? event : undefined), row: rows }));
    upToSeq = stored.seq - 1;
  }
  try {
    while (check.seq < head) {
      const batch = await source.read({ stream: STATE_STREAM, afterSeq: check.seq, limit: REPLAY_BATCH });
      if (batch.length === 0) break;
      check.apply(batch);
      options.onProgress?.(check.seq, head);
    }
  } catch (error) {
    check.failed(error);
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
      check.streamFailed(stream, error);
    }
  }
  const result = check.result();
  const replayed = check.replayedHistory();
  if (replayed && options.historyIndex) result.problems.push(...checkHistoryIndex(await options.historyIndex(), replayed));
  return result;
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
