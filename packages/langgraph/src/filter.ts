/**
 * LangGraph's search `filter` as an agentstate metadata filter (`where`,
 * docs/contract.md §4). The operators are the same words: a scalar or `$eq`,
 * `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$nin`. Where LangGraph's
 * `InMemoryStore` answers without looking (an object or array to compare
 * with, which never equals a stored value; `{}`, which holds for anything;
 * `undefined`, which holds where the field is missing) the answer is kept.
 * `$exists` is agentstate's addition; a dotted field is a path into nested
 * objects, where LangGraph would read a top-level key with a dot in it.
 */
import type { WhereInput } from '@agentstate/core';

/** The `filter` of a LangGraph search. */
export type StoreFilter = Record<string, unknown>;

/** A filter that no item can satisfy. */
export const MATCHES_NOTHING = Symbol('matches nothing');

// Every key an operator: LangGraph's eight, and agentstate's `$exists` (an unknown one is refused by core).
const isOperators = (value: object): boolean => Object.keys(value).every((key) => key.startsWith('$'));

/**
 * The `where` filter for a LangGraph `filter`, or {@link MATCHES_NOTHING}.
 * Unknown operators and values a filter cannot hold are left for core to
 * refuse with a `ValidationError` naming the field.
 */
export function toWhere(filter: StoreFilter | undefined): WhereInput | typeof MATCHES_NOTHING | undefined {
  if (filter === undefined) return undefined;
  const where: Record<string, unknown> = {};
  for (const [field, condition] of Object.entries(filter)) {
    if (condition === undefined) where[field] = { $exists: false };
    else if (Array.isArray(condition)) return MATCHES_NOTHING;
    else if (condition !== null && typeof condition === 'object') {
      if (!isOperators(condition)) return MATCHES_NOTHING;
      if (Object.keys(condition).length > 0) where[field] = condition;
    } else where[field] = condition;
  }
  return where as WhereInput;
}
