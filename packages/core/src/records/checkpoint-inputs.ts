/**
 * Input schemas of the checkpoint store (docs/contract.md §2, "Checkpoints"). As for
 * every store, validation happens before anything is stamped, so a refused
 * call writes nothing.
 */
import { z } from 'zod';
import { checkpointNamespaceField, checkpointWriteSchema } from './checkpoints.js';
import { idField, shortTextField } from './fields.js';
import { jsonValueField, metadataField } from './json.js';
import { LIMITS } from './limits.js';

/** The thread a checkpoint call names: `threadId`, and its `namespace` (default `''`, the root graph). */
const thread = { threadId: idField, namespace: checkpointNamespaceField.default('') };

/** `checkpoints.put` input. */
export const putCheckpointInputSchema = z.strictObject({
  /** Makes the write idempotent (docs/contract.md §4). */
  operationId: idField.optional(),
  ...thread,
  checkpointId: idField,
  parentCheckpointId: idField.nullish().transform((v) => v ?? null),
  checkpoint: jsonValueField(LIMITS.checkpoint),
  metadata: metadataField.optional(),
});

/** `checkpoints.put` input. */
export type PutCheckpointInput = z.input<typeof putCheckpointInputSchema>;

/** One write of `checkpoints.putWrites`: the fields of a stored write its task does not give. */
const writeInputSchema = checkpointWriteSchema.pick({ idx: true, channel: true, value: true });

/** `checkpoints.putWrites` input: one task's writes against one checkpoint. */
export const putWritesInputSchema = z.strictObject({
  operationId: idField.optional(),
  ...thread,
  checkpointId: idField,
  taskId: idField,
  taskPath: shortTextField.default(''),
  writes: z
    .array(writeInputSchema)
    .max(LIMITS.checkpointWrites, `at most ${LIMITS.checkpointWrites} writes`)
    .superRefine((writes, ctx) => {
      const seen = new Set<number>();
      let chars = 0;
      for (const [i, write] of writes.entries()) {
        if (seen.has(write.idx)) ctx.addIssue({ code: 'custom', message: `idx ${write.idx} is given twice`, path: [i, 'idx'] });
        seen.add(write.idx);
        // The values are checked copies holding JSON only, whose JSON has the canonical length: no need to sort keys.
        chars += JSON.stringify(write.value).length;
      }
      if (chars > LIMITS.checkpoint)
        ctx.addIssue({ code: 'custom', message: `at most ${LIMITS.checkpoint} characters of JSON values together (these are ${chars})` });
    }),
});

/** `checkpoints.putWrites` input. */
export type PutWritesInput = z.input<typeof putWritesInputSchema>;

/** `checkpoints.get` input: the newest checkpoint of `(threadId, namespace)`, or the one with `checkpointId`. */
export const getCheckpointInputSchema = z.strictObject({
  ...thread,
  checkpointId: idField.optional(),
});

/** `checkpoints.get` input. */
export type GetCheckpointInput = z.input<typeof getCheckpointInputSchema>;

/** `checkpoints.list` options. */
export const listCheckpointsOptionsSchema = z.strictObject({
  /** Only this thread's checkpoints; absent: every thread. */
  threadId: idField.optional(),
  /** Only this namespace's; absent: every namespace. */
  namespace: checkpointNamespaceField.optional(),
  /** Only checkpoints whose `checkpointId` is smaller (older) than this. */
  before: idField.optional(),
  /** At most this many (0 or absent: all). */
  limit: z.int().min(0).max(LIMITS.pageSize).optional(),
  /** Only checkpoints whose metadata holds each of these keys with an equal (JSON) value. */
  metadata: metadataField.optional(),
});

/** `checkpoints.list` options. */
export type ListCheckpointsOptions = z.input<typeof listCheckpointsOptionsSchema>;

/** `checkpoints.deleteThread` options. */
export const deleteThreadOptionsSchema = z.strictObject({ operationId: idField.optional() });

/** `checkpoints.deleteThread` options. */
export type DeleteThreadOptions = z.input<typeof deleteThreadOptionsSchema>;
