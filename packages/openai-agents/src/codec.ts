/**
 * A lossless JSON encoding of the values an Agents SDK item may hold that
 * JSON (and agentstate's JSON fields) cannot: `undefined`, `NaN`, the
 * infinities and `-0`, `Uint8Array` bytes, text with NUL or lone surrogates,
 * and keys such as `__proto__`. `decodeValue(encodeValue(v))` deep-equals `v`.
 */
import { ValidationError } from '@agentstate/core';

/** The key that marks an encoded value; an object that has it is itself escaped. */
const TAG = '$';

/** Keys agentstate refuses in stored JSON, or that would read as a tag. */
const ESCAPED_KEYS = new Set([TAG, '__proto__', 'constructor', 'prototype']);

/** NUL or a surrogate: text that may not be stored as it is. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters this pattern exists to find.
const SUSPECT = /[\u0000\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether agentstate stores `text` as it is (no NUL, no lone surrogate). */
export function isStorableText(text: string): boolean {
  return !SUSPECT.test(text) || (!text.includes('\u0000') && !LONE_SURROGATE.test(text));
}

/** A JSON value as agentstate stores it. */
export type Encoded = null | boolean | number | string | Encoded[] | { [key: string]: Encoded };

/** `value` as JSON agentstate accepts; `ValidationError` for what no item may hold (functions, class instances, cycles). */
export function encodeValue(value: unknown, path = 'item', seen: Set<object> = new Set()): Encoded {
  if (value === undefined) return { [TAG]: 'undefined' };
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number')
    return Number.isFinite(value) && !Object.is(value, -0) ? value : { [TAG]: 'number', v: Object.is(value, -0) ? '-0' : String(value) };
  if (typeof value === 'string')
    return isStorableText(value) ? value : { [TAG]: 'chars', v: Array.from({ length: value.length }, (_, i) => value.charCodeAt(i)) };
  if (typeof value !== 'object') throw new ValidationError(path, `a ${typeof value} cannot be stored`);
  if (value instanceof Uint8Array) return { [TAG]: 'bytes', v: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (seen.has(value)) throw new ValidationError(path, 'a cyclic value cannot be stored');
  seen.add(value);
  try {
    if (Array.isArray(value)) return Array.from({ length: value.length }, (_, i) => encodeValue(value[i], `${path}.${i}`, seen));
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw new ValidationError(path, 'only plain objects can be stored');
    const entries = Object.entries(value);
    if (entries.some(([key]) => ESCAPED_KEYS.has(key) || !isStorableText(key))) {
      // Keys that cannot be stored as keys are kept as encoded [key, value] pairs.
      return { [TAG]: 'entries', v: entries.map(([key, item]) => [encodeValue(key, path, seen), encodeValue(item, `${path}.${key}`, seen)]) };
    }
    const out: { [key: string]: Encoded } = {};
    for (const [key, item] of entries) out[key] = encodeValue(item, `${path}.${key}`, seen);
    return out;
  } finally {
    seen.delete(value);
  }
}

/** The value {@link encodeValue} encoded. */
export function decodeValue(encoded: Encoded): unknown {
  if (encoded === null || typeof encoded !== 'object') return encoded;
  if (Array.isArray(encoded)) return encoded.map(decodeValue);
  if (!Object.hasOwn(encoded, TAG)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(encoded)) out[key] = decodeValue(item);
    return out;
  }
  const v = encoded.v;
  switch (encoded[TAG]) {
    case 'undefined':
      return undefined;
    case 'number':
      return Number(v);
    case 'chars':
      return (v as number[]).map((code) => String.fromCharCode(code)).join('');
    case 'bytes':
      return new Uint8Array(Buffer.from(v as string, 'base64'));
    default: {
      const out: Record<string, unknown> = {};
      for (const [key, item] of v as [Encoded, Encoded][]) {
        Object.defineProperty(out, decodeValue(key) as string, { value: decodeValue(item), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
  }
}
