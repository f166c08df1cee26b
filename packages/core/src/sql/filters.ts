/**
 * Scope, kind and turn filters in the SQL of both backends: a {@link ScopeFilter}
 * over a `scope_key` column (the canonical JSON of a scope's labels), exact
 * scopes as one list membership and a scope's descendants as the key range
 * {@link descendantKeyRange} gives, so both read an index led by `scope_key`.
 * What the dialects spell differently is {@link SqlDialect}'s.
 */
import { descendantKeyRange, scopeKey } from '../records/scope.js';
import type { MemoryFilter, ScopeFilter, TurnFilter } from '../write/backend.js';
import type { Params, SqlDialect } from './metadata.js';
import { memoryRowFilter } from './metadata.js';

/** The condition that `column` lies in the filter's scopes, or `undefined` when the filter spans every scope. */
export function scopeCondition(d: SqlDialect, p: Params, filter: ScopeFilter, column: string): string | undefined {
  if (filter.scopes === undefined) return undefined;
  const exact = d.inList(p, column, filter.scopes.map(scopeKey));
  if (filter.descendantsOf === undefined) return exact;
  const { from, to } = descendantKeyRange(filter.descendantsOf);
  return `(${exact} OR (${column} >= ${p.add(from)} AND ${column} < ${p.add(to)}))`;
}

/** The condition of live turns (aliased `t`) of live sessions passing `filter`. */
export function turnWhere(d: SqlDialect, p: Params, filter: TurnFilter, t = 't'): string {
  let where = `${d.live(t)} AND EXISTS (SELECT 1 FROM ${d.table('sessions')} s WHERE s.id = ${t}.session_id AND ${d.live('s')})`;
  if (filter.sessionIds !== undefined) where += ` AND ${d.inList(p, `${t}.session_id`, filter.sessionIds)}`;
  if (filter.roles !== undefined) where += ` AND ${d.inList(p, `${t}.role`, filter.roles)}`;
  return where;
}

/**
 * The scope, kind and memory-row conditions on a row of `skills` or `memory` aliased `alias`, appended to a
 * `WHERE` (` AND …`, or `''` when there are none).
 */
export function recordFilter(d: SqlDialect, p: Params, query: ScopeFilter & MemoryFilter, alias: string): string {
  const scoped = scopeCondition(d, p, query, `${alias}.scope_key`);
  let sql = scoped === undefined ? '' : ` AND ${scoped}`;
  if (query.kinds !== undefined) sql += ` AND ${d.inList(p, `${alias}.kind`, query.kinds)}`;
  return sql + memoryRowFilter(d, p, query, alias);
}
