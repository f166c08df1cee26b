/**
 * A snapshot is a deterministic serialisation of the whole projection at a
 * seq: collections sorted by id, turns by session then seq, keys sorted. It
 * is a cache, never the truth (docs/contract.md §8).
 */
import { z } from 'zod';
import { CorruptionError } from '../errors.js';
import { compareCheckpointsNewestFirst, compareStrings, compareWrites } from '../records/order.js';
import { type Turn, memoryItemSchema, sessionSchema, skillSchema, turnSchema } from '../records/records.js';
import { canonicalJson } from '../log/json.js';
import { STATE_STREAM } from '../log/events.js';
import { operationEntrySchema } from '../log/operation.js';
import { type Checkpoint, type CheckpointWrite, checkpointSchema, checkpointWriteSchema } from '../records/checkpoints.js';

/** The format tag inside the canonical text of a snapshot ({@link encodeSnapshot}). */
export const SNAPSHOT_FORMAT = 'agentstate.snapshot/3';

/** The collections of a snapshot, each checked record by record. */
export const snapshotCollectionsSchema = z.object({
  sessions: z.array(sessionSchema),
  turns: z.array(turnSchema),
  skills: z.array(skillSchema),
  memory: z.array(memoryItemSchema),
  operations: z.array(operationEntrySchema),
  checkpoints: z.array(checkpointSchema),
  checkpointWrites: z.array(checkpointWriteSchema),
});

/** The whole projection of the `state` stream at `seq` (the last event folded in), tombstones included. */
export type Snapshot = { seq: number } & z.output<typeof snapshotCollectionsSchema>;

const snapshotSchema = snapshotCollectionsSchema.extend({ format: z.literal(SNAPSHOT_FORMAT), seq: z.number().int().nonnegative() }).strict();

const byId = (a: { id: string }, b: { id: string }): number => compareStrings(a.id, b.id);
const byTurn = (a: Turn, b: Turn): number => compareStrings(a.sessionId, b.sessionId) || a.seq - b.seq;
/** Oldest first: the reverse of the list order. */
const byCheckpoint = (a: Checkpoint, b: Checkpoint): number => compareCheckpointsNewestFirst(b, a);
const byWrite = (a: CheckpointWrite, b: CheckpointWrite): number => compareCheckpointsNewestFirst(b, a) || compareWrites(a, b);

/** Sorts a snapshot's collections into their canonical order (in place). */
export function sortSnapshot(snapshot: Snapshot): Snapshot {
  snapshot.sessions.sort(byId);
  snapshot.turns.sort(byTurn);
  snapshot.skills.sort(byId);
  snapshot.memory.sort(byId);
  snapshot.operations.sort(byId);
  snapshot.checkpoints.sort(byCheckpoint);
  snapshot.checkpointWrites.sort(byWrite);
  return snapshot;
}

/** A copy of `snapshot` with its collections in canonical order; `snapshot` itself is left as it is. */
export function sortedSnapshot(snapshot: Snapshot): Snapshot {
  const copy = { seq: snapshot.seq } as Record<string, unknown>;
  for (const collection of Object.keys(snapshotCollectionsSchema.shape) as (keyof typeof snapshotCollectionsSchema.shape)[])
    copy[collection] = [...snapshot[collection]];
  return sortSnapshot(copy as Snapshot);
}

/** The canonical text of a snapshot: equal projections give equal bytes. */
export function encodeSnapshot(snapshot: Snapshot): string {
  return canonicalJson({ format: SNAPSHOT_FORMAT, ...sortedSnapshot(snapshot) });
}

/** Parses stored JSON text of the `state` snapshot at `storedSeq` against `schema`; a `CorruptionError` naming `what` when it is not JSON or does not match. */
export function parseSnapshotText<T>(text: string, storedSeq: number, schema: z.ZodType<T>, what: string): T {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new CorruptionError(STATE_STREAM, storedSeq, `${what} is not JSON`, { cause });
  }
  const result = schema.safeParse(raw);
  if (!result.success) throw new CorruptionError(STATE_STREAM, storedSeq, `${what} does not match its schema`, { cause: result.error });
  return result.data;
}

/** Parses and validates canonical snapshot text; `CorruptionError` when it does not decode. */
export function decodeSnapshot(text: string, storedSeq: number): Snapshot {
  const { format: _format, ...snapshot } = parseSnapshotText(text, storedSeq, snapshotSchema, 'snapshot');
  return snapshot;
}
