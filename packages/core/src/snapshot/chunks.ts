/**
 * Snapshots stored in content-addressed chunks (format 5, docs/contract.md §8):
 * each collection cut at content-defined boundaries into chunks, their
 * references cut alike into index chunks, and a head (the `state` row, bound
 * and sealed) listing each collection's index chunks. Two levels keep a head
 * to a few kilobytes, which a purge rewrites per snapshot.
 */
import { z } from 'zod';
import { CorruptionError } from '../errors.js';
import { STATE_STREAM } from '../log/events.js';
import { canonicalJson } from '../log/json.js';
import { type Snapshot, parseSnapshotText, snapshotCollectionsSchema, sortedSnapshot } from './snapshot.js';
import type { Log, StoredSnapshot } from '../log/log.js';
import { formatBoundSnapshot, SHA256_HEX, sha256Hex, snapshotBinding } from './binding.js';

/** The format tag of a head of chunks (two levels: the head names index chunks, which name chunks). */
export const SNAPSHOT_CHUNKS_FORMAT = 'agentstate.snapshot/5';

/** The collections of a snapshot, each a list of chunks in the head, in this order. */
export const SNAPSHOT_COLLECTIONS = ['sessions', 'turns', 'skills', 'memory', 'operations', 'checkpoints', 'checkpointWrites'] as const;

/** One collection of a snapshot. */
export type SnapshotCollection = (typeof SNAPSHOT_COLLECTIONS)[number];

/** A chunk ends after a record whose key hashes to 0 modulo this: chunks of about this many records. */
export const CHUNK_BOUNDARY = 64;

/**
 * A chunk (or index chunk) also ends once the texts of its records (references)
 * add up to this many characters. The hash alone gives chunk sizes spread
 * like a geometric law, and a record most likely sits in a long chunk: a
 * purge rewrites whole chunks, and a long session's turns sat in chunks of
 * 130 KB on average, one per snapshot that held a different tail. The cap
 * keeps every chunk a purge rewrites small, and a cut it forces moves no
 * boundary past the next one the hash places.
 */
export const CHUNK_MAX_CHARS = 16_384;

/** An index chunk ends after a reference whose first key's hash is below 2^32 / this: index chunks of about this many references. */
export const INDEX_BOUNDARY = 64;

/** What every chunk's stream begins with. */
export const CHUNK_STREAM_PREFIX = `${STATE_STREAM}#chunk/`;

/** The stream a chunk is stored under (at seq 0): named by the SHA-256 (hex) of its text. */
export function chunkStream(sha256: string): string {
  return `${CHUNK_STREAM_PREFIX}${sha256}`;
}

/** The sort key of a record in its collection: its id, or a turn's session and seq, or a checkpoint's or write's key. */
export type ChunkKey = (string | number)[];

const refSchema = z.strictObject({
  /** The sort key of the chunk's first record (an index chunk's: its first chunk's). */
  first: z.array(z.union([z.string(), z.number()])),
  /** SHA-256 (hex) of the chunk's text. */
  sha256: z.string().regex(SHA256_HEX),
});
const refs = z.array(refSchema);
const indexSchema = z.strictObject({
  format: z.literal(SNAPSHOT_CHUNKS_FORMAT),
  index: z.strictObject(Object.fromEntries(SNAPSHOT_COLLECTIONS.map((collection) => [collection, refs])) as Record<SnapshotCollection, typeof refs>),
  seq: z.number().int().nonnegative(),
});

/** One chunk (or index chunk) of a collection as its index chunk (or head) names it. */
export type ChunkRef = z.output<typeof refSchema>;

/** The head of a snapshot stored in chunks: its seq and each collection's index chunks in order. */
export type ChunkIndex = Omit<z.output<typeof indexSchema>, 'format'>;

type AnyRecord = Record<string, unknown>;

/** The sort key of `record` in `collection` (the order {@link sortedSnapshot} gives, for the collections a purge searches). */
export function chunkKey(collection: SnapshotCollection, record: AnyRecord): ChunkKey {
  switch (collection) {
    case 'turns':
      return [record.sessionId as string, record.seq as number];
    case 'checkpoints':
      return [record.checkpointId as string, record.threadId as string, record.namespace as string];
    case 'checkpointWrites':
      return [record.checkpointId as string, record.threadId as string, record.namespace as string, record.taskId as string, record.idx as number];
    default:
      return [record.id as string];
  }
}

