/**
 * Reading a snapshot through its head (formats 4 and 5, docs/contract.md §8):
 * which rows a head names for the parts a reader needs, and their decoding.
 * A head of parts (format 4) names one row per part at its seq; a head of
 * chunks (format 5) names, per collection, the chunk rows at seq 0. Either
 * way each row is trusted when its text matches the digest the trusted head
 * names, so the readers here take rows from any source: a log read ahead
 * ({@link storedRows}) or a backend's synchronous read.
 */
import type { Log, StoredSnapshot } from '../log/log.js';
import type { ChunkIndex, SnapshotCollection } from './chunks.js';
import { chunkStream, decodeChunk, SNAPSHOT_COLLECTIONS } from './chunks.js';
import type { SnapshotCollections, SnapshotIndex, SnapshotPart } from './parts.js';
import { decodeSnapshotPart, looksLikeSnapshotIndex, PART_COLLECTIONS, SNAPSHOT_PARTS, snapshotPartStream } from './parts.js';
import type { Snapshot } from './snapshot.js';

/** The head of a snapshot stored in parts (format 4) or chunks (format 5). */
export type SnapshotHead = SnapshotIndex | ChunkIndex;

/** The stored text of the snapshot row of `stream` at `seq`; undefined when there is none. */
export type RowReader = (stream: string, seq: number) => string | undefined;

/** Names one snapshot row. */
export interface RowKey {
  stream: string;
  seq: number;
}

/** True for a head of chunks. */
export function isChunkHead(index: SnapshotHead): index is ChunkIndex {
  return 'chunks' in index;
}

/** The rows `index` names for the collections of `parts`. */
export function headRows(index: SnapshotHead, parts: readonly SnapshotPart[]): RowKey[] {
  if (!isChunkHead(index)) return parts.map((part) => ({ stream: snapshotPartStream(part), seq: index.seq }));
  const rows: RowKey[] = [];
  for (const part of parts)
    for (const collection of PART_COLLECTIONS[part]) for (const ref of index.chunks[collection]) rows.push({ stream: chunkStream(ref.sha256), seq: 0 });
  return rows;
}

/**
 * The rows stored (possibly sealed) head text seems to name, parsed without
 * any check: what to read ahead before the head is trusted, or what a purge
 * drops with a head it cannot open. Empty for a whole snapshot or text that
 * does not parse.
 */
export function storedHeadRows(stored: Pick<StoredSnapshot, 'seq' | 'data'>): RowKey[] {
  if (looksLikeSnapshotIndex(stored.data)) return SNAPSHOT_PARTS.map((part) => ({ stream: snapshotPartStream(part), seq: stored.seq }));
  return looseChunkDigests(stored.data).map((sha256) => ({ stream: chunkStream(sha256), seq: 0 }));
}

/** The chunk digests stored head text seems to name, unchecked (see {@link storedHeadRows}). */
export function looseChunkDigests(data: string): string[] {
  const newline = data.indexOf('\n');
  if (newline < 0 || !data.startsWith('{"chunks":', newline + 1)) return [];
  try {
    const chunks = (JSON.parse(data.slice(newline + 1)) as { chunks?: Record<string, { sha256?: unknown }[]> }).chunks ?? {};
    const out = new Set<string>();
    for (const list of Object.values(chunks)) for (const ref of Array.isArray(list) ? list : []) if (typeof ref?.sha256 === 'string') out.add(ref.sha256);
    return [...out];
  } catch {
    return [];
  }
}

const rowId = (stream: string, seq: number): string => `${seq}\u0000${stream}`;

/** Reads `rows` from `log` (each once) and returns a reader over them. */
export async function storedRows(log: Pick<Log, 'latestSnapshot'>, rows: readonly RowKey[]): Promise<RowReader> {
  const texts = new Map<string, string>();
  for (const { stream, seq } of rows) {
    const id = rowId(stream, seq);
    if (texts.has(id)) continue;
    const row = await log.latestSnapshot(stream, { upToSeq: seq });
    if (row?.seq === seq) texts.set(id, row.data);
  }
  return (stream, seq) => texts.get(rowId(stream, seq));
}

/**
 * The collections of `parts` from the rows `index` names, as a list of
 * pieces to restore one after the other (a chunk each, for format 5).
 * `CorruptionError` when a row is missing, differs from its digest or does
 * not decode.
 */
export function decodeHeadParts(index: SnapshotHead, parts: readonly SnapshotPart[], row: RowReader, validate: boolean): Partial<SnapshotCollections>[] {
  if (!isChunkHead(index)) return parts.map((part) => decodeSnapshotPart(index, part, row(snapshotPartStream(part), index.seq), { validate }));
  const pieces: Partial<SnapshotCollections>[] = [];
  for (const part of parts) {
    for (const collection of PART_COLLECTIONS[part]) {
      for (const ref of index.chunks[collection]) {
        pieces.push({ [collection]: decodeChunk(index.seq, collection, ref, row(chunkStream(ref.sha256), 0), validate) } as Partial<SnapshotCollections>);
      }
    }
  }
  return pieces;
}

/** The whole snapshot `index` names, every row checked against its digest and schema. */
export function assembleHead(index: SnapshotHead, row: RowReader): Snapshot {
  const snapshot = { seq: index.seq } as Snapshot;
  for (const collection of SNAPSHOT_COLLECTIONS) (snapshot as unknown as Record<SnapshotCollection, unknown[]>)[collection] = [];
  for (const piece of decodeHeadParts(index, SNAPSHOT_PARTS, row, true)) {
    for (const [collection, records] of Object.entries(piece) as [SnapshotCollection, unknown[]][]) {
      const into = (snapshot as unknown as Record<SnapshotCollection, unknown[]>)[collection];
      for (const record of records) into.push(record);
    }
  }
  return snapshot;
}

/** The text of the parts of `parts` in `index` read from `log`, decoded unvalidated: a view's read of a trusted head. */
export async function readHeadParts(
  log: Pick<Log, 'latestSnapshot'>,
  index: SnapshotHead,
  parts: readonly SnapshotPart[],
): Promise<Partial<SnapshotCollections>[]> {
  return decodeHeadParts(index, parts, await storedRows(log, headRows(index, parts)), false);
}

/**
 * The whole stored size of a snapshot in UTF-8 bytes: its head and every row
 * it names (parts, or chunks, shared ones counted in full), read from `log`.
 * What `stats` and the inspector report as a snapshot's size.
 */
export async function storedSnapshotBytes(log: Pick<Log, 'latestSnapshot'>, head: Pick<StoredSnapshot, 'seq' | 'data'>): Promise<number> {
  let bytes = Buffer.byteLength(head.data);
  for (const { stream, seq } of storedHeadRows(head)) {
    const row = await log.latestSnapshot(stream, { upToSeq: seq });
    if (row?.seq === seq) bytes += Buffer.byteLength(row.data);
  }
  return bytes;
}
