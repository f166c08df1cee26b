/**
 * Folding a log into an {@link InMemoryState}: start from the newest trustworthy
 * snapshot, then apply every later event. `foldLog` folds a whole stream,
 * validated (an in-memory log's were validated when appended): what
 * `replay`, `verify` and the durable backends' rebuild compare against.
 * `foldTo` and `advance` fold up to a seq, for time-travel views and diffs.
 */
import { CorruptionError } from '../errors.js';
import { decodeStateEvent } from '../log/decode.js';
import { type StateChange, STATE_SCHEMA_VERSION, STATE_STREAM } from '../log/events.js';
import { InMemoryLog } from '../log/in-memory-log.js';
import { trustedRead } from '../log/trusted.js';
import { type Log, follows } from '../log/log.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import { type SnapshotCodec, plainCodec } from '../snapshot/codecs.js';
import { type SkippedSnapshot, loadSnapshot } from '../snapshot/restore.js';
import { InMemoryState } from './state.js';

/** Options of {@link foldLog}. */
export interface FoldOptions {
  /** Opens stored snapshots. Default: plain. */
  snapshotCodec?: SnapshotCodec;
  /** Migrations for older payload shapes. */
  upcasters?: UpcasterRegistry;
  /** Ignore snapshots and fold every event from seq 1. */
  fromScratch?: boolean;
  /** Events read per batch. */
  batchSize?: number;
  /**
   * Index the history of every event folded (default). False leaves the
   * folded events' seqs to be read from the log on the first history query,
   * as for the events before a snapshot: for a fold over a log that stays
   * readable (`replay`).
   */
  history?: boolean;
}

/** The folded state, with the snapshot it started from and those it skipped. */
export interface FoldResult {
  state: InMemoryState;
  /** The seq of the snapshot the fold started from (0: none). */
  snapshotSeq: number;
  skipped: SkippedSnapshot[];
}

/** Folds the `state` stream of `log`. A malformed event is a `CorruptionError` naming its seq. */
export async function foldLog(log: Log, options: FoldOptions = {}): Promise<FoldResult> {
  const state = new InMemoryState();
  let snapshotSeq = 0;
  let skipped: SkippedSnapshot[] = [];
  if (!options.fromScratch) {
    const head = await log.head(STATE_STREAM);
    const loaded = await loadSnapshot(log, options.snapshotCodec ?? plainCodec, head);
    skipped = loaded.skipped;
    if (loaded.snapshot) {
      state.restore(loaded.snapshot);
      snapshotSeq = loaded.snapshot.seq;
    }
  }
  const batchSize = options.batchSize ?? 10_000;
  if (options.history === false) state.deferHistory();
  // An in-memory log validated every state event on its way in, and its events cannot change since:
  // at the current schema version their payloads are not parsed again (the fold's rules still apply).
  const trusted = log instanceof InMemoryLog ? log : undefined;
  const decodeOptions = { upcasters: options.upcasters };
  const trustedOptions = { upcasters: options.upcasters, trusted: true };
  for (;;) {
    const batch = trusted
      ? trusted[trustedRead](STATE_STREAM, state.seq, batchSize)
      : await log.read({ stream: STATE_STREAM, afterSeq: state.seq, limit: batchSize });
    if (batch.length === 0) break;
    for (const event of batch) {
      if (!follows(log, state.seq, event.seq)) {
        throw new CorruptionError(STATE_STREAM, event.seq, `expected seq ${state.seq + 1}: the stream has a gap`);
      }
      const current = trusted !== undefined && event.schemaVersion === STATE_SCHEMA_VERSION;
      state.apply(decodeStateEvent(event, current ? trustedOptions : decodeOptions), event.seq);
    }
  }
  state.resumeHistory();
  return { state, snapshotSeq, skipped };
}

/** Options of {@link foldTo}. */
export interface FoldToOptions {
  snapshotCodec?: SnapshotCodec;
  upcasters?: UpcasterRegistry;
  /** Events read per batch. */
  batchSize?: number;
  /** Start from no snapshot above this seq (default: the fold's seq). */
  snapshotUpTo?: number;
}

/**
 * The in-memory read model of the `state` stream at `seq`: the newest
 * trustworthy snapshot at or below it, then the events after it up to `seq`.
 */
export async function foldTo(log: Log, seq: number, options: FoldToOptions = {}): Promise<InMemoryState> {
  const state = new InMemoryState();
  const { snapshot } = await loadSnapshot(log, options.snapshotCodec ?? plainCodec, Math.min(seq, options.snapshotUpTo ?? seq));
  if (snapshot) state.restore(snapshot);
  await advance(log, state, seq, options);
  return state;
}

/** Applies the events after `state.seq` up to `seq` to `state` ({@link readChanges}). */
export async function advance(
  log: Log,
  state: InMemoryState,
  seq: number,
  options: FoldToOptions = {},
  /** Called with each change just before it is applied (a diff notes what the change touches). */
  beforeApply?: (change: StateChange) => void,
): Promise<void> {
  await readChanges(log, state.seq, seq, options, (change, at) => {
    beforeApply?.(change);
    state.apply(change, at);
  });
}

/**
 * Hands `each` the changes of the events after `from` up to `to`, in order.
 * Events of the current schema version are not parsed again: every `state`
 * event was checked when it was appended (docs/contract.md §7), as `history`
 * relies on too, and the fold's rules still apply to each. Older ones are
 * upcast and checked. A missing event or a gap is a `CorruptionError`.
 */
export async function readChanges(log: Log, from: number, to: number, options: FoldToOptions, each: (change: StateChange, seq: number) => void): Promise<void> {
  const batchSize = options.batchSize ?? 10_000;
  const decodeOptions = options.upcasters ? { upcasters: options.upcasters } : {};
  const trustedOptions = { ...decodeOptions, trusted: true };
  let at = from;
  while (at < to) {
    const read = await log.read({ stream: STATE_STREAM, afterSeq: at, limit: Math.min(batchSize, to - at) });
    // A gapped log's positions may pass `to` without an event at it: the read stops at the last event before.
    const batch = read.filter((event) => event.seq <= to);
    if (batch.length === 0) {
      if (log.gapped === true) break;
      throw new CorruptionError(STATE_STREAM, at + 1, 'the event is missing');
    }
    for (const event of batch) {
      if (!follows(log, at, event.seq)) throw new CorruptionError(STATE_STREAM, event.seq, `expected seq ${at + 1}: the stream has a gap`);
      each(decodeStateEvent(event, event.schemaVersion === STATE_SCHEMA_VERSION ? trustedOptions : decodeOptions), event.seq);
      at = event.seq;
    }
    if (batch.length < read.length) break;
  }
}
