/**
 * `provider.namespaces` over any backend: the backend names the distinct
 * live scopes under a prefix; truncation, deduplication, order and the cap
 * are decided here, once.
 */
import type { NamespacesOptions } from '../records/inputs.js';
import { namespacesOptionsSchema, parseInput } from '../records/inputs.js';
import type { Scope } from '../records/records.js';
import { compareScopes, scopeKey, toScope } from '../records/scope.js';
import type { StateQueries } from '../write/backend.js';

/** The namespaces of the read model, as {@link NamespacesOptions} selects them. */
export async function listNamespaces(queries: StateQueries, options: NamespacesOptions = {}): Promise<Scope[]> {
  const o = parseInput(namespacesOptionsSchema, options);
  const prefix = toScope(o.prefix);
  const distinct = new Map<string, Scope>();
  for (const scope of await queries.liveScopes(prefix)) {
    const cut = o.maxDepth === undefined ? scope : scope.slice(0, o.maxDepth);
    distinct.set(scopeKey(cut), cut);
  }
  const sorted = [...distinct.values()].sort(compareScopes);
  const limit = o.limit ?? 0;
  return (limit > 0 ? sorted.slice(0, limit) : sorted).map((scope) => [...scope]);
}
