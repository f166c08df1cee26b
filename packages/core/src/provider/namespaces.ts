/**
 * `provider.namespaces` over any backend: the backend names the distinct
 * live scopes under a prefix; truncation, deduplication, order and paging
 * are decided here, once.
 */
import { type NamespacesOptions, namespacesOptionsSchema, parseInput } from '../records/inputs.js';
import { type Page, openPager, TEXT_ASC } from '../paging/cursor.js';
import type { Scope } from '../records/records.js';
import { compareScopes, scopeKey, toScope } from '../records/scope.js';
import type { StateQueries } from '../write/backend.js';

/**
 * A scope's sort key: its labels joined by NUL, which no label holds and
 * which sorts below every other character, so text order on the key is
 * exactly label-by-label order with a prefix first (`compareScopes`).
 */
const labelsKey = (scope: Scope): string => scope.join('\u0000');

/** The namespaces of the read model, as {@link NamespacesOptions} selects them, one page at a time. */
export async function listNamespaces(queries: StateQueries, options: NamespacesOptions = {}): Promise<Page<Scope>> {
  const o = parseInput(namespacesOptionsSchema, options);
  const prefix = toScope(o.prefix);
  const pager = openPager<Scope>(
    { method: 'provider.namespaces', query: { prefix, maxDepth: o.maxDepth }, order: [TEXT_ASC], key: (scope) => [labelsKey(scope)] },
    o.cursor,
  );
  const distinct = new Map<string, Scope>();
  for (const scope of await queries.liveScopes(prefix)) {
    const cut = o.maxDepth === undefined ? scope : scope.slice(0, o.maxDepth);
    distinct.set(scopeKey(cut), cut);
  }
  const limit = o.limit ?? 0;
  const after = [...distinct.values()].filter((scope) => pager.isAfter(scope)).sort(compareScopes);
  return pager.page(
    (limit > 0 ? after.slice(0, limit + 1) : after).map((scope) => [...scope]),
    limit,
  );
}
