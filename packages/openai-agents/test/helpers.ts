/** Shared test helpers. */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';

/**
 * Asserts that `actual` deep-equals `expected` as Node does strictly
 * (prototypes, `undefined` fields, `-0`, bytes), which also holds for
 * objects with an own `constructor` key, unlike `toStrictEqual`.
 */
export function expectSame(actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual).toStrictEqual(expected);
}
