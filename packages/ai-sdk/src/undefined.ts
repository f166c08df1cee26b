/**
 * Server-side SDK objects may carry `undefined` fields (an optional field
 * set to nothing); JSON, the wire format of UI messages, has no such
 * thing and drops them. Stored messages follow JSON: such fields are absent.
 */

/** `value` with every object field whose value is `undefined` removed, at any depth; other values as they are. */
export function dropUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropUndefined);
  if (value === null || typeof value !== 'object') return value;
  const proto = Object.getPrototypeOf(value);
  // Only plain objects: anything else is left for validation to refuse.
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .map(([key, field]) => [key, dropUndefined(field)]),
  );
}
