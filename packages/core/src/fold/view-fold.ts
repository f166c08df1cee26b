/**
 * The state of a time-travel view, folded part by part as its reads need
 * them (docs/contract.md §11). From a snapshot, a part is read (chunk by
 * chunk) only when a read needs its collections: restored, then the events
 * between the snapshot and the view's seq are folded into it alone. So the
 * first read of a view costs the parts it reads and the events after the
 * snapshot, not the whole projection. Without a snapshot, the whole state is
 * folded on the first read.
 */
import { CorruptionError } from '../errors.js';
import { EventTypes, type StateChange } from '../log/events.js';
import type { Log } from '../log/log.js';
import { InMemoryState } from './state.js';
import { plainCodec } from '../snapshot/codecs.js';
import { type SnapshotPart, SNAPSHOT_PARTS } from '../snapshot/parts.js';
import type { ChunkIndex } from '../snapshot/chunks.js';
import { decodeHeadParts, readHeadRows } from '../snapshot/heads.js';
import { loadSnapshotHead } from '../snapshot/restore.js';
import { type FoldToOptions, advance, foldTo, readChanges } from './fold.js';

/** The parts a received transcript change is merged against. */
const TRANSCRIPTS: ReadonlySet<SnapshotPart> = new Set(['sessions', 'turns']);
/** The received changes merged against both (`merge-turns.ts`). */
const TRANSCRIPT_MERGES: ReadonlySet<string> = new Set([EventTypes.TurnAppended, EventTypes.TurnsRemoved]);

/** The state of a view at one seq, completed part by part. */
export class ViewFold {
  #state: InMemoryState;
  /** The head of the snapshot the state starts from, while parts of it remain unread. */
  #index: ChunkIndex | undefined;
  readonly #loaded = new Set<SnapshotPart>();
  /** The events after the snapshot, decoded once, folded into each part as it is restored. */
  #tail: { change: StateChange; seq: number }[] | undefined;
  /** Folds the whole state, once, for a fold that does not start from a snapshot. */
  #whole: (() => Promise<void>) | undefined;
  /** Loads run one at a time, so concurrent reads never restore a part twice. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly log: Log,
    private readonly seq: number,
    private readonly options: FoldToOptions,
    state: InMemoryState,
    index: ChunkIndex | undefined,
  ) {
    this.#state = state;
    this.#index = index;
  }

  /**
   * Finds the snapshot to start from: the newest trustworthy one at or
   * below `seq`. Only its head is read here.
   */
  static async open(log: Log, seq: number, options: FoldToOptions = {}): Promise<ViewFold> {
    const { opened } = await loadSnapshotHead(log, options.snapshotCodec ?? plainCodec, seq);
    const state = new InMemoryState();
    if (opened) {
      state.seq = opened.seq;
      state.historyFrom = opened.seq;
      return new ViewFold(log, seq, options, state, opened);
    }
    const fold = new ViewFold(log, seq, options, state, undefined);
    fold.#whole = () => advance(log, state, seq, options);
    return fold;
  }

  /** The state with at least the collections of `parts` as they were at the view's seq. */
  async state(parts: readonly SnapshotPart[]): Promise<InMemoryState> {
    const run = this.#queue.then(() => this.#load(parts));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #load(parts: readonly SnapshotPart[]): Promise<InMemoryState> {
    if (this.#whole) {
      const whole = this.#whole;
      this.#whole = undefined;
      await whole();
      for (const part of SNAPSHOT_PARTS) this.#loaded.add(part);
    }
    const index = this.#index;
    const missing = parts.filter((part) => !this.#loaded.has(part));
    if (!index || missing.length === 0) return this.#state;
    try {
      const tail = await this.#readTail(index.seq);
      // A received transcript change is merged against its session and its turns at once (merge-turns.ts): both are restored.
      if (missing.some((part) => TRANSCRIPTS.has(part)) && tail.some(({ change }) => change.received && TRANSCRIPT_MERGES.has(change.type)))
        for (const part of TRANSCRIPTS) if (!this.#loaded.has(part) && !missing.includes(part)) missing.push(part);
      // The head was trusted when the fold opened, so its rows are decoded unvalidated.
      const decoded = decodeHeadParts(index, missing, await readHeadRows(this.log, index, missing), false);
      const only = new Set(missing);
      for (const collections of decoded) this.#state.restoreCollections(collections);
      for (const { change, seq } of tail) this.#state.applyParts(change, seq, only);
      this.#state.seq = this.seq;
      for (const part of missing) this.#loaded.add(part);
    } catch (error) {
      if (!(error instanceof CorruptionError)) throw error;
      // A part missing or damaged: this snapshot cannot be trusted whole, so the view is folded from an older one.
      this.#state = await foldTo(this.log, this.seq, { ...this.options, snapshotUpTo: index.seq - 1 });
      this.#index = undefined;
      for (const part of SNAPSHOT_PARTS) this.#loaded.add(part);
    }
    return this.#state;
  }

  /** The events after `from` up to the view's seq, decoded as {@link advance} decodes them. */
  async #readTail(from: number): Promise<{ change: StateChange; seq: number }[]> {
    if (this.#tail) return this.#tail;
    const tail: { change: StateChange; seq: number }[] = [];
    await readChanges(this.log, from, this.seq, this.options, (change, seq) => tail.push({ change, seq }));
    this.#tail = tail;
    return tail;
  }
}
