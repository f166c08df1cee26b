/**
 * Sources of random bytes. Domain code never calls `Math.random()` or
 * `crypto.randomBytes` directly, so that seeded runs are reproducible.
 */
import { randomFillSync } from 'node:crypto';

/** Fills a buffer with random bytes. */
export type Entropy = (bytes: Uint8Array) => void;

/**
 * Bytes drawn from the operating system at a time: an id takes 10, and one
 * call costs microseconds whatever its size, as much as the rest of making
 * the id. Each byte is handed out once.
 */
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolAt = POOL_BYTES;

/** Cryptographically strong entropy from the operating system, drawn a pool at a time. */
export const systemEntropy: Entropy = (bytes) => {
  if (bytes.length > POOL_BYTES) {
    randomFillSync(bytes);
    return;
  }
  if (poolAt + bytes.length > POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  bytes.set(pool.subarray(poolAt, poolAt + bytes.length));
  poolAt += bytes.length;
};

/**
 * Deterministic entropy from a 32-bit seed (SplitMix32). Not for secrets:
 * it exists so the same seed gives the same ids in tests and replays.
 */
export function seededEntropy(seed: number): Entropy {
  let state = seed >>> 0;
  return (bytes) => {
    for (let i = 0; i < bytes.length; i += 1) {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      bytes[i] = (z ^ (z >>> 16)) & 0xff;
    }
  };
}
