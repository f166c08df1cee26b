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

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}
