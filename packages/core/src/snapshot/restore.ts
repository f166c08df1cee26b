/**
 * Finding a snapshot to start from (docs/contract.md §8): the newest head of
 * chunks that opens with the codec, is bound to this log at its seq (see
 * `binding.ts`), matches its content digest, decodes, agrees with its stored
 * seq and does not lie beyond the stream head. Anything else, a snapshot of
 * an earlier format among them, is skipped and the next older one is tried.
 */
import { CorruptionError } from '../errors.js';
import type { Log, LogEvent, StoredSnapshot } from '../log/log.js';
import { STATE_STREAM } from '../log/events.js';
import { checkBinding, eventAt, identityOf, parseBoundSnapshot } from './binding.js';
import { type SnapshotCodec, plainCodec, SnapshotSealError } from './codecs.js';
import type { Snapshot } from './snapshot.js';
import { SNAPSHOT_PARTS } from './parts.js';
import { type ChunkIndex, decodeChunkIndex, ofOtherFormat } from './chunks.js';
import { type RowReader, assembleHead, readHeadRows } from './heads.js';

/** A snapshot that was passed over, and why. */
export interface SkippedSnapshot {
  seq: number;
  reason: string;
  /**
   * True when the stored snapshot is wrong in itself or for this log (edited,
   * foreign, undecodable, failing its seal under the given key); false when
   * it only could not be checked here (sealed with a key or codec not given,
   * unsealed while a key is, or of an earlier format).
   */
  damaged: boolean;
  /**
   * The codec a sealed snapshot names, when it was skipped only because no
   * codec (key) for it was given: sealed, but unverifiable here.
   */
  sealedWith?: string;
}

/** The result of {@link loadSnapshot}. */
export interface LoadedSnapshot {
  /** The snapshot to start from, or undefined for a full fold. */
  snapshot: Snapshot | undefined;
  /** Newer snapshots that were refused. */
  skipped: SkippedSnapshot[];
}

/** `<codec id>:` at the start of sealed text; plain snapshot text starts with `{`. */
const SEALED_PREFIX = /^([A-Za-z0-9][\w.-]*):/;

/** Raised for a snapshot that may be sound but cannot be checked with the codec at hand. */
class UncheckableSnapshotError extends SnapshotSealError {
  constructor(
    message: string,
    /** The codec the snapshot names when no codec (key) for it was given. */
    readonly missingCodec?: string,
  ) {
    super(message);
  }
}

function open(codec: SnapshotCodec, data: string): string {
  const sealed = SEALED_PREFIX.exec(data)?.[1];
  const expected = codec.id === plainCodec.id ? undefined : codec.id;
  if (sealed !== expected) {
    if (sealed === undefined) throw new UncheckableSnapshotError(`not sealed, but snapshots must be sealed with ${codec.id} here`);
    if (codec.id === plainCodec.id) throw new UncheckableSnapshotError(`sealed with ${sealed}, and cannot be verified without its key`, sealed);
    throw new UncheckableSnapshotError(`sealed with ${sealed}, not ${codec.id}`);
  }
  return codec.open(data);
}

/** Raised for a snapshot of an earlier format: a cache this version does not read, not damage. */
class OtherFormatError extends CorruptionError {}

/** Why a stored snapshot at `seq` was passed over, from the error that refused it. */
export function skippedSnapshot(seq: number, error: unknown): SkippedSnapshot {
  const reason = error instanceof Error ? error.message : String(error);
  if (error instanceof UncheckableSnapshotError) {
    return error.missingCodec === undefined ? { seq, reason, damaged: false } : { seq, reason, damaged: false, sealedWith: error.missingCodec };
  }
  return { seq, reason, damaged: !(error instanceof OtherFormatError) };
}

/** What {@link trustStoredSnapshot} checks a stored snapshot against: the log as it is now. */
export interface SnapshotTrustContext {
  codec: SnapshotCodec;
  /** The head of the `state` stream. */
  head: number;
  /** The log's identity; asked only once a snapshot's own text checks out. */
  identity: () => string;
  /** The event of the `state` stream at a seq, if the log holds one. */
  eventAt: (seq: number) => LogEvent | undefined;
  /** The stored text of a snapshot row (a chunk of the snapshot being checked); undefined when there is no such row. */
  row?: RowReader;
}

