/**
 * Graph checkpoints (docs/contract.md §2, "Checkpoints"): the saved state of
 * a graph run per `(threadId, namespace, checkpointId)`, and the pending
 * writes of its tasks. Framework-neutral: a framework adapter encodes its
 * checkpoint as a JSON value. Defined once here like the other records.
 */
import { z } from 'zod';
import { versionShape } from './records.js';
import { idField, instantField, shortTextField, textField } from './fields.js';
import { jsonValueField, metadataField } from './json.js';
import { LIMITS } from './limits.js';

/**
 * A checkpoint namespace: `''` is the root graph; subgraphs have their own,
 * which nest (LangGraph joins `node:taskId` per level), so short text rather than an id.
 */
export const checkpointNamespaceField = textField(LIMITS.shortText);

/**
 * One saved checkpoint. `(threadId, namespace, checkpointId)` is its key;
 * saving under a taken key replaces it (`syncVersion + 1`, same `id` and
 * `createdAt`), as LangGraph's savers do. A thread's deletion removes its
 * checkpoints, so there are no tombstones.
 */
export const checkpointSchema = z.strictObject({
  /** The record's id (UUIDv7), unique across threads. */
  id: idField,
  threadId: idField,
  namespace: checkpointNamespaceField,
  /** The caller's checkpoint id; LangGraph's are time-sortable, so newest is greatest. */
  checkpointId: idField,
  /** The checkpoint this one was taken after, or `null`. */
  parentCheckpointId: idField.nullable(),
  /** The checkpoint itself, as JSON. */
  checkpoint: jsonValueField(LIMITS.checkpoint),
  metadata: metadataField,
  createdAt: instantField,
  /** The last save's instant; never moves back. */
  updatedAt: instantField,
  ...versionShape,
});

/** One saved checkpoint. */
export type Checkpoint = z.infer<typeof checkpointSchema>;

/**
 * One pending write of a task against a checkpoint, keyed by
 * `(threadId, namespace, checkpointId, taskId, idx)`. A write at a
 * non-negative `idx` is never overwritten; one at a negative `idx` is
 * replaced by the next write there.
 */
export const checkpointWriteSchema = z.strictObject({
  threadId: idField,
  namespace: checkpointNamespaceField,
  checkpointId: idField,
  taskId: idField,
  /** The task's path in the graph; `''` when not given. */
  taskPath: shortTextField,
  /** The write's position among its task's writes; LangGraph maps special channels to negative ones. */
  idx: z.int('must be a safe integer'),
  channel: shortTextField.min(1, 'must not be empty'),
  value: jsonValueField(LIMITS.checkpoint),
});

/** One pending write of a task. */
export type CheckpointWrite = z.infer<typeof checkpointWriteSchema>;

/** A checkpoint with the pending writes saved against it, ordered by `taskId`, then `idx`. */
export interface CheckpointTuple {
  checkpoint: Checkpoint;
  pendingWrites: CheckpointWrite[];
}
