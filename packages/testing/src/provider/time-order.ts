/** V8: time lookups when the writers' clocks go back or disagree (docs/contract.md §7 and §11). */
import { encodeSnapshot, type EventSourcedProvider, formatInstant, instantToMs, ManualClock, RETENTION_STREAM, STATE_STREAM } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { replayedAt } from '../suite/log-cut.js';
import { HOUR, T0 } from '../suite/fixtures.js';
import { checks, property, type ProviderCheck } from '../suite/harness.js';

/** One write: which writer makes it, after moving its clock by `step` ms (back when negative). */
const arbWrites = fc.array(fc.record({ writer: fc.constantFrom(0, 1), step: fc.integer({ min: -2 * HOUR, max: 2 * HOUR }) }), { minLength: 1, maxLength: 10 });

export const timeOrderChecks: ProviderCheck[] = checks(['eventSourced', 'injectableClock'], {
  "V8 time lookups with decreasing clocks: at({ time }) folds the longest prefix of the stream stamped at or before it; event times never decrease along a dense stream, and along each writer's events of a gapped one":
    (env) =>
      property(env, arbWrites, { numRuns: Math.max(1, Math.floor(env.propertyRuns / 4)) }, async (writes) => {
        // Two processes an hour apart on one store where the backend can share it; else one clock going back and forth.
        const clocks = [new ManualClock(T0), new ManualClock(T0 - HOUR)];
        const p = env.eventSourced(await env.open({ clock: clocks[0] }));
        const writers: EventSourcedProvider[] = [p];
        if (env.caps.sharedStorage) writers.push(env.eventSourced(await env.openShared(p, { clock: clocks[1] })));
        for (const [i, { writer, step }] of writes.entries()) {
          const w = writer % writers.length;
          clocks[w]!.advance(step);
          await writers[w]!.memory.write({ content: `write ${i} by writer ${w}` });
        }
        const events = await p.log.read({ stream: STATE_STREAM });
        const times = events.map((e) => e.time);
        // A gapped log's writers commit in parallel (docs/contract.md §7, "Positions"): each keeps its own order only.
        const writerOf = (e: (typeof events)[number]): string => /by writer (\d+)/.exec(JSON.stringify(e.payload))![1]!;
        for (const w of p.log.gapped === true ? writers.map((_, i) => String(i)) : []) {
          const own = events.filter((e) => writerOf(e) === w).map((e) => e.time);
          expect(own, `event times of writer ${w}`).toEqual([...own].sort());
        }
        if (p.log.gapped !== true) expect(times, 'event times along the stream').toEqual([...times].sort());
        for (const ms of times.flatMap((t) => [instantToMs(t) - 1, instantToMs(t)])) {
          const time = formatInstant(ms);
          // The consistent cut: every event before the first one stamped later than the instant.
          const later = events.findIndex((e) => e.time > time);
          const prefix = later === -1 ? events.length : later;
          const cut = events[prefix - 1]?.seq ?? 0;
          const view = await p.at({ time });
          expect(view.seq, `at ${time}`).toBe(cut);
          expect(encodeSnapshot(await view.capture()), `at ${time}`).toBe(encodeSnapshot(await replayedAt(p.log, cut)));
          const diff = await p.diff({ from: { time: formatInstant(T0 - 10 * HOUR) }, to: { time } });
          expect([diff.from.seq, diff.to.seq, diff.memory.created.length]).toEqual([0, cut, prefix]);
        }
        // Policies are events of their own stream, held to the same rule: a writer whose clock is behind still sets one.
        const late = Math.max(...clocks.map((c) => c.now())) + HOUR;
        clocks[0]!.set(late);
        await writers[0]!.retention.set({ record: 'memory', maxAge: '1d' });
        const last = writers.length - 1;
        clocks[last]!.set(late - 2 * HOUR);
        await writers[last]!.retention.set({ record: 'turn', maxAge: '1d' });
        const policies = await p.log.read({ stream: RETENTION_STREAM });
        expect(policies.map((e) => e.time)).toEqual([formatInstant(late), formatInstant(late)]);
      }),
});
