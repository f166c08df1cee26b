/**
 * A new skill's id, derived from its key (docs/contract.md §2): two stores that create one slug of a
 * scope apart create one record, whose versions sync merges (§12), as it merges any record's.
 */
import { createHash } from 'node:crypto';
import type { ScopeInput } from '../records/scope.js';

/** The id of a skill created at `(scope, slug)`: a UUIDv8 (RFC 9562) of the SHA-256 of `["skill", scope, slug]` as JSON. */
export function skillId(scope: ScopeInput, slug: string): string {
  const bytes = createHash('sha256')
    .update(JSON.stringify(['skill', scope, slug]))
    .digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
