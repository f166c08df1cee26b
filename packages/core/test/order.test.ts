import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareStrings } from '../src/backend.js';

const byCodePoints = (a: string, b: string): number => {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

describe('compareStrings', () => {
  it('is code-point order, as SQLite and Postgres sort UTF-8', () => {
    expect(Math.sign(compareStrings('\uFF5E', '😀'))).toBe(-1);
    expect('\uFF5E' < '😀').toBe(false);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareStrings(a, b))).toBe(Math.sign(byCodePoints(a, b)));
      }),
    );
  });

  it('agrees with Buffer byte order of UTF-8', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareStrings(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))));
      }),
    );
  });
});
