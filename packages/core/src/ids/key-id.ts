/**
 * The id of a new record that a key names, derived from that key (docs/contract.md §2): two stores that
 * create one skill slug, or write one memory key, of a scope apart create one record, whose versions
 * sync merges (§12), as it merges any record's.
 */
import { createHash } from 'node:crypto';
import type { ScopeInput } from '../records/scope.js';

/** A UUIDv8 (RFC 9562) of the SHA-256 of `[kind, scope, key]` as JSON. */
function keyId(kind: 'skill' | 'memory', scope: ScopeInput, key: string): string {
  const bytes = createHash('sha256')
    .update(JSON.stringify([kind, scope, key]))
    .digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The id of a skill created at `(scope, slug)`: the UUIDv8 of `["skill", scope, slug]`. */
export function skillId(scope: ScopeInput, slug: string): string {
  return keyId('skill', scope, slug);
}

/** The id of the memory item written under `key` in `scope`: the UUIDv8 of `["memory", scope, key]`. */
export function memoryId(scope: ScopeInput, key: string): string {
  return keyId('memory', scope, key);
}

/** Whether `item` is the item of its key, `memoryId(scope, key)`: written since keyed ids are derived, not of an older log. */
export function isKeyItem(item: { id: string; scope: ScopeInput; key: string | null }): boolean {
  return item.key !== null && item.id === memoryId(item.scope, item.key);
}
