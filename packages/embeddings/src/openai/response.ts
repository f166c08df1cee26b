/**
 * Reading a `/v1/embeddings` answer: `{ data: [{ index, embedding }, …] }`,
 * checked against the request (one vector per input, each of the expected
 * length, finite numbers) and put back in input order by `index`.
 */
import { EmbeddingResponseError } from '../errors.js';

/**
 * Parses and checks the body of a 2xx answer to a request of `count` inputs.
 * Items without `index` are taken in order, but only when none has one.
 */
export function parseEmbeddingsResponse(body: string, count: number, dimensions: number, attempts: number): Float32Array[] {
  const fail = (message: string, cause?: unknown): never => {
    throw new EmbeddingResponseError(message, attempts, cause === undefined ? undefined : { cause });
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (cause) {
    return fail(`not JSON: ${JSON.stringify(body.slice(0, 100))}`, cause);
  }
  const data = typeof parsed === 'object' && parsed !== null ? (parsed as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return fail('no "data" array');
  if (data.length !== count) return fail(`${data.length} vectors for ${count} inputs`);
  const items = data as unknown[];
  const indexed = items.filter((item) => typeof item === 'object' && item !== null && 'index' in item).length;
  if (indexed !== 0 && indexed !== count) return fail('"index" on some items but not all');
  const out = new Array<Float32Array | undefined>(count);
  items.forEach((item, position) => {
    if (typeof item !== 'object' || item === null) fail(`data[${position}] is not an object`);
    const { index, embedding } = item as { index?: unknown; embedding?: unknown };
    const at = indexed === 0 ? position : index;
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= count) {
      fail(`data[${position}].index ${JSON.stringify(index)} is not an input position`);
    }
    const slot = at as number;
    if (out[slot] !== undefined) fail(`index ${slot} appears twice`);
    if (!Array.isArray(embedding)) fail(`data[${position}].embedding is not an array`);
    const values = embedding as unknown[];
    if (values.length !== dimensions) fail(`data[${position}].embedding has ${values.length} dimensions, expected ${dimensions}`);
    const vector = new Float32Array(dimensions);
    for (let d = 0; d < dimensions; d += 1) {
      const value = values[d];
      if (typeof value !== 'number' || !Number.isFinite(value)) fail(`data[${position}].embedding[${d}] is not a finite number`);
      vector[d] = value as number;
    }
    out[slot] = vector;
  });
  return out as Float32Array[];
}
