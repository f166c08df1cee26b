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
import { type ChunkIndex, CHUNK_HEAD_PREFIX, chunkStream, decodeChunk, decodeIndexChunk, SNAPSHOT_COLLECTIONS } from './chunks.js';
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
  const digests = parts.flatMap((part) => PART_COLLECTIONS[part].flatMap((collection) => head.index[collection].map((ref) => ref.sha256)));
  return (await readTwoLevels(log, digests)).row;
}

/**
 * Every row stored (possibly sealed) head text seems to name, read from
 * `log` without any check: its index chunks and the chunks they name. What
 * to read ahead before the head is trusted, or what erasure checks search.
 * Empty for text that does not parse as a head.
 */
export async function storedHeadRows(log: Pick<Log, 'latestSnapshot'>, stored: Pick<StoredSnapshot, 'seq' | 'data'>): Promise<RowKey[]> {
  return (await readTwoLevels(log, looseChunkDigests(stored.data))).keys;
}

const chunkRow = (sha256: string): RowKey => ({ stream: chunkStream(sha256), seq: 0 });

/**
 * Reads from `log` the index chunks of `digests`, then the chunks they seem
 * to name, without any check: the key of each row once (an index chunk, then
 * its chunks), and a reader over them.
 */
async function readTwoLevels(log: Pick<Log, 'latestSnapshot'>, digests: readonly string[]): Promise<{ keys: RowKey[]; row: RowReader }> {
  const first = await storedRows(log, digests.map(chunkRow));
  const keys = new Map<string, RowKey>();
  for (const index of digests) for (const sha256 of [index, ...looseIndexDigests(first(chunkStream(index), 0))]) keys.set(sha256, chunkRow(sha256));
  const leaves = [...keys.values()].filter((key) => first(key.stream, key.seq) === undefined);
  const second = await storedRows(log, leaves);
  return { keys: [...keys.values()], row: (stream, seq) => first(stream, seq) ?? second(stream, seq) };
}

/** The `index` of stored (possibly sealed) head text, parsed without any check; empty when it does not parse as a head. */
export function looseHeadIndex(data: string): Record<string, unknown> {
  const newline = data.indexOf('\n');
  if (newline < 0 || !data.startsWith(CHUNK_HEAD_PREFIX, newline + 1)) return {};
  const index = (looseJson(data.slice(newline + 1)) as { index?: unknown } | undefined)?.index;
  return index !== null && typeof index === 'object' ? (index as Record<string, unknown>) : {};
}

/** The index chunk digests stored head text seems to name, unchecked (see {@link storedHeadRows}). */
export function looseChunkDigests(data: string): string[] {
  return [...new Set(Object.values(looseHeadIndex(data)).flatMap(refDigests))];
}

/** The chunk digests the text of an index chunk seems to name, unchecked (empty when there is no text or it does not parse). */
export function looseIndexDigests(text: string | undefined): string[] {
  return refDigests(looseJson(text));
}

/** `text` parsed as JSON; undefined when there is none or it does not parse. */
export function looseJson(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
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
  const snapshot: Record<string, unknown> = { seq: index.seq };
  for (const collection of SNAPSHOT_COLLECTIONS) snapshot[collection] = [];
  for (const piece of decodeHeadParts(index, SNAPSHOT_PARTS, row, true))
    for (const [collection, records] of Object.entries(piece)) for (const record of records) (snapshot[collection] as unknown[]).push(record);
  return snapshot as Snapshot;
}

/**
 * The whole stored size of a snapshot in UTF-8 bytes: its head and every row
 * it names (index chunks and chunks, shared ones counted in full), read from `log`.
 * What `stats` and the inspector report as a snapshot's size.
 */
export async function storedSnapshotBytes(log: Pick<Log, 'latestSnapshot'>, head: Pick<StoredSnapshot, 'seq' | 'data'>): Promise<number> {
  const { keys, row } = await readTwoLevels(log, looseChunkDigests(head.data));
  return keys.reduce((bytes, { stream, seq }) => bytes + Buffer.byteLength(row(stream, seq) ?? ''), Buffer.byteLength(head.data));
}
