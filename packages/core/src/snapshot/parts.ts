/**
 * Snapshots stored in parts (format 4, docs/contract.md §8): each collection
 * of the projection in a row of its own, so a reader that needs one
 * collection (a time-travel view's first read) reads and parses that one
 * only. The row of the `state` stream holds the head: the seq and the
 * SHA-256 of each part. The head is what gets bound to the log and sealed,
 * so a part is trusted when its text matches the digest its trusted head
 * names. Parts are rows of the same snapshot store under the streams
 * {@link snapshotPartStream} names, at the head's seq.
 */
import { z } from 'zod';
import { CorruptionError } from '../errors.js';
import { STATE_STREAM } from '../log/events.js';
import { canonicalJson } from '../log/json.js';
import type { Snapshot } from './snapshot.js';
import { snapshotCollectionsSchema, sortedSnapshot } from './snapshot.js';
import type { Log, StoredSnapshot } from '../log/log.js';
import { decodeSnapshotHead, formatBoundSnapshot, sha256Hex, snapshotBinding } from './binding.js';

/** The format tag of a head: a snapshot stored in parts. */
export const SNAPSHOT_PARTS_FORMAT = 'agentstate.snapshot/4';

/** The parts of a snapshot, each a row of its own. */
export const SNAPSHOT_PARTS = ['sessions', 'turns', 'skills', 'memory', 'operations', 'checkpoints'] as const;

/** One part of a snapshot stored in parts. */
export type SnapshotPart = (typeof SNAPSHOT_PARTS)[number];

/** The collections of a {@link Snapshot} (everything but its seq). */
export type SnapshotCollections = Omit<Snapshot, 'seq'>;

/** The collections each part holds. */
export const PART_COLLECTIONS: Readonly<Record<SnapshotPart, readonly (keyof SnapshotCollections)[]>> = {
  sessions: ['sessions'],
  turns: ['turns'],
  skills: ['skills'],
  memory: ['memory'],
  operations: ['operations'],
  checkpoints: ['checkpoints', 'checkpointWrites'],
};

const shape = snapshotCollectionsSchema.shape;
const PART_SCHEMAS: Readonly<Record<SnapshotPart, z.ZodType>> = {
  sessions: z.strictObject({ sessions: shape.sessions }),
  turns: z.strictObject({ turns: shape.turns }),
  skills: z.strictObject({ skills: shape.skills }),
  memory: z.strictObject({ memory: shape.memory }),
  operations: z.strictObject({ operations: shape.operations }),
  checkpoints: z.strictObject({ checkpoints: shape.checkpoints, checkpointWrites: shape.checkpointWrites }),
};

/** The stream a part of a `state` snapshot is stored under: `state#memory`, … */
export function snapshotPartStream(part: SnapshotPart): string {
  return `${STATE_STREAM}#${part}`;
}

/** The streams of the parts of a `state` snapshot stored in parts: what a purge drops with their heads. */
export const SNAPSHOT_PART_STREAMS: readonly string[] = SNAPSHOT_PARTS.map(snapshotPartStream);

/** Every stream a `state` snapshot in parts occupies: its head's, then its parts'. */
export const STATE_SNAPSHOT_STREAMS: readonly string[] = [STATE_STREAM, ...SNAPSHOT_PART_STREAMS];

