/**
 * The system entropy hands out operating-system random bytes from a pool:
 * never the same bytes twice, across refills, whatever the sizes asked.
 */
import { describe, expect, it } from 'vitest';
import { systemEntropy } from '../src/ids/entropy.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('system entropy', () => {
  it('never hands out the same bytes twice, across pool refills and sizes', () => {
    const seen = new Set<string>();
    // 10 bytes a draw, as an id takes: far more than one pool's worth.
    for (let i = 0; i < 2_000; i += 1) {
      const bytes = new Uint8Array(10);
      systemEntropy(bytes);
      seen.add(hex(bytes));
    }
    expect(seen.size).toBe(2_000);
    // Two runs of draws of each size, at least 64 bytes a run: two random runs that equal each other
    // mean the pool handed the same bytes out again (two single bytes alone are equal once in 256).
    const run = (size: number): string => {
      let out = '';
      for (let drawn = 0; drawn < 64; drawn += size) {
        const bytes = new Uint8Array(size);
        systemEntropy(bytes);
        out += hex(bytes);
      }
      return out;
    };
    for (const size of [1, 7, 4095, 4096, 4097, 10_000]) {
      const a = run(size);
      expect(a).not.toBe(run(size));
      // Random bytes: a run is not left zeroed.
      expect(/[^0]/.test(a)).toBe(true);
    }
  });
});
