/**
 * JSON values that callers store (metadata, tool inputs and outputs, data
 * parts): checked once here, for the input schemas and the decoder alike
 * (docs/contract.md §4), so that what is written reads back exactly.
 */
import { z } from 'zod';
import { textProblem } from './fields.js';
import { LIMITS } from './limits.js';

/** A JSON value: what survives `JSON.stringify` and `JSON.parse` unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Keys that would reach an object's prototype when a consumer assigns them. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A problem found at a path inside a value: an instance of its own class, so no JSON object is ever mistaken for one. */
class JsonProblem {
  constructor(
    readonly path: (string | number)[],
    readonly message: string,
  ) {}
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Characters the JSON of a value can take at most: a string's character can
 * take six (`\u001f`), a number 25 (`-0.0000012345678901234567`), `false` 5;
 * an array or object 2, and 1 per member for a comma.
 */
const MAX_CHARS_PER_TEXT_CHAR = 6;
const MAX_NUMBER_CHARS = 25;

/** The bound on the JSON length of what {@link toJsonValue} copied, summed as it walks. */
interface JsonSize {
  bound: number;
}

/**
 * A copy of `value` as a JSON value (`-0` becomes `0`, which is what
 * JSON keeps), or the first problem: a value JSON cannot hold (`undefined`,
 * a function, a symbol, a bigint, `NaN` or an infinity, a class instance, a
 * sparse array), text with NUL or lone surrogates, a prototype key, or
 * nesting deeper than {@link LIMITS.jsonDepth}. Adds to `size.bound` at
 * least the length of the copy's JSON.
 */
function toJsonValue(value: unknown, path: (string | number)[] = [], depth = 0, size: JsonSize = { bound: 0 }): JsonValue | JsonProblem {
  if (value === null || typeof value === 'boolean') {
    size.bound += 5;
    return value;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return new JsonProblem(path, 'must be a finite number');
    size.bound += MAX_NUMBER_CHARS;
    return value === 0 ? 0 : value;
  }
  if (typeof value === 'string') {
    const found = textProblem(value);
    size.bound += value.length * MAX_CHARS_PER_TEXT_CHAR + 2;
    return found ? new JsonProblem(path, found) : value;
  }
  if (typeof value !== 'object') return new JsonProblem(path, `a ${typeof value} is not a JSON value`);
  if (depth >= LIMITS.jsonDepth) return new JsonProblem(path, `nests deeper than ${LIMITS.jsonDepth} levels`);
  size.bound += 2;
  if (Array.isArray(value)) {
    const copy: JsonValue[] = [];
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value)) return new JsonProblem([...path, i], 'a sparse array is not a JSON value');
      size.bound += 1;
      const item = toJsonValue(value[i], [...path, i], depth + 1, size);
      if (item instanceof JsonProblem) return item;
      copy.push(item);
    }
    return copy;
  }
  if (!isPlainObject(value)) return new JsonProblem(path, 'must be a plain object');
  const copy: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (PROTOTYPE_KEYS.has(key)) return new JsonProblem([...path, key], `the key ${key} is not allowed`);
    const keyProblem = textProblem(key);
    if (keyProblem) return new JsonProblem([...path, key], `key ${keyProblem}`);
    // The key, its quotes, the colon and a comma.
    size.bound += key.length * MAX_CHARS_PER_TEXT_CHAR + 4;
    const converted = toJsonValue(item, [...path, key], depth + 1, size);
    if (converted instanceof JsonProblem) return converted;
    copy[key] = converted;
  }
  return copy;
}

/** What {@link jsonValueField} and {@link jsonObjectField} parse: with `object`, a JSON object only. */
function jsonField<T extends JsonValue>(maxChars: number, object: boolean) {
  return z.unknown().transform((value, ctx): T => {
    const notObject = object && (value === null || typeof value !== 'object' || Array.isArray(value));
    const result = notObject ? new JsonProblem([], 'must be a JSON object') : checkedJson(value, maxChars);
    if (!(result instanceof JsonProblem)) return result as T;
    ctx.addIssue({ code: 'custom', message: result.message, path: result.path });
    return z.NEVER;
  });
}

/**
 * A JSON value of at most `maxChars` characters of canonical JSON. Parsing
 * returns a checked copy, so a caller's later changes never reach what was
 * stored.
 */
export function jsonValueField(maxChars: number) {
  return jsonField<JsonValue>(maxChars, false);
}

/** A JSON object of at most `maxChars` characters of canonical JSON. */
export function jsonObjectField(maxChars: number) {
  return jsonField<JsonObject>(maxChars, true);
}

/** A `metadata` object: JSON, at most {@link LIMITS.metadata} characters. */
export const metadataField = jsonObjectField(LIMITS.metadata);

function checkedJson(value: unknown, maxChars: number): JsonValue | JsonProblem {
  const size: JsonSize = { bound: 0 };
  const copy = toJsonValue(value, [], 0, size);
  if (copy instanceof JsonProblem) return copy;
  // Well under the limit (a checkpoint's few kilobytes against its megabytes) the JSON need not be written to be measured.
  if (size.bound <= maxChars) return copy;
  // The copy holds JSON values only, so its JSON has the canonical length: key order never changes a length.
  const length = JSON.stringify(copy).length;
  if (length > maxChars) return new JsonProblem([], `at most ${maxChars} characters of JSON (this is ${length})`);
  return copy;
}
