/**
 * Core's metadata filters (docs/contract.md §5) in SQLite's spelling: one
 * dynamically typed `value` column in `memory_meta`, and `IN` lists.
 */
import type { WhereFilter } from '@agentstate/core';
import type { SqlDialect } from '@agentstate/core/backend';
import { memoryRowFilter as filterSql, Params } from '@agentstate/core/backend';

/** How SQLite spells a metadata filter. */
const SQLITE: SqlDialect = {
  valueColumn: () => 'value',
  anyOf: (p, column, values) => `${column} IN (${values.map((v) => p.add(v)).join(', ')})`,
};

/**
 * The expiry and metadata parts of a memory filter as SQL appended to a
 * `WHERE` on the memory row aliased `alias` (`''` when there are none).
 */
export function memoryRowFilter(filter: { where?: WhereFilter | undefined; now?: string | undefined }, alias: string): { sql: string; params: unknown[] } {
  const p = new Params(false);
  const sql = filterSql(SQLITE, p, filter, alias, 'memory_meta');
  return { sql, params: p.values };
}
