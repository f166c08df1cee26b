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
    for (const size of [1, 7, 4095, 4096, 4097, 10_000]) {
      const a = new Uint8Array(size);
      const b = new Uint8Array(size);
      systemEntropy(a);
      systemEntropy(b);
      expect(hex(a)).not.toBe(hex(b));
      // Random bytes: a long draw is not left zeroed.
      if (size >= 64) expect(a.some((x) => x !== 0)).toBe(true);
    }
  });
});
