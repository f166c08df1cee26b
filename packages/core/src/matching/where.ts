/**
 * The one matcher of metadata filters (docs/contract.md §5). Backends that
 * evaluate filters their own way (SQLite's index of leaves) must agree with
 * it. The rules: a path walks nested objects only (never into arrays);
 * equality holds between scalars of the same type; ordering operators
 * compare numbers with numbers and strings with strings (code-point order);
 * a value of another type never matches them; `$ne` and `$nin` are the
 * negations of `$eq` and `$in`, so a missing value satisfies them.
 */
import type { JsonObject, JsonValue } from '../records/json.js';
import { compareStrings } from '../records/order.js';
import type { WhereCondition, WhereFilter, WhereScalar } from '../records/where.js';

/** What a path reaches, or undefined when nothing is there. */
export function valueAtPath(metadata: JsonObject, path: readonly string[]): JsonValue | undefined {
  let current: JsonValue = metadata;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment]!;
  }
  return current;
}

/** True when `value` is a scalar equal to `operand`, with the same type. */
function equals(value: JsonValue | undefined, operand: WhereScalar): boolean {
  if (value === undefined || (value !== null && typeof value === 'object')) return false;
  return value === operand;
}

/** Negative, zero or positive as `value` orders before, with or after `operand`; undefined across types. */
function order(value: JsonValue | undefined, operand: number | string): number | undefined {
  if (typeof operand === 'number') return typeof value === 'number' ? value - operand : undefined;
  return typeof value === 'string' ? compareStrings(value, operand) : undefined;
}

function holds(metadata: JsonObject, condition: WhereCondition): boolean {
  const value = valueAtPath(metadata, condition.path);
  switch (condition.op) {
    case '$eq':
      return equals(value, condition.value);
    case '$ne':
      return !equals(value, condition.value);
    case '$in':
      return condition.value.some((v) => equals(value, v));
    case '$nin':
      return !condition.value.some((v) => equals(value, v));
    case '$exists':
      return (value !== undefined) === condition.value;
    default: {
      const c = order(value, condition.value);
      if (c === undefined) return false;
      if (condition.op === '$gt') return c > 0;
      if (condition.op === '$gte') return c >= 0;
      if (condition.op === '$lt') return c < 0;
      return c <= 0;
    }
  }
}

/** True when `metadata` satisfies every condition of `filter`. */
export function matchesWhere(metadata: JsonObject, filter: WhereFilter): boolean {
  return filter.every((condition) => holds(metadata, condition));
}
