/** Metadata and metadata filters drawn from small pools of keys and values, so that filters often hit, often miss, and often compare across types. */
import type { JsonObject, JsonValue, WhereInput, WhereScalar } from '@agentstate/core';
import fc from 'fast-check';

const KEYS = ['a', 'b', 'tag', 'n'] as const;

/** A scalar from a small pool: numbers around zero, short strings (one above the BMP), booleans, null. */
export function arbScalar(): fc.Arbitrary<WhereScalar> {
  return fc.oneof(
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom(0.5, -1.5, 1e21),
    fc.constantFrom('', 'x', 'y', 'X', 'é', '\u{1F600}', '\uFFFD'),
    fc.boolean(),
    fc.constant(null),
  );
}

function arbValue(depth: number): fc.Arbitrary<JsonValue> {
  if (depth <= 0) return arbScalar();
  return fc.oneof(
    { arbitrary: arbScalar(), weight: 4 },
    { arbitrary: fc.array(arbScalar(), { maxLength: 2 }), weight: 1 },
    { arbitrary: arbObject(depth - 1), weight: 1 },
  );
}

function arbObject(depth: number): fc.Arbitrary<JsonObject> {
  return fc.dictionary(fc.constantFrom(...KEYS, 'x'), arbValue(depth), { maxKeys: 3 });
}

/** A metadata object, nested at most two levels. */
export function arbMetadata(): fc.Arbitrary<JsonObject> {
  return arbObject(2);
}

/** A metadata filter over the same keys: equality, every operator, paths into nested objects and missing ones. */
export function arbWhere(): fc.Arbitrary<WhereInput> {
  const path = fc.constantFrom(...KEYS, 'a.x', 'b.x', 'a.x.n', 'missing');
  const ordered = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(0.5, 'x', 'é', '\u{1F600}'));
  // One or two operators per path: more would almost never be satisfiable together, and a filter
  // that matches nothing agrees with any evaluation.
  const operator = fc.oneof(
    fc.tuple(fc.constantFrom('$eq', '$ne'), arbScalar()),
    fc.tuple(fc.constantFrom('$gt', '$gte', '$lt', '$lte'), ordered),
    fc.tuple(fc.constantFrom('$in', '$nin'), fc.array(arbScalar(), { maxLength: 3 })),
    fc.tuple(fc.constant('$exists'), fc.boolean()),
  );
  const nonEmpty = fc
    .uniqueArray(operator, { minLength: 1, maxLength: 2, selector: ([op]) => op })
    .map((pairs) => Object.fromEntries(pairs) as Exclude<WhereInput[string], WhereScalar>);
  return fc.dictionary(path, fc.oneof(arbScalar(), nonEmpty), { maxKeys: 3 });
}
