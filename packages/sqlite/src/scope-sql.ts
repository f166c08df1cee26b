/**
 * Core's filters (docs/contract.md §5) in SQLite's spelling: a list of text
 * is one `json_each` parameter, a metadata value one dynamically typed
 * `value` column in `memory_meta` and its lists `IN` lists; and the one
 * row source of a scope's subtree SQLite needs spelled apart.
 */
import type { ScopeFilter, SqlDialect } from '@agentstate/core/backend';
import { descendantKeyRange, Params, scopeKey } from '@agentstate/core/backend';

/** How SQLite spells a filter. */
export const SQLITE: SqlDialect = {
  valueColumn: () => 'value',
  anyOf: (p, column, values) => `${column} IN (${values.map((v) => p.add(v)).join(', ')})`,
  inList: (p, column, values) => `${column} IN (SELECT value FROM json_each(${p.add(JSON.stringify(values))}))`,
  live: (alias) => `${alias}.deleted = 0`,
  table: (name) => name,
};

/** The SQL `build` writes of one of core's filters in SQLite's spelling, and its parameters. */
export function sqliteSql(build: (d: SqlDialect, p: Params) => string): { sql: string; params: unknown[] } {
  const p = new Params(false);
  const sql = build(SQLITE, p);
  return { sql, params: p.values };
}

/**
 * The live rows of `table` in a filter that takes descendants, as a row
 * source for `FROM`: the exact scopes and the descendant range as two arms
 * of a `UNION ALL` (the exact arm leaves out keys the range holds), each a
 * search of an index led by `scope_key`. One `OR` of both would keep SQLite
 * from using that index: it walks the table's order index instead, every
 * live row when the subtree is small.
 */
export function liveRowsUnder(
  table: string,
  filter: ScopeFilter & { descendantsOf: NonNullable<ScopeFilter['descendantsOf']> },
): { sql: string; params: string[] } {
  const { from, to } = descendantKeyRange(filter.descendantsOf);
  const keys = JSON.stringify((filter.scopes ?? []).map(scopeKey));
  return {
    sql: `(SELECT * FROM ${table} WHERE deleted = 0 AND scope_key IN (SELECT value FROM json_each(?)) AND NOT (scope_key >= ? AND scope_key < ?)
      UNION ALL SELECT * FROM ${table} WHERE deleted = 0 AND scope_key >= ? AND scope_key < ?)`,
    params: [keys, from, to, from, to],
  };
}