/** The head of a snapshot stored in parts: its seq and the digest of each part's text. */
export interface SnapshotIndex {
  seq: number;
  /** SHA-256 (hex) of each part's stored text. */
  parts: Record<SnapshotPart, string>;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const digest = z.string().regex(SHA256_HEX);
const indexSchema = z.strictObject({
  format: z.literal(SNAPSHOT_PARTS_FORMAT),
  seq: z.number().int().nonnegative(),
  parts: z.strictObject({ sessions: digest, turns: digest, skills: digest, memory: digest, operations: digest, checkpoints: digest }),
});

/** Canonical head text begins so; the canonical text of a whole snapshot (format 3) begins with its first collection. */
const HEAD_PREFIX = `{"format":"${SNAPSHOT_PARTS_FORMAT}"`;

/** True when opened snapshot content is a head of parts rather than a whole snapshot. */
export function isSnapshotIndex(content: string): boolean {
  return content.startsWith(HEAD_PREFIX);
}

/** A hint, before opening: stored (possibly sealed) text whose content line is a head of parts. */
export function looksLikeSnapshotIndex(data: string): boolean {
  const newline = data.indexOf('\n');
  return newline >= 0 && data.startsWith(HEAD_PREFIX, newline + 1);
}

/** The head text and the text of each part of `snapshot`: equal projections give equal bytes. */
export function encodeSnapshotParts(snapshot: Snapshot): { head: string; parts: Map<SnapshotPart, string> } {
  const sorted = sortedSnapshot(snapshot);
  const parts = new Map<SnapshotPart, string>();
  const digests = {} as Record<SnapshotPart, string>;
  for (const part of SNAPSHOT_PARTS) {
    const text = canonicalJson(Object.fromEntries(PART_COLLECTIONS[part].map((key) => [key, sorted[key]])));
    parts.set(part, text);
    digests[part] = sha256Hex(text);
  }
  return { head: canonicalJson({ format: SNAPSHOT_PARTS_FORMAT, seq: snapshot.seq, parts: digests }), parts };
}

/** Parses a head; `CorruptionError` when it does not match its schema. */
export function decodeSnapshotIndex(content: string, storedSeq: number): SnapshotIndex {
  const head = decodeSnapshotHead(content, storedSeq, indexSchema);
  return { seq: head.seq, parts: head.parts };
}

/** Options of {@link decodeSnapshotPart}. */
export interface DecodePartOptions {
  /**
   * Check each record against its schema (default true). A view leaves it
   * out: the text matched the digest its trusted head names, so it is the
   * text the encoder wrote from a projection whose records were checked.
   */
  validate?: boolean;
}

/**
 * The collections of one part from its stored text (`undefined`: no row at
 * the head's seq). `CorruptionError` when the row is missing, its digest
 * differs from the head's or it does not decode.
 */
export function decodeSnapshotPart(
  index: SnapshotIndex,
  part: SnapshotPart,
  text: string | undefined,
  options: DecodePartOptions = {},
): Partial<SnapshotCollections> {
  if (text === undefined) throw new CorruptionError(STATE_STREAM, index.seq, `the snapshot's ${part} part is missing`);
  if (sha256Hex(text) !== index.parts[part])
    throw new CorruptionError(STATE_STREAM, index.seq, `the snapshot's ${part} part does not match its SHA-256 digest`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new CorruptionError(STATE_STREAM, index.seq, `the snapshot's ${part} part is not JSON`, { cause });
  }
  if (options.validate === false) return raw as Partial<SnapshotCollections>;
  const result = PART_SCHEMAS[part].safeParse(raw);
  if (!result.success) throw new CorruptionError(STATE_STREAM, index.seq, `the snapshot's ${part} part does not match its schema`, { cause: result.error });
  return result.data as Partial<SnapshotCollections>;
}

/** The whole snapshot a head names, from the text of each part (`part` returns undefined for a missing row). */
export function assembleSnapshot(index: SnapshotIndex, part: (part: SnapshotPart) => string | undefined): Snapshot {
  const collections = {} as Partial<SnapshotCollections>;
  for (const name of SNAPSHOT_PARTS) Object.assign(collections, decodeSnapshotPart(index, name, part(name)));
  return { seq: index.seq, ...(collections as SnapshotCollections) };
}

/**
 * `snapshot` encoded in parts and its head bound to `log`: the rows to store,
 * parts first. The head (the `state` row) is the one text to seal.
 */
export async function bindSnapshotParts(log: Log, snapshot: Snapshot): Promise<{ head: string; parts: StoredSnapshot[] }> {
  const encoded = encodeSnapshotParts(snapshot);
  const head = formatBoundSnapshot(await snapshotBinding(log, snapshot.seq, encoded.head), encoded.head);
  const parts = SNAPSHOT_PARTS.map((part) => ({ stream: snapshotPartStream(part), seq: snapshot.seq, data: encoded.parts.get(part)! }));
  return { head, parts };
}
