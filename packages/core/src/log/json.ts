/**
 * JSON helpers for the log: payloads are JSON, so what goes in equals what
 * comes out, and later mutation of a caller's object never changes history.
 */

/**
 * JSON with object keys sorted at every level, so equal values always give
 * equal text (snapshots, hashes, comparisons).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** {@link canonicalJson} of `value` without its key `without` (a digest over the other fields), and without a copy of it. */
export function canonicalJsonWithout(value: object, without: string): string {
  return JSON.stringify(sortKeys(value, without));
}

function sortKeys(value: unknown, without?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => sortKeys(item));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of sortedKeys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined || key === without) continue;
      // An own `__proto__` key stays a key, as JSON.stringify reads it; an assignment would set the prototype and drop it.
      if (key === '__proto__') Object.defineProperty(out, key, { value: sortKeys(v), enumerable: true, writable: true, configurable: true });
      else out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/**
 * The own keys of `value` in `sort()` order (UTF-16 code units), a record's few sorted in place: `sort()`
 * allocates a work array per call, which, at every level of every digest of a sync, made one allocation in seven.
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i += 1) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j -= 1) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}
