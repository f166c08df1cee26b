/** Small vector helpers shared by the embedders. */

/**
 * Scales `v` to unit L2 length in place and returns it. A zero vector, or one
 * whose length is not a finite positive number (NaN or infinite components),
 * becomes the zero vector: never NaN.
 */
export function normalizeInPlace(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i += 1) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (!(norm > 0) || !Number.isFinite(norm)) {
    v.fill(0);
    return v;
  }
  for (let i = 0; i < v.length; i += 1) v[i] = v[i]! / norm;
  return v;
}