/** FNV-1a (32 bits) of `text`: cheap, deterministic, spread enough to place boundaries. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** True when a chunk ends after `record`: its id (a write's key) hashes to 0 modulo {@link CHUNK_BOUNDARY}. */
function endsChunk(collection: SnapshotCollection, record: AnyRecord): boolean {
  const id = typeof record.id === 'string' ? record.id : chunkKey(collection, record).join('\u0000');
  return fnv1a(id) % CHUNK_BOUNDARY === 0;
}

/**
 * True when an index chunk ends after `ref`: the FNV-1a hash of its first
 * key's JSON text falls in the lowest 1/{@link INDEX_BOUNDARY} of its range.
 * The key, not the digest, so a purge that rewrites a chunk (its records keep
 * their keys) moves no boundary; the hash's high bits, not its low ones (which
 * a chunk boundary tests), because the first key follows a record whose low
 * bits were 0 and FNV-1a mixes its low bits poorly: the first keys of a run of
 * time-ordered ids hash almost only to odd low bits.
 */
function endsIndexChunk(ref: ChunkRef): boolean {
  return fnv1a(JSON.stringify(ref.first)) < 2 ** 32 / INDEX_BOUNDARY;
}

/** The canonical text of one chunk: a JSON array of its records (of an index chunk: of its references). */
export function encodeChunk(records: readonly unknown[]): string {
  return canonicalJson(records);
}

/** A chunk's text from the canonical texts of its items: what {@link encodeChunk} gives for them. */
export function joinChunk(texts: readonly string[]): string {
  return `[${texts.join(',')}]`;
}

/** The ends (exclusive) of the chunks of items with these texts: after an item `ends` marks, once their texts reach {@link CHUNK_MAX_CHARS}, and after the last. */
function cutEnds(texts: readonly string[], ends: (i: number) => boolean): number[] {
  const out: number[] = [];
  let chars = 0;
  for (let i = 0; i < texts.length; i += 1) {
    chars += texts[i]!.length;
    if (i === texts.length - 1 || chars >= CHUNK_MAX_CHARS || ends(i)) {
      out.push(i + 1);
      chars = 0;
    }
  }
  return out;
}

/**
 * Cuts items, given their canonical texts, into chunks ({@link cutEnds}),
 * puts each chunk's text into `into` by its digest, and returns the
 * references to them in order, each with the key `first` gives its first item.
 */
function cutChunks(texts: readonly string[], ends: (i: number) => boolean, first: (i: number) => ChunkKey, into: Map<string, string>): ChunkRef[] {
  const refs: ChunkRef[] = [];
  let start = 0;
  for (const end of cutEnds(texts, ends)) {
    const text = joinChunk(texts.slice(start, end));
    const sha256 = sha256Hex(text);
    into.set(sha256, text);
    refs.push({ first: first(start), sha256 });
    start = end;
  }
  return refs;
}

/**
 * The head text and the chunks of `snapshot` (each chunk's text by its SHA-256, in hex; a chunk two collections or
 * positions share appears once): equal projections give equal bytes, and equal runs of records equal chunks.
 */
export function encodeSnapshotChunks(snapshot: Snapshot): { head: string; chunks: Map<string, string> } {
  const sorted = sortedSnapshot(snapshot);
  const chunks = new Map<string, string>();
  const leaves = {} as Record<SnapshotCollection, ChunkRef[]>;
  for (const collection of SNAPSHOT_COLLECTIONS) {
    const records = sorted[collection] as unknown as AnyRecord[];
    leaves[collection] = cutChunks(
      records.map(canonicalJson),
      (i) => endsChunk(collection, records[i]!),
      (i) => chunkKey(collection, records[i]!),
      chunks,
    );
  }
  // The second level, after every chunk: each collection's references cut into the index chunks the head lists.
  const index = {} as Record<SnapshotCollection, ChunkRef[]>;
  for (const collection of SNAPSHOT_COLLECTIONS) {
    const refs = leaves[collection];
    // References hold only strings, numbers and the sorted keys `first`, `sha256`: JSON.stringify is canonical here.
    const texts = refs.map((ref) => JSON.stringify({ first: ref.first, sha256: ref.sha256 }));
    index[collection] = cutChunks(
      texts,
      (i) => endsIndexChunk(refs[i]!),
      (i) => refs[i]!.first,
      chunks,
    );
  }
  return { head: encodeChunkIndex({ seq: snapshot.seq, index }), chunks };
}

