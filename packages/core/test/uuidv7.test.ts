import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUuidV7, ManualClock, seededEntropy, UuidV7Generator, uuidV7Time } from '../src/index.js';

describe('UuidV7Generator', () => {
  it('is strictly increasing per generator, even when the clock goes back', () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(fc.integer({ min: -100, max: 100 }), { maxLength: 300 }), (seed, moves) => {
        const clock = new ManualClock(1_700_000_000_000);
        const ids = new UuidV7Generator(clock, seededEntropy(seed));
        let previous = ids.next();
        for (const move of moves) {
          clock.advance(move);
          const next = ids.next();
          expect(isUuidV7(next)).toBe(true);
          expect(next > previous).toBe(true);
          previous = next;
        }
      }),
    );
  });

  it('stays increasing over a long burst within one millisecond', () => {
    const ids = new UuidV7Generator(new ManualClock(1_700_000_000_000), seededEntropy(7));
    let previous = ids.next();
    for (let i = 0; i < 100_000; i += 1) {
      const next = ids.next();
      if (!(next > previous)) throw new Error(`not increasing at ${i}: ${previous} then ${next}`);
      previous = next;
    }
    expect(uuidV7Time(previous)).toBeGreaterThanOrEqual(1_700_000_000_000);
  });

  it('gives the same ids for the same seed and clock', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const a = new UuidV7Generator(new ManualClock(5_000), seededEntropy(seed));
        const b = new UuidV7Generator(new ManualClock(5_000), seededEntropy(seed));
        const run = (g: UuidV7Generator) => Array.from({ length: 20 }, () => g.next());
        expect(run(a)).toEqual(run(b));
      }),
    );
  });

  it('embeds the creation millisecond and the version and variant bits', () => {
    const ms = Date.UTC(2026, 10, 29, 16, 54, 2, 123);
    const id = new UuidV7Generator(new ManualClock(ms), seededEntropy(1)).next();
    expect(uuidV7Time(id)).toBe(ms);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
  });

  it('differs between seeds', () => {
    const a = new UuidV7Generator(new ManualClock(5_000), seededEntropy(1)).next();
    const b = new UuidV7Generator(new ManualClock(5_000), seededEntropy(2)).next();
    expect(a).not.toBe(b);
  });

  it('writes the same text as ever, in range and far out of it', () => {
    // Ids of the generator as it was before it wrote its text into a buffer (a template of twenty pieces).
    const cases: Array<[number, number, string[]]> = [
      [1_700_000_000_000, 42, ['018bcfe5-6800-7484-8b3d-bf71dbeef95c', '018bcfe5-6800-7484-8b3d-bf71dbeef95d', '018bcfe5-6801-752d-8349-371e85788f67']],
      [0, 1, ['00000000-0000-7390-a4e7-d8c9a2608927', '00000000-0000-7390-a4e7-d8c9a2608928', '00000000-0001-7438-b58a-44d34b3f4777']],
      [-5, 3, ['000000-1-00-1-0000-0000-000000000001', '000000-1-00-1-0000-0000-000000000002', '000000-1-00-1-0000-0000-000000000003']],
      [2 ** 48 + 17, 9, ['10000000-0001-7285-a6b2-e2fcb463d858', '10000000-0001-7285-a6b2-e2fcb463d859', '10000000-0001-74aa-87ee-c97532966893']],
    ];
    for (const [start, seed, expected] of cases) {
      const clock = new ManualClock(start);
      const ids = new UuidV7Generator(clock, seededEntropy(seed));
      const got = [ids.next(), ids.next()];
      clock.advance(1);
      got.push(ids.next());
      expect(got).toEqual(expected);
    }
  });
});
