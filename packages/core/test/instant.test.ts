import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatInstant, instantToMs, isCanonicalInstant, normalizeInstant } from '../src/index.js';

describe('instants', () => {
  it('are fixed width, so text order is time order', () => {
    const range = fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) });
    fc.assert(
      fc.property(range, range, (a, b) => {
        const x = formatInstant(a);
        const y = formatInstant(b);
        expect(x).toHaveLength(24);
        expect(x < y ? -1 : x > y ? 1 : 0).toBe(Math.sign(a - b));
        expect(instantToMs(x)).toBe(a);
      }),
    );
  });

  it('normalises other ISO forms and refuses garbage', () => {
    expect(normalizeInstant('2026-11-29T17:54:02+01:00')).toBe('2026-11-29T16:54:02.000Z');
    expect(normalizeInstant('2026-11-29T16:54:02.1Z')).toBe('2026-11-29T16:54:02.100Z');
    expect(normalizeInstant('yesterday')).toBeUndefined();
    expect(isCanonicalInstant('2026-11-29T16:54:02.123Z')).toBe(true);
    expect(isCanonicalInstant('2026-11-29T16:54:02Z')).toBe(false);
  });
});
