/**
 * Filters as SQL: a {@link ScopeFilter} over a `scope_key` column (the canonical JSON
 * of a scope's labels): exact scopes are equalities, a scope's descendants
 * the key range that {@link descendantKeyRange} gives, so both read an index
 * led by `scope_key`.
 */
import type { ScopeFilter, TurnFilter } from '@agentstate/core/backend';
import { descendantKeyRange, scopeKey } from '@agentstate/core/backend';

/** A condition and its parameters; `undefined` when the filter spans every scope. */
export function scopeCondition(filter: ScopeFilter, column: string): { sql: string; params: string[] } | undefined {
  if (filter.scopes === undefined) return undefined;
  const exact = `${column} IN (SELECT value FROM json_each(?))`;
  const keys = JSON.stringify(filter.scopes.map(scopeKey));
  if (filter.descendantsOf === undefined) return { sql: exact, params: [keys] };
  const { from, to } = descendantKeyRange(filter.descendantsOf);
  return { sql: `(${exact} OR (${column} >= ? AND ${column} < ?))`, params: [keys, from, to] };
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

/** The WHERE clause of live turns of live sessions passing `filter`, with its parameters. */
export function turnWhere(filter: TurnFilter, t = 't'): { where: string; params: unknown[] } {
  let where = `${t}.deleted = 0 AND EXISTS (SELECT 1 FROM sessions s WHERE s.id = ${t}.session_id AND s.deleted = 0)`;
  const params: unknown[] = [];
  if (filter.sessionIds !== undefined) {
    where += ` AND ${t}.session_id IN (SELECT value FROM json_each(?))`;
    params.push(JSON.stringify(filter.sessionIds));
  }
  if (filter.roles !== undefined) {
    where += ` AND ${t}.role IN (SELECT value FROM json_each(?))`;
    params.push(JSON.stringify(filter.roles));
  }
  return { where, params };
}
