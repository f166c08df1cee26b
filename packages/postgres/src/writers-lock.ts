/**
 * The writers' lock of a schema (docs/contract.md §7, "Positions"): a
 * transaction-scoped advisory lock every write to the `state` stream holds
 * shared from its `BEGIN`, before it takes any position, so writers run in
 * parallel and a reader can find those that may still hold positions
 * (`settled_position()`, `schema-script.ts`). Work that needs no writer in
 * flight takes it exclusive: a purge, a rebuild, a bare log append to
 * `state` (projected in its own transaction), an import, a sync's receive
 * (taken inside a write that holds it shared).
 */
import type { Database } from './database.js';
import { WRITERS_LOCK_KEY } from './schema-script.js';

/** Shared by writers; exclusive for work no writer may interleave with. */
export type WritersLockMode = 'shared' | 'exclusive';

/**
 * The two keys of one of schema `schema`'s advisory locks, as SQL: `first`, then the hash of the quoted schema name,
 * as the creation script's `{schema}` spells it (the writers' lock's, `settled_position()` reads it so).
 */
export function schemaLockKeys(first: number, schema: string): string {
  return `${first}, hashtext('"${schema}"')`;
}

/** The statement taking the writers' lock until the transaction ends; without parameters, so it can follow `BEGIN`. */
export function writersLock(db: Database, mode: WritersLockMode): string {
  const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  return `SELECT ${fn}(${schemaLockKeys(WRITERS_LOCK_KEY, db.schema)})`;
}

/** `BEGIN` and the writers' lock in one round trip, for `Database.transaction`. */
export function beginWriting(db: Database, mode: WritersLockMode): string {
  return `BEGIN; ${writersLock(db, mode)}`;
}

/**
 * `BEGIN` of a read-only REPEATABLE READ transaction whose snapshot holds no
 * writer in flight: the writers' lock is taken exclusive for the session,
 * the snapshot taken, the lock released. Its tables are
 * the fold of a prefix of the positions: the events up to the largest it
 * sees, with no later-committing one below.
 */
export function beginQuiescentRead(db: Database): readonly string[] {
  const key = schemaLockKeys(WRITERS_LOCK_KEY, db.schema);
  // Two round trips: statements before a `BEGIN` in one simple query would join its transaction.
  return [`SELECT pg_advisory_lock(${key})`, `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT pg_advisory_unlock(${key})`];
}