/** Opens, unbinds and checks one stored head of chunks, for its chunks to be read. Throws why it cannot be trusted. */
function openStoredSnapshot(stored: Pick<StoredSnapshot, 'seq' | 'data'>, ctx: Omit<SnapshotTrustContext, 'row'>): ChunkIndex {
  if (ofOtherFormat({ stream: STATE_STREAM, data: stored.data }))
    throw new OtherFormatError(STATE_STREAM, stored.seq, 'of an earlier snapshot format, which this version does not read');
  return unbindHead(stored, open(ctx.codec, stored.data), ctx, decodeChunkIndex);
}

/**
 * The head of chunks in the opened text of `stored`, once its binding names
 * its seq (no later than `ctx.head`) and the log's identity and event there;
 * `decode` parses the content. Throws why it cannot be trusted.
 */
export function unbindHead(
  stored: Pick<StoredSnapshot, 'seq'>,
  opened: string,
  ctx: Omit<SnapshotTrustContext, 'codec' | 'row'>,
  decode: (content: string, seq: number) => ChunkIndex,
): ChunkIndex {
  const { binding, content } = parseBoundSnapshot(opened, stored.seq);
  if (binding.seq !== stored.seq) throw new CorruptionError(STATE_STREAM, stored.seq, `its binding names seq ${binding.seq}`);
  if (stored.seq > ctx.head) throw new CorruptionError(STATE_STREAM, stored.seq, `seq ${stored.seq} lies beyond the stream head ${ctx.head}`);
  checkBinding(ctx.identity(), binding, ctx.eventAt(binding.seq));
  const index = decode(content, stored.seq);
  if (index.seq !== stored.seq) throw new CorruptionError(STATE_STREAM, stored.seq, `inner seq ${index.seq} disagrees with stored seq ${stored.seq}`);
  return index;
}

/**
 * Opens, unbinds, checks and decodes one stored snapshot; throws why it
 * cannot be trusted ({@link skippedSnapshot} turns that into a reason).
 * Synchronous, so a backend can check its snapshots inside one read
 * transaction.
 */
export function trustStoredSnapshot(stored: Pick<StoredSnapshot, 'seq' | 'data'>, ctx: SnapshotTrustContext): Snapshot {
  return assembleHead(openStoredSnapshot(stored, ctx), ctx.row ?? (() => undefined));
}

/**
 * The head of the newest stored snapshot at or below `head` whose own text
 * checks out (undefined: none, for a full fold), without reading its chunks,
 * and the newer ones refused; `accept` may refuse it still (by throwing), and
 * the next older one is tried.
 */
export async function loadSnapshotHead(
  log: Pick<Log, 'read' | 'latestSnapshot' | 'identity'>,
  codec: SnapshotCodec,
  head: number,
  accept: (opened: ChunkIndex) => Promise<ChunkIndex> = async (opened) => opened,
): Promise<{ opened: ChunkIndex | undefined; skipped: SkippedSnapshot[] }> {
  const skipped: SkippedSnapshot[] = [];
  // Read once, and only once a snapshot is stored.
  let identity: Promise<() => string> | undefined;
  let upToSeq = head;
  while (upToSeq >= 0) {
    const stored = await log.latestSnapshot(STATE_STREAM, { upToSeq });
    if (!stored) break;
    try {
      identity ??= identityOf(log);
      const ownIdentity = await identity;
      const event = await eventAt(log, stored.seq);
      const opened = openStoredSnapshot(stored, { codec, head, identity: ownIdentity, eventAt: (seq) => (seq === stored.seq ? event : undefined) });
      return { opened: await accept(opened), skipped };
    } catch (error) {
      skipped.push(skippedSnapshot(stored.seq, error));
      upToSeq = stored.seq - 1;
    }
  }
  return { opened: undefined, skipped };
}

/** Loads the newest trustworthy snapshot of the `state` stream at or below `head`, whole: its chunks are read and checked row by row. */
export async function loadSnapshot(log: Pick<Log, 'read' | 'latestSnapshot' | 'identity'>, codec: SnapshotCodec, head: number): Promise<LoadedSnapshot> {
  let snapshot: Snapshot | undefined;
  const { skipped } = await loadSnapshotHead(log, codec, head, async (opened) => {
    snapshot = assembleHead(opened, await readHeadRows(log, opened, SNAPSHOT_PARTS));
    return opened;
  });
  return { snapshot, skipped };
}
