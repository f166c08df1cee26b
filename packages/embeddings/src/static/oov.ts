/**
 * Vectors for words the table does not have: the sum of deterministic
 * pseudo-random vectors, one per character trigram of the word (with start
 * and end markers), hashed into the table's space. The same word always gets
 * the same vector, and words sharing trigrams (`postgres`, `postgresql`) get
 * similar ones; unrelated words are nearly orthogonal to them and to the
 * table's words. No table, no network: pure arithmetic.
 */
import { fnv1a } from './hash.js';

/** Only the first this-many UTF-16 code units of a token are hashed. */
const MAX_HASHED_LENGTH = 64;
/** Start and end markers: control characters, never part of a token. */
const START = '\u0002';
const END = '\u0003';
const SQRT3 = Math.sqrt(3);

/**
 * Adds `weight` × the hashed vector of `token` to `out`. The hashed vector has
 * an expected L2 norm of 1.
 */
export function addHashedVector(token: string, out: Float64Array, weight: number): void {
  const padded = `${START}${token.slice(0, MAX_HASHED_LENGTH)}${END}`;
  const dims = out.length;
  const grams = padded.length - 2;
  // Each gram's components are uniform with variance 1; scale so the sum has norm ≈ 1.
  const scale = (weight * SQRT3) / Math.sqrt(dims * grams);
  for (let g = 0; g < grams; g += 1) {
    let state = fnv1a(padded, g, g + 3);
    for (let d = 0; d < dims; d += 1) {
      // SplitMix32: one uniform 32-bit value per dimension.
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      z = (z ^ (z >>> 16)) >>> 0;
      out[d]! += scale * (z / 2147483648 - 1);
    }
  }
}
