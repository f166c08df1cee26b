/**
 * The stamping rule of event times (docs/contract.md §7): along a stream a
 * time never decreases. A clock reading earlier than the event before is
 * raised to its time; a given earlier time is refused and stores nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatInstant, InMemoryLog, ManualClock, ValidationError } from '@agentstate/core';

const T0 = Date.UTC(2026, 0, 1, 12);
const HOUR = 3_600_000;

/** A clock step (back when negative), or an append to one of two streams, with a time given relative to T0 or none. */
type Step = { kind: 'clock'; ms: number } | { kind: 'append'; stream: 'a' | 'b'; given: number | undefined };

const arbStep: fc.Arbitrary<Step> = fc.oneof(
  fc.integer({ min: -HOUR, max: HOUR }).map((ms): Step => ({ kind: 'clock', ms })),
  fc
    .record({ stream: fc.constantFrom('a' as const, 'b' as const), given: fc.option(fc.integer({ min: -2 * HOUR, max: 2 * HOUR }), { nil: undefined }) })
    .map(({ stream, given }): Step => ({ kind: 'append', stream, given })),
);

describe('event times along a stream', () => {
  it('are the later of the clock and the time before, a given time is kept when not earlier and refused when earlier', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbStep, { maxLength: 40 }), async (steps) => {
        const clock = new ManualClock(T0);
        const log = new InMemoryLog({ clock });
        const last = new Map<string, number>();
        for (const step of steps) {
          if (step.kind === 'clock') {
            clock.advance(step.ms);
            continue;
          }
          const before = last.get(step.stream);
          const head = await log.head(step.stream);
          const input = { stream: step.stream, type: 't', payload: {} };
          if (step.given === undefined) {
            const event = await log.append(input);
            expect(event.time).toBe(formatInstant(Math.max(clock.now(), before ?? -Infinity)));
          } else if (before !== undefined && T0 + step.given < before) {
            await expect(log.append({ ...input, time: formatInstant(T0 + step.given) })).rejects.toBeInstanceOf(ValidationError);
            expect(await log.head(step.stream)).toBe(head);
            continue;
          } else {
            expect((await log.append({ ...input, time: formatInstant(T0 + step.given) })).time).toBe(formatInstant(T0 + step.given));
          }
          last.set(step.stream, Date.parse((await log.read({ stream: step.stream, afterSeq: head })).at(0)!.time));
        }
        for (const stream of ['a', 'b']) {
          const times = (await log.read({ stream })).map((e) => e.time);
          expect(times).toEqual([...times].sort());
        }
      }),
      { numRuns: 200 },
    );
  });
});
