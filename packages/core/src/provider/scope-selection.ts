/**
 * How the `scope`, `includeParentScopes` and `includeDescendants` options of
 * a listing, search or recall become the {@link ScopeFilter} a backend
 * answers, decided once for every store.
 */
import type { Scope } from '../records/records.js';
import { scopeChain } from '../records/scope.js';
import type { ScopeFilter } from '../write/backend.js';

/** The options that choose scopes, already validated. */
export interface ScopeOptions {
  scope?: Scope | undefined;
  includeParentScopes?: boolean | undefined;
  includeDescendants?: boolean | undefined;
}

/** No scope: every scope. A scope: itself, plus its parent chain and its descendants when asked. */
export function selectScopes(o: ScopeOptions): ScopeFilter {
  if (o.scope === undefined) return {};
  const scopes = o.includeParentScopes ? scopeChain(o.scope) : [o.scope];
  return o.includeDescendants ? { scopes, descendantsOf: o.scope } : { scopes };
}
