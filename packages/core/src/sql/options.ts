/** What both SQL backends' logs, rebuilds and imports take and return (docs/contract.md §8), and an import's last check. */
import { CorruptionError } from '../errors.js';
import type { ExportRead } from '../export/reader.js';
import type { Trailer } from '../export/trailer.js';
import { STATE_STREAM } from '../log/events.js';
import { sha256Hex } from '../snapshot/binding.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import type { SkippedSnapshot } from '../snapshot/restore.js';
import type { Clock } from '../time/clock.js';
import { encodeSnapshot, type Snapshot } from '../snapshot/snapshot.js';

/** Options of a backend's log. */
export interface LogOptions {
  /** Stamps `time` on events appended without one. Default: the system clock. */
  clock?: Clock | undefined;
  /** Lets `state` events of older schema versions be checked on append, as a fold will read them. */
  upcasters?: UpcasterRegistry | undefined;
}

/** Options of `verify()`. */
export interface VerifyOptions {
  /** Called while the log is replayed, with the events done and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** Options of `rebuild()`. */
export interface RebuildOptions {
  /** Ignore snapshots and fold every event from seq 1. */
  fromScratch?: boolean;
}

/** What a rebuild did. */
export interface RebuildResult {
  /** The seq the tables stand at afterwards. */
  seq: number;
  /** The seq of the snapshot it started from (0: none, a full fold). */
  snapshotSeq: number;
  /** Newer snapshots that were refused, and why. */
  skipped: SkippedSnapshot[];
  /** Events folded after the snapshot. */
  events: number;
}

/** Options of an import. */
export interface ImportOptions {
  /** Accept an export without a trailer (made before trailers existed), after the same checks. */
  allowUntrailed?: boolean;
  /** Told the bytes of the export read so far (each line and its newline). */
  onProgress?: (bytes: number) => void;
}

/** What an import made. */
export interface ImportResult {
  /** Events imported. */
  events: number;
  /** SHA-256 of the canonical snapshot text of the imported state. */
  sha256: string;
  /** The trailer the export ended with (undefined only with `allowUntrailed`). */
  trailer: Trailer | undefined;
}

/**
 * The end of an import: the tables of the new store (`open`ed after the
 * events were appended) must equal the fold of the export `read` checked.
 */
export async function checkImported(read: ExportRead, open: () => Promise<{ snapshot(): Promise<Snapshot>; close(): Promise<void> }>): Promise<ImportResult> {
  const { state, trailer } = read;
  const expected = encodeSnapshot(state.capture());
  const store = await open();
  try {
    if (encodeSnapshot(await store.snapshot()) !== expected) {
      throw new CorruptionError(STATE_STREAM, state.seq, 'the imported tables differ from a replay of the imported events');
    }
  } finally {
    await store.close();
  }
  return { events: state.seq, sha256: sha256Hex(expected), trailer };
}
