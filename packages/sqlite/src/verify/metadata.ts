/**
 * The index of metadata leaves (`memory_meta`) against the memory rows:
 * metadata filters read only it, so a missing, extra or changed leaf would
 * make recall answer differently from the records. The expected leaves are
 * derived from each live row's metadata exactly as the projection writes
 * them and compared with the stored ones. Nothing is written.
 */
import type { JsonObject } from '@agentstate/core';
import { rowCodec } from '@agentstate/core/backend';
import type { Connection } from '../connection.js';
import type { VerifyProblem } from './report.js';

/** Leaves named per problem. */
const MAX_LISTED = 5;

/** A leaf as one comparable string: item, path, type and the value with its SQLite type. */
const leafKey = (n: number, path: string, type: string, value: unknown): string =>
  JSON.stringify([n, path, type, typeof value, value === null ? null : String(value)]);

/** Compares `memory_meta` with the metadata of the live memory rows; inside a read transaction. */
export function checkMetadataIndex(conn: Connection): VerifyProblem[] {
  const expected = new Set<string>();
  const rows = conn.prepare('SELECT n, metadata FROM memory WHERE deleted = 0').iterate() as IterableIterator<{ n: number; metadata: string }>;
  for (const row of rows) {
    for (const leaf of rowCodec.metadataLeaves(JSON.parse(row.metadata) as JsonObject)) expected.add(leafKey(row.n, leaf.path, leaf.type, leaf.value));
  }
  const actual = new Set<string>();
  const stored = conn.prepare('SELECT item_n, path, type, value FROM memory_meta').iterate() as IterableIterator<{
    item_n: number;
    path: string;
    type: string;
    value: unknown;
  }>;
  for (const leaf of stored) actual.add(leafKey(leaf.item_n, leaf.path, leaf.type, leaf.value));
  const missing = [...expected].filter((k) => !actual.has(k));
  const extra = [...actual].filter((k) => !expected.has(k));
  const problems: VerifyProblem[] = [];
  const problem = (message: string): VerifyProblem => ({ part: 'tables', object: 'memory_meta', message, repair: 'rebuild' });
  if (missing.length) problems.push(problem(`memory_meta lacks ${missing.length} metadata leaves of live items (${missing.slice(0, MAX_LISTED).join(', ')})`));
  if (extra.length) problems.push(problem(`memory_meta holds ${extra.length} leaves no live item has (${extra.slice(0, MAX_LISTED).join(', ')})`));
  return problems;
}
