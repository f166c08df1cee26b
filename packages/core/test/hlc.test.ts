import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareHlc, ManualClock } from '../src/index.js';
import { HLC_MAX_COUNTER, HybridLogicalClock } from '../src/time/hlc.js';

describe('HybridLogicalClock', () => {
  it('issues strictly increasing timestamps whatever the physical clock does', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5_000, max: 5_000 }), { maxLength: 200 }), (moves) => {
        const clock = new ManualClock(1_700_000_000_000);
        const hlc = new HybridLogicalClock(clock);
        let previous = hlc.now();
        for (const move of moves) {
          clock.advance(move);
          const next = hlc.now();
          expect(compareHlc(next, previous)).toBeGreaterThan(0);
          previous = next;
        }
      }),
    );
  });

  it('moves past every observed remote time', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ wall: fc.integer({ min: 0, max: 2e12 }), counter: fc.integer({ min: 0, max: HLC_MAX_COUNTER }) }), { maxLength: 50 }),
        (remotes) => {
          const hlc = new HybridLogicalClock(new ManualClock(1_000));
          for (const remote of remotes) {
            hlc.observe(remote);
            expect(compareHlc(hlc.now(), remote)).toBeGreaterThan(0);
          }
        },
      ),
    );
  });

  it('rolls a counter overflow into the next millisecond', () => {
    const hlc = new HybridLogicalClock(new ManualClock(10));
    hlc.observe({ wall: 10, counter: HLC_MAX_COUNTER });
    expect(hlc.now()).toEqual({ wall: 11, counter: 0 });
  });

  it('uses the physical time when it is ahead', () => {
    const clock = new ManualClock(100);
    const hlc = new HybridLogicalClock(clock);
    expect(hlc.now()).toEqual({ wall: 100, counter: 0 });
    expect(hlc.now()).toEqual({ wall: 100, counter: 1 });
    clock.advance(5);
    expect(hlc.now()).toEqual({ wall: 105, counter: 0 });
  });

  it('orders by wall, then counter', () => {
    expect(compareHlc({ wall: 1, counter: 9 }, { wall: 2, counter: 0 })).toBeLessThan(0);
    expect(compareHlc({ wall: 2, counter: 1 }, { wall: 2, counter: 0 })).toBeGreaterThan(0);
    expect(compareHlc({ wall: 2, counter: 1 }, { wall: 2, counter: 1 })).toBe(0);
  });
});
