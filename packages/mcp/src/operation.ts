/**
 * The `operationId` argument of the writing tools (docs/contract.md §4,
 * idempotent writes): a client that retries a call with the same
 * operationId and arguments gets the first answer, and nothing is written
 * twice.
 */
import { createHash } from 'node:crypto';
import { writeOptionsSchema } from '@agentstate/core';

/** The optional `operationId` argument of every writing tool. */
export const operationIdArg = writeOptionsSchema.shape.operationId.describe(
  'Makes the call idempotent: retry with the same operationId and arguments (after a timeout, a crash, a lost answer) and you get the first answer, with nothing written twice. The same operationId with other arguments is refused as a conflict.',
);

/**
 * The UUID a session created under `operationId` gets instead of a fresh
 * UUIDv7, so that a retry names the same session and so has the same input:
 * a version 8 (custom) UUID from SHA-256 of the operation id.
 */
export function operationSessionUuid(operationId: string): string {
  const hex = createHash('sha256').update(`session_create\u0000${operationId}`, 'utf8').digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
