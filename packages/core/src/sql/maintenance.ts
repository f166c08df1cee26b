/** What both SQL backends' rebuild and import take and return (docs/contract.md §8). */
import type { Trailer } from '../export/trailer.js';
import type { SkippedSnapshot } from '../snapshot/restore.js';

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
