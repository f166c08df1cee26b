/** V8: time lookups when the writers' clocks go back or disagree (docs/contract.md §7 and §11). */
import type { EventSourcedProvider } from '@agentstate/core';
import { encodeSnapshot, formatInstant, instantToMs, ManualClock, RETENTION_STREAM, STATE_STREAM } from '@agentstate/core';
import { foldLog } from '@agentstate/core/backend';
import fc from 'fast-check';
import { expect } from 'vitest';
import { cutAt } from '../suite/log-cut.js';
import { HOUR, T0 } from '../suite/fixtures.js';
import type { ProviderCheck } from '../suite/harness.js';
import { checks } from '../suite/harness.js';

/** One write: which writer makes it, after moving its clock by `step` ms (back when negative). */
const arbWrites = fc.array(fc.record({ writer: fc.constantFrom(0, 1), step: fc.integer({ min: -2 * HOUR, max: 2 * HOUR }) }), {
  minLength: 1,
  maxLength: 10,
});

export const timeOrderChecks: ProviderCheck[] = checks(['eventSourced', 'injectableClock'], {
  'V8 time lookups with decreasing clocks: event times never decrease, and at({ time }) folds exactly the events stamped at or before it': async (env) => {
    await fc.assert(
      fc.asyncProperty(arbWrites, async (writes) => {
        // Two processes an hour apart on one store where the backend can share it; else one clock going back and forth.
        const clocks = [new ManualClock(T0), new ManualClock(T0 - HOUR)];
        const p = env.eventSourced(await env.open({ clock: clocks[0] }));
        const writers: EventSourcedProvider[] = [p];
        try {
          if (env.caps.sharedStorage) writers.push(env.eventSourced(await env.openShared(p, { clock: clocks[1] })));
          for (const [i, { writer, step }] of writes.entries()) {
            const w = writer % writers.length;
            clocks[w]!.advance(step);
            await writers[w]!.memory.write({ content: `write ${i} by writer ${w}` });
          }
          const events = await p.log.read({ stream: STATE_STREAM });
          const times = events.map((e) => e.time);
          expect(times, 'event times along the stream').toEqual([...times].sort());
          for (const ms of times.flatMap((t) => [instantToMs(t) - 1, instantToMs(t)])) {
            const time = formatInstant(ms);
            const stamped = events.filter((e) => e.time <= time).map((e) => e.seq);
            const view = await p.at({ time });
            expect(view.seq, `at ${time}`).toBe(stamped.length);
            expect(stamped, `the events stamped at or before ${time}`).toEqual(stamped.map((_, i) => i + 1));
            const replayed = (await foldLog(cutAt(p.log, stamped.length), { fromScratch: true })).state.capture();
            expect(encodeSnapshot(await view.capture()), `at ${time}`).toBe(encodeSnapshot(replayed));
            const diff = await p.diff({ from: { time: formatInstant(T0 - 10 * HOUR) }, to: { time } });
            expect([diff.from.seq, diff.to.seq, diff.memory.created.length]).toEqual([0, stamped.length, stamped.length]);
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
        } finally {
          // The second writer first: it holds the storage the first one's release destroys.
          for (const w of writers.slice(1)) await w.close();
          await env.release(p);
        }
      }),
      { numRuns: Math.max(1, Math.floor(env.propertyRuns / 4)), seed: env.seed },
    );
  },
});
