import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../src/index.js';
import { jsonObjectField, jsonValueField, metadataField } from '../src/records/json.js';
import { canonicalJson, canonicalJsonWithout } from '../src/log/json.js';

const field = jsonValueField(LIMITS.longText);

describe('JSON values callers store', () => {
  it('read back exactly what JSON keeps, as a copy', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        // Prototype keys are refused on purpose (below); every other JSON value is kept.
        fc.pre(!/"(__proto__|constructor|prototype)":/.test(JSON.stringify(value)));
        const parsed = field.parse(value);
        expect(parsed).toStrictEqual(JSON.parse(JSON.stringify(value)));
        expect(JSON.parse(JSON.stringify(parsed))).toStrictEqual(parsed);
      }),
    );
  });

  it('are copied, so later changes of the caller never reach them', () => {
    const input = { a: [1, { b: 'c' }] };
    const parsed = field.parse(input) as { a: [number, { b: string }] };
    input.a.push(2);
    expect(parsed).toStrictEqual({ a: [1, { b: 'c' }] });
  });

  it('refuse what JSON cannot hold, naming where', () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ a: Number.NaN }, 'a', /finite/],
      [{ a: [1, Number.POSITIVE_INFINITY] }, 'a.1', /finite/],
      [{ a: undefined }, 'a', /undefined is not a JSON value/],
      [{ a: 1n }, 'a', /bigint/],
      [{ a: () => 1 }, 'a', /function/],
      [{ a: new Date(0) }, 'a', /plain object/],
      [{ a: new Map() }, 'a', /plain object/],
      [{ a: 'x\u0000y' }, 'a', /NUL/],
      [{ a: '\uD800' }, 'a', /surrogates/],
      [JSON.parse('{"__proto__": {"polluted": true}}'), '__proto__', /not allowed/],
      [{ constructor: 1 }, 'constructor', /not allowed/],
      [{ 'k\u0000': 1 }, 'k\u0000', /NUL/],
      [Object.assign(new Array(3), { 0: 1, 2: 3 }), '1', /sparse/],
    ];
    for (const [value, path, message] of cases) {
      const result = field.safeParse(value);
      expect(result.success, path).toBe(false);
      expect(result.error?.issues[0]?.path.map(String).join('.')).toBe(path);
      expect(result.error?.issues[0]?.message).toMatch(message);
    }
  });

  it('refuse nesting deeper than the limit and text over the size limit', () => {
    let deep: unknown = 1;
    for (let i = 0; i < LIMITS.jsonDepth; i += 1) deep = [deep];
    expect(field.safeParse(deep).success).toBe(true);
    expect(field.safeParse([deep]).success).toBe(false);
    expect(metadataField.safeParse({ t: 'x'.repeat(LIMITS.metadata - 8) }).success).toBe(true);
    expect(metadataField.safeParse({ t: 'x'.repeat(LIMITS.metadata - 7) }).error?.issues[0]?.message).toMatch(/at most 65536 characters/);
  });

  it('measure the JSON itself, escapes and the longest numbers included, whenever it may reach the limit', () => {
    // The size is bounded while copying and written only near the limit: these are the worst cases of that bound.
    const controls = '\u0001'.repeat(Math.floor((LIMITS.metadata - 8) / 6));
    const escaped = controls + 'x'.repeat(LIMITS.metadata - 8 - controls.length * 6);
    expect(JSON.stringify({ t: escaped }).length).toBe(LIMITS.metadata);
    expect(metadataField.safeParse({ t: escaped }).success).toBe(true);
    expect(metadataField.safeParse({ t: `${escaped}x` }).success).toBe(false);
    const worst = -0.0000012345678901234567;
    const numbers = Array.from({ length: Math.floor((LIMITS.metadata - 6) / 26) }, () => worst);
    const fits = { n: numbers };
    const length = JSON.stringify(fits).length;
    expect(metadataField.safeParse(fits).success).toBe(length <= LIMITS.metadata);
    const over = { n: numbers, pad: 'x'.repeat(LIMITS.metadata - length - 9 + 1) };
    expect(JSON.stringify(over).length).toBe(LIMITS.metadata + 1);
    expect(metadataField.safeParse(over).error?.issues[0]?.message).toMatch(/at most 65536 characters/);
    const keys = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`\u0002${i}`, true]));
    expect(metadataField.parse(keys)).toEqual(keys);
  });

  it('turn -0 into 0, as JSON does', () => {
    expect(Object.is(field.parse(-0), 0)).toBe(true);
  });

  it('as objects, refuse anything but an object', () => {
    for (const value of [null, [], 'x', 1, true]) expect(jsonObjectField(100).safeParse(value).success).toBe(false);
    expect(jsonObjectField(100).parse({})).toStrictEqual({});
  });
});

describe('canonical JSON', () => {
  /** The definition: a copy with every object's keys in `sort()` order, then `JSON.stringify`. */
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
          )
        : value;
  // Few keys and many (past the in-place sort's 32), unicode, integer-like and prototype ones among them.
  const keys = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.nat().map(String), fc.constantFrom('__proto__', 'constructor'));
  const values = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), tie('object'), fc.array(tie('value'), { maxLength: 4 })),
    object: fc.oneof(fc.dictionary(keys, tie('value'), { maxKeys: 8 }), fc.dictionary(keys, fc.jsonValue({ maxDepth: 0 }), { minKeys: 30, maxKeys: 80 })),
  }));

  it('keeps an own `__proto__` key as JSON.stringify does, at every level', () => {
    const value = JSON.parse('{"b":[{"__proto__":""}],"__proto__":{"a":1}}');
    expect(canonicalJson(value)).toBe('{"__proto__":{"a":1},"b":[{"__proto__":""}]}');
  });

  it('sorts every object by its keys, and leaves out one top-level key on request, as the definition does', () => {
    fc.assert(
      fc.property(values.object, keys, (value, key) => {
        expect(canonicalJson(value)).toBe(JSON.stringify(sorted(value)));
        const { [key]: _, ...rest } = value as Record<string, unknown>;
        expect(canonicalJsonWithout(value as object, key)).toBe(canonicalJson(rest));
      }),
    );
  });
});