/** The canonical content of a head of chunks. */
export function encodeChunkIndex(head: ChunkIndex): string {
  return canonicalJson({ format: SNAPSHOT_CHUNKS_FORMAT, index: head.index, seq: head.seq });
}

/** Canonical head text of chunks begins so (`format` sorts first). */
export const CHUNK_HEAD_PREFIX = `{"format":"${SNAPSHOT_CHUNKS_FORMAT}",`;

/** Parses a head of chunks; `CorruptionError` when it is not JSON or does not match its schema. */
export function decodeChunkIndex(content: string, storedSeq: number): ChunkIndex {
  const { format: _format, ...head } = parseSnapshotText(content, storedSeq, indexSchema, 'snapshot head');
  return head;
}

/**
 * What the stored text of a snapshot of an earlier format shows, sealed or
 * not: its format tag as JSON, which no head of chunks holds (the strings
 * of a head, record keys among them, are escaped).
 */
const OTHER_FORMAT = /"format":"agentstate\.snapshot\/[1-4]"/;

/**
 * True for a stored row of a snapshot of an earlier format (docs/contract.md
 * §8): a `state` row whose text names format 1 to 4 (whole, or a head of
 * parts), or a part of a head of parts (a `state#` stream other than a
 * chunk's). Loaders skip such a snapshot; saves and purges drop its rows.
 */
export function ofOtherFormat(row: Pick<StoredSnapshot, 'stream' | 'data'>): boolean {
  if (row.stream === STATE_STREAM) return OTHER_FORMAT.test(row.data);
  return row.stream.startsWith(`${STATE_STREAM}#`) && !row.stream.startsWith(CHUNK_STREAM_PREFIX);
}

/**
 * The items of one chunk (or index chunk) row, named `what` in errors, from
 * its stored text. `CorruptionError` when the row is missing, its digest
 * differs from the reference's or it does not decode against `schema`.
 * `validate: false` checks only that it is a list: the text matched the
 * digest its trusted head names.
 */
function decodeRow<T>(seq: number, what: string, ref: ChunkRef, text: string | undefined, schema: z.ZodType<T[]>, validate: boolean): T[] {
  if (text === undefined) throw new CorruptionError(STATE_STREAM, seq, `${what} is missing`);
  if (sha256Hex(text) !== ref.sha256) throw new CorruptionError(STATE_STREAM, seq, `${what} does not match its SHA-256 digest`);
  if (validate) return parseSnapshotText(text, seq, schema, what);
  const raw = parseSnapshotText(text, seq, z.unknown(), what);
  if (!Array.isArray(raw)) throw new CorruptionError(STATE_STREAM, seq, `${what} is not a list`);
  return raw as T[];
}

/** The chunk references of one index chunk from its stored text, in order ({@link decodeRow}). */
export function decodeIndexChunk(seq: number, collection: SnapshotCollection, ref: ChunkRef, text: string | undefined, validate = true): ChunkRef[] {
  return decodeRow(seq, `an index chunk of the snapshot's ${collection}`, ref, text, refs, validate);
}

/** The records of one chunk from its stored text ({@link decodeRow}). */
export function decodeChunk(seq: number, collection: SnapshotCollection, ref: ChunkRef, text: string | undefined, validate = true): unknown[] {
  return decodeRow(seq, `a chunk of the snapshot's ${collection}`, ref, text, snapshotCollectionsSchema.shape[collection] as z.ZodType<unknown[]>, validate);
}

/**
 * `snapshot` cut into chunks and its head bound to `log`: the chunk and index
 * chunk rows to store (at seq 0, each once) and the head, the one text to seal.
 */
export async function bindSnapshotChunks(log: Log, snapshot: Snapshot): Promise<{ head: string; chunks: StoredSnapshot[] }> {
  const encoded = encodeSnapshotChunks(snapshot);
  const head = formatBoundSnapshot(await snapshotBinding(log, snapshot.seq, encoded.head), encoded.head);
  return { head, chunks: [...encoded.chunks].map(([sha256, data]) => ({ stream: chunkStream(sha256), seq: 0, data })) };
}
