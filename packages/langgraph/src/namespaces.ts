/**
 * LangGraph's `listNamespaces` over `provider.namespaces`: the namespaces
 * holding at least one store item, filtered by prefix and suffix conditions
 * (`*` matches any one label), truncated to `maxDepth`, deduplicated, in
 * label-by-label code-point order, then `offset` and `limit`.
 */
import type { Provider, Scope } from '@agentstate/core';
import type { ListNamespacesOperation, MatchCondition } from '@langchain/langgraph-checkpoint';

/** True when `namespace` satisfies the condition, as LangGraph's stores decide it. */
export function matchesCondition(condition: MatchCondition, namespace: readonly string[]): boolean {
  const { path } = condition;
  if (path.length > namespace.length) return false;
  const start = condition.matchType === 'prefix' ? 0 : namespace.length - path.length;
  return path.every((label, i) => label === '*' || namespace[start + i] === label);
}

/** The labels a prefix condition fixes before its first wildcard: where the provider can start looking. */
function fixedPrefix(conditions: readonly MatchCondition[]): string[] {
  const prefix = conditions.find((c) => c.matchType === 'prefix')?.path ?? [];
  const wildcard = prefix.indexOf('*');
  return prefix.slice(0, wildcard === -1 ? prefix.length : wildcard);
}

/** Runs a listNamespaces operation; `holdsItems` says whether a scope holds a store item itself. */
export async function listStoreNamespaces(
  provider: Provider,
  op: ListNamespacesOperation,
  holdsItems: (scope: Scope) => Promise<boolean>,
): Promise<string[][]> {
  const conditions = op.matchConditions ?? [];
  // No limit: every scope under the prefix, in one page.
  const scopes = await provider.namespaces({ prefix: fixedPrefix(conditions) });
  const found: string[][] = [];
  let last: string | undefined;
  // The provider's order is label by label, and cutting every path to the same depth keeps it: duplicates are adjacent.
  for (const scope of scopes) {
    if (scope.length === 0 || !conditions.every((c) => matchesCondition(c, scope)) || !(await holdsItems(scope))) continue;
    const namespace = op.maxDepth === undefined ? [...scope] : scope.slice(0, op.maxDepth);
    const key = JSON.stringify(namespace);
    if (key !== last) found.push(namespace);
    last = key;
  }
  const offset = op.offset ?? 0;
  return found.slice(offset, op.limit === undefined ? undefined : offset + op.limit);
}
