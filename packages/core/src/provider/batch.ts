/**
 * Batch writes (docs/contract.md §4, "Batch writes"): many records in one
 * call and one transaction, each validated, stamped and its own event. A bad
 * element refuses the whole call before anything is written, with an error
 * that names its index.
 */
import type { z } from 'zod';
import { ConflictError, ValidationError } from '../errors.js';
import { LIMITS } from '../records/limits.js';
import { parseInput } from '../records/inputs.js';

/**
 * Validates every element of `values` with `schema`: `ValidationError` on
 * `<name>.<index>.<field>` for the first bad one, or on `name` when it is not
 * an array of at most `LIMITS.batch` elements.
 */
export function parseBatch<S extends z.ZodType>(schema: S, values: unknown, name: string): z.output<S>[] {
  if (!Array.isArray(values)) throw new ValidationError(name, 'expected an array');
  if (values.length > LIMITS.batch) throw new ValidationError(name, `at most ${LIMITS.batch} elements per call, got ${values.length}`);
  const out: z.output<S>[] = new Array(values.length);
  for (let i = 0; i < values.length; i += 1) out[i] = parseInput(schema, values[i], [name, String(i)]);
  return out;
}

/**
 * Runs the stamping of element `index`; a `ConflictError` it raises is
 * raised again naming the element (`<name>[<index>]: …`), so a caller knows
 * which one to fix. Other errors pass unchanged.
 */
export function atIndex<T>(name: string, index: number, stamp: () => T): T {
  try {
    return stamp();
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError(`${name}[${index}]: ${error.message}`, { cause: error });
    throw error;
  }
}
