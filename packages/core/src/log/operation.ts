/**
 * Idempotent writes (docs/contract.md §4, idempotency): a write that names an
 * `operationId` carries `operation: { id, inputHash }` in its event, and the
 * fold keeps an index of those ids. A retry with the same id and input is
 * answered from the original event and appends nothing; the same id with
 * another input is refused. Defined once here for every backend.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { idField } from '../records/fields.js';
import { canonicalJson } from './json.js';

/** The `operation` key of an event payload: which caller operation wrote it, and over what input. */
export const operationSchema = z.strictObject({
  id: idField,
  inputHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits (SHA-256)'),
});

/** The `operation` key of an event payload. */
export type OperationRef = z.output<typeof operationSchema>;

/** An operation the fold has seen: its id, the hash of its input, and the seq of the event that carried it. */
export interface OperationEntry {
  id: string;
  inputHash: string;
  seq: number;
}

/** An entry of a snapshot's `operations`. */
export const operationEntrySchema = z.strictObject({
  id: idField,
  inputHash: operationSchema.shape.inputHash,
  seq: z.number().int().positive(),
});

/**
 * SHA-256 (hex) of the canonical JSON of `{ method, input }`: `input` is the
 * validated input without its `operationId`, so equal requests hash equally
 * whatever their key order, and one id reused for another method differs.
 */
export function operationInputHash(method: string, input: unknown): string {
  return createHash('sha256').update(canonicalJson({ method, input }), 'utf8').digest('hex');
}
