/**
 * The lock every write of a schema takes first: the `state` stream's head
 * row, `FOR UPDATE`. Work outside the write path that must not interleave
 * with a purge (storing a snapshot, caching an embedding) begins with it too,
 * so a purge commits wholly before it or wholly after.
 */
import { STATE_STREAM } from '@agentstate/core';
import type { Database } from './database.js';

/** `BEGIN` and the head lock in one round trip, for `Database.transaction`. */
export function beginLockingHead(db: Database): string {
  return `BEGIN; SELECT head FROM ${db.t('streams')} WHERE stream = '${STATE_STREAM}' FOR UPDATE`;
}
