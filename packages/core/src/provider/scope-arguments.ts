/**
 * A scope is passed as an option (`{ scope }`) to every store method
 * (docs/contract.md §4, "Scopes"). The positional forms that came first
 * (`skills.list(scope, options)`, `skills.get(slug, scope)`,
 * `skills.delete(slug, scope, options)`, `memory.getByKey(scope, key)`) are
 * deprecated aliases, read here as the option form, so the stores and every
 * wrapper over them handle one shape.
 */
import type { ScopeInput } from '../records/scope.js';
import { LEGACY_SCOPE_LEVELS } from '../records/scope.js';

/** True for a scope passed positionally: a path of labels, or the legacy object. */
function isScopeArgument(value: unknown): value is ScopeInput {
  if (Array.isArray(value)) return true;
  return value !== null && typeof value === 'object' && LEGACY_SCOPE_LEVELS.some((key) => Object.hasOwn(value, key));
}

/**
 * The options of a call made either way: `(options)`, or the deprecated
 * `(scope, options)`. A second argument, or a first that is a scope, is the
 * deprecated form. An empty object means the global scope either way.
 */
export function scopeOptions<O extends { scope?: ScopeInput }>(first: O | ScopeInput | undefined, legacy?: Omit<O, 'scope'>): O {
  if (legacy !== undefined || isScopeArgument(first)) return { ...legacy, scope: first as ScopeInput | undefined } as O;
  return (first ?? {}) as O;
}

/**
 * The key and scope of a `memory.getByKey` call made either way:
 * `(key, { scope })`, or the deprecated `(scope, key)`. The values are
 * validated by the store.
 */
export function keyAndScope(first: string | ScopeInput, second: unknown): { key: unknown; scope: ScopeInput | undefined } {
  if (typeof first === 'string') return { key: first, scope: (second as { scope?: ScopeInput } | undefined)?.scope };
  return { key: second, scope: first };
}
