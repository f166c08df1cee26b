/**
 * Reading a snapshot through its head (format 5, docs/contract.md §8):
 * which rows a head names for the parts a reader needs, and their decoding.
 * A head names, per collection, index chunk rows at seq 0, which name the
 * chunk rows. Each row is trusted when its text matches the digest its
 * trusted head (or trusted index chunk) names, so the readers here take rows
 * from any source: a log read ahead ({@link readHeadRows}, {@link storedRows})
 * or a backend's synchronous read.
 */
import type { Log, StoredSnapshot } from '../log/log.js';
import { type ChunkIndex, type SnapshotCollection, CHUNK_HEAD_PREFIX, chunkStream, decodeChunk, decodeIndexChunk, SNAPSHOT_COLLECTIONS } from './chunks.js';
import { type SnapshotCollections, type SnapshotPart, PART_COLLECTIONS, SNAPSHOT_PARTS } from './parts.js';
import type { Snapshot } from './snapshot.js';

/** The stored text of the snapshot row of `stream` at `seq`; undefined when there is none. */
export type RowReader = (stream: string, seq: number) => string | undefined;

/** Names one snapshot row. */
export interface RowKey {
  stream: string;
  seq: number;
}

/**
 * Reads from `log` the rows `head` names for the collections of `parts` (its
 * index chunks, then the chunks they name) and returns a reader over them.
 * Nothing is checked here: {@link decodeHeadParts} checks every row against
 * its digest.
 */
export async function readHeadRows(log: Pick<Log, 'latestSnapshot'>, head: ChunkIndex, parts: readonly SnapshotPart[]): Promise<RowReader> {
  const index: RowKey[] = [];
  for (const part of parts)
    for (const collection of PART_COLLECTIONS[part]) for (const ref of head.index[collection]) index.push({ stream: chunkStream(ref.sha256), seq: 0 });
  const first = await storedRows(log, index);
  // Then the chunk rows those index chunks seem to name.
  const leaves = index.flatMap(({ stream, seq }) => looseIndexDigests(first(stream, seq)).map((sha256) => ({ stream: chunkStream(sha256), seq: 0 })));
  const second = await storedRows(log, leaves);
  return (stream, seq) => first(stream, seq) ?? second(stream, seq);
}

/**
 * Every row stored (possibly sealed) head text seems to name, read from
 * `log` without any check: its index chunks and the chunks they name. What
 * to read ahead before the head is trusted, or what erasure checks search.
 * Empty for text that does not parse as a head.
 */
export async function storedHeadRows(log: Pick<Log, 'latestSnapshot'>, stored: Pick<StoredSnapshot, 'seq' | 'data'>): Promise<RowKey[]> {
  const index = looseChunkDigests(stored.data).map((sha256) => ({ stream: chunkStream(sha256), seq: 0 }));
  const rows = await storedRows(log, index);
  const out = new Map<string, RowKey>();
  for (const key of index) {
    out.set(key.stream, key);
    for (const sha256 of looseIndexDigests(rows(key.stream, key.seq))) out.set(chunkStream(sha256), { stream: chunkStream(sha256), seq: 0 });
  }
  return [...out.values()];
}

/** The index chunk digests stored head text seems to name, unchecked (see {@link storedHeadRows}). */
export function looseChunkDigests(data: string): string[] {
  const newline = data.indexOf('\n');
  if (newline < 0 || !data.startsWith(CHUNK_HEAD_PREFIX, newline + 1)) return [];
  try {
    const index = (JSON.parse(data.slice(newline + 1)) as { index?: Record<string, unknown> }).index ?? {};
    const out = new Set<string>();
    for (const list of Object.values(index)) for (const sha256 of refDigests(list)) out.add(sha256);
    return [...out];
  } catch {
    return [];
  }
}

/** The chunk digests the text of an index chunk seems to name, unchecked (empty when there is no text or it does not parse). */
export function looseIndexDigests(text: string | undefined): string[] {
  if (text === undefined) return [];
  try {
    return refDigests(JSON.parse(text));
  } catch {
    return [];
  }
}

/** The `sha256` of each `{ sha256 }` in `list`, when it is a list. */
function refDigests(list: unknown): string[] {
  const out: string[] = [];
  for (const ref of Array.isArray(list) ? (list as { sha256?: unknown }[]) : []) if (typeof ref?.sha256 === 'string') out.push(ref.sha256);
  return out;
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
 * pieces to restore one after the other (a chunk each). `CorruptionError`
 * when a row (an index chunk or a chunk) is missing, differs from its digest
 * or does not decode.
 */
export function decodeHeadParts(index: ChunkIndex, parts: readonly SnapshotPart[], row: RowReader, validate: boolean): Partial<SnapshotCollections>[] {
  const pieces: Partial<SnapshotCollections>[] = [];
  for (const part of parts) {
    for (const collection of PART_COLLECTIONS[part]) {
      for (const top of index.index[collection]) {
        for (const ref of decodeIndexChunk(index.seq, collection, top, row(chunkStream(top.sha256), 0), validate)) {
          pieces.push({ [collection]: decodeChunk(index.seq, collection, ref, row(chunkStream(ref.sha256), 0), validate) } as Partial<SnapshotCollections>);
        }
      }
    }
  }
  return pieces;
}

/** The whole snapshot `index` names, every row checked against its digest and schema. */
export function assembleHead(index: ChunkIndex, row: RowReader): Snapshot {
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

/**
 * The whole stored size of a snapshot in UTF-8 bytes: its head and every row
 * it names (index chunks and chunks, shared ones counted in full), read from `log`.
 * What `stats` and the inspector report as a snapshot's size.
 */
export async function storedSnapshotBytes(log: Pick<Log, 'latestSnapshot'>, head: Pick<StoredSnapshot, 'seq' | 'data'>): Promise<number> {
  let bytes = Buffer.byteLength(head.data);
  for (const { stream, seq } of await storedHeadRows(log, head)) {
    const row = await log.latestSnapshot(stream, { upToSeq: seq });
    if (row?.seq === seq) bytes += Buffer.byteLength(row.data);
  }
  return bytes;
}
