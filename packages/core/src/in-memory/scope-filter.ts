/** The in-memory reading of a {@link ScopeFilter}: one predicate over a record's scope. */
import type { Scope } from '../records/records.js';
import { isDescendantScope, scopeKey } from '../records/scope.js';
import type { ScopeFilter } from '../write/backend.js';

/** True when no scope can match: no exact scopes and no descendants. */
export function matchesNoScope(filter: ScopeFilter): boolean {
  return filter.scopes?.length === 0 && filter.descendantsOf === undefined;
}

/** A predicate true for the scopes the filter spans. */
export function scopeFilter(filter: ScopeFilter): (scope: Scope) => boolean {
  const { scopes, descendantsOf } = filter;
  if (scopes === undefined) return () => true;
  const keys = new Set(scopes.map(scopeKey));
  if (descendantsOf === undefined) return (scope) => keys.has(scopeKey(scope));
  return (scope) => keys.has(scopeKey(scope)) || isDescendantScope(scope, descendantsOf);
}
