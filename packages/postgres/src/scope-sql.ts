/**
 * A {@link ScopeFilter} as SQL over a `scope_key` column (the canonical JSON
 * of a scope's labels, collation "C"): exact scopes are one `= ANY`, a
 * scope's descendants the key range {@link descendantKeyRange} gives, so
 * both read an index led by `scope_key`.
 */
import type { Params, ScopeFilter } from '@agentstate/core/backend';
import { descendantKeyRange, scopeKey } from '@agentstate/core/backend';

/** The condition, or `undefined` when the filter spans every scope. */
export function scopeCondition(p: Params, filter: ScopeFilter, column: string): string | undefined {
  if (filter.scopes === undefined) return undefined;
  const exact = `${column} = ANY(${p.add(filter.scopes.map(scopeKey))}::text[])`;
  if (filter.descendantsOf === undefined) return exact;
  const { from, to } = descendantKeyRange(filter.descendantsOf);
  return `(${exact} OR (${column} >= ${p.add(from)} AND ${column} < ${p.add(to)}))`;
}

/** True when no scope can match: no exact scopes and no descendants. */
export function matchesNothing(filter: ScopeFilter): boolean {
  return filter.scopes?.length === 0 && filter.descendantsOf === undefined;
}
