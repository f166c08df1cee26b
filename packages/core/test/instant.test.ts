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

  it('judges a string canonical exactly when a round trip through Date keeps it', () => {
    const roundTrip = (value: string) => {
      const ms = Date.parse(value);
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value) && !Number.isNaN(ms) && new Date(ms).toISOString() === value;
    };
    const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
    // Fields drawn past their ranges too: day 31 of a short month, February 29 of any year, hour 24, second 60.
    const candidate = fc
      .tuple(digits(4, 9999), digits(2, 13), digits(2, 32), digits(2, 24), digits(2, 60), digits(2, 60), digits(3, 999))
      .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
    fc.assert(
      fc.property(candidate, (value) => isCanonicalInstant(value) === roundTrip(value)),
      { numRuns: 20_000 },
    );
    for (const value of [
      '2024-02-29T00:00:00.000Z',
      '2023-02-29T00:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2000-02-29T23:59:59.999Z',
      '0000-01-01T00:00:00.000Z',
    ])
      expect(isCanonicalInstant(value)).toBe(roundTrip(value));
  });
});
