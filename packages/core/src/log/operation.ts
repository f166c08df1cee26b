/**
 * Idempotent writes (docs/contract.md §4, idempotency): a write that names an
 * `operationId` carries `operation: { id, inputHash }` in its first event
 * (a batch's later events carry `{ id }`), and the fold keeps an index of
 * those ids. A retry with the same id and input is answered from the
 * original event and appends nothing; the same id with another input is
 * refused. A purge drops the hash of every operation whose input held a
 * record it erases (a hash of the input confirms a guess of it): such an
 * operation keeps its id, and a retry under it is refused, as its input can
 * no longer be compared. Defined once here for every backend.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { idField } from '../records/fields.js';
import { canonicalJson } from './json.js';

/**
 * The `operation` key of an event payload: which caller operation wrote it,
 * and over what input. Without `inputHash`: a later event of a batch, or a
 * first event whose hash a purge dropped.
 */
export const operationSchema = z.strictObject({
  id: idField,
  inputHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits (SHA-256)')
    .optional(),
});

/** The `operation` key of an event payload. */
export type OperationRef = z.output<typeof operationSchema>;

/** An entry of a snapshot's `operations`. */
export const operationEntrySchema = z.strictObject({ id: idField, inputHash: operationSchema.shape.inputHash, seq: z.number().int().positive() });

/**
 * An operation the fold has seen: its id, the hash of its input (none once a
 * purge dropped it), and the seq of the first event that carried it.
 */
export type OperationEntry = z.output<typeof operationEntrySchema>;

/** The index entry of the event at `seq` that opens `operation`'s write. */
export function operationEntry(operation: OperationRef, seq: number): OperationEntry {
  return operation.inputHash === undefined ? { id: operation.id, seq } : { id: operation.id, inputHash: operation.inputHash, seq };
}

/**
 * SHA-256 (hex) of the canonical JSON of `{ method, input }`: `input` is the
 * validated input without its `operationId`, so equal requests hash equally
 * whatever their key order, and one id reused for another method differs.
 */
export function operationInputHash(method: string, input: unknown): string {
  return createHash('sha256').update(canonicalJson({ method, input }), 'utf8').digest('hex');
}
