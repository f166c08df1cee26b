/**
 * `--at <seq|instant>` on read commands: the command reads a view of the
 * state as it was at that point of the log (a seq, or the last event at or
 * before an ISO-8601 instant) instead of the current state.
 */
import type { EventSourcedProvider, Provider } from '@agentstate/core';
import { parsePoint } from '@agentstate/open';
import type { OpenOptions } from './database.js';
import { withDatabase } from './database.js';

/** What a read command reads: the database, or its view at a point. */
export type Reader = Provider & Pick<EventSourcedProvider, 'retention'>;

/** Runs `fn` on the database opened read-only, or on its view at `at` when given. */
export async function withReader<T>(path: string, at: string | undefined, options: OpenOptions, fn: (reader: Reader) => Promise<T>): Promise<T> {
  return withDatabase(path, { ...options, readonly: true }, async (db) => fn(at === undefined ? db : await db.at(parsePoint(at))));
}
