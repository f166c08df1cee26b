/**
 * Y55–Y58, Y88: transcripts changed on two stores apart, removals and replaced suffixes among them, merge, so too
 * across a tombstone an older build wrote (docs/contract.md §12, "Merge").
 */
import type { EventSourcedProvider, Turn } from '@agentstate/core';
import { createInMemoryProvider, InMemoryLog, ManualClock, NotFoundError, replay, STATE_STREAM, sync } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { checks, property, type ProviderCheck } from '../suite/harness.js';
import { byClock, clockedPairs, expectConverged, pairs, sharedSession } from './sync.js';
import { T0, turnLines } from '../suite/fixtures.js';

/** What one store does to the shared transcript in Y58: removals of held turns first, then a replaced suffix and appends. */
const arbSide = fc.record({
  removals: fc.nat(2),
  clear: fc.boolean(),
  replace: fc.option(fc.record({ expected: fc.nat(2), added: fc.nat(2) })),
  appends: fc.nat(2),
});

type Side = typeof arbSide extends fc.Arbitrary<infer S> ? S : never;

/** Runs `side` on `p`, returning the turns it added, in their order. */
async function runSide(p: EventSourcedProvider, sessionId: string, side: Side, name: string): Promise<Turn[]> {
  const added: Turn[] = [];
  for (let i = 0; i < side.removals; i++) {
    await p.sessions.removeLastTurn(sessionId).catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
    });
  }
  if (side.clear) await p.sessions.clear(sessionId);
  if (side.replace) {
    const live = await p.sessions.turns(sessionId);
    const expected = live.slice(live.length - Math.min(side.replace.expected, live.length)).map((turn) => turn.id);
    const turns = Array.from({ length: side.replace.added }, (_, i) => ({ role: 'assistant' as const, content: `${name} replaced ${i}` }));
    added.push(...(await p.sessions.replaceSuffix(sessionId, { expected, turns })));
  }
  for (let i = 0; i < side.appends; i++) added.push(await p.sessions.appendTurn({ sessionId, role: 'user', content: `${name} appended ${i}` }));
  return added;
}

/** `p` as the store an older build wrote: the same replica and events, its tombstones without the clock of their turn's append. */
async function olderBuild(p: EventSourcedProvider, clock: ManualClock): Promise<EventSourcedProvider> {
  const log = new InMemoryLog({ identity: await p.log.identity(), clock });
  for (const { seq: _, ...event } of await p.log.read({ stream: STATE_STREAM })) {
    await log.append({ ...event, payload: JSON.parse(JSON.stringify(event.payload), (key, value) => (key === 'appendedHlc' ? undefined : value)) });
  }
  return replay(log, { clock });
}

export const syncTurnChecks: ProviderCheck[] = checks(['eventSourced', 'sync'], {
  'Y55 the same turn removed on both stores apart is removed once: one tombstone on both, a version of each removal, and a later append chains': pairs(
    async (a, b) => {
      const session = await sharedSession(a, b, ['first', 'second', 'third']);
      await a.sessions.removeLastTurn(session.id);
      await b.sessions.clear(session.id);
      await sync(a, b);
      for (const p of [a, b]) {
        expect(await turnLines(p, session.id), 'the live turns').toEqual([]);
        expect((await p.history(session.turns[2]!.id)).at(-1)?.record, 'the turn removed on both').toMatchObject({ seq: 3, deleted: true });
        expect((await p.sessions.get(session.id)).syncVersion, 'the versions held').toBe(6);
      }
      await expectConverged([a, b]);
      await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'after the merge' });
      await sync(a, b);
      for (const p of [a, b]) expect(await turnLines(p, session.id), 'a later append chains').toEqual(['4 after the merge']);
      await expectConverged([a, b]);
    },
  ),

  'Y56 a suffix replaced on one store while a turn is appended on the other: the replaced turns are removed, the added turns and the appended one all kept on both, ranked by (HLC, writer)':
    clockedPairs(async (a, b, [onA, onB]) => {
      for (const later of ['suffix', 'append'] as const) {
        const session = await sharedSession(a, b, ['question', 'draft answer']);
        onA.advance(later === 'suffix' ? 2_000 : 1_000);
        onB.advance(later === 'suffix' ? 1_000 : 3_000);
        const turns = [
          { role: 'assistant' as const, content: 'answer' },
          { role: 'assistant' as const, content: 'answer, continued' },
        ];
        await a.sessions.replaceSuffix(session.id, { expected: [session.turns[1]!.id], turns });
        await b.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'follow-up' });
        await sync(a, b);
        const live =
          later === 'suffix'
            ? ['1 question', '3 follow-up', '4 answer', '5 answer, continued']
            : ['1 question', '3 answer', '4 answer, continued', '5 follow-up'];
        for (const p of [a, b]) {
          expect(await turnLines(p, session.id), `the live turns, the ${later} later`).toEqual(live);
          expect((await p.history(session.turns[1]!.id)).at(-1)?.record, 'the replaced turn').toMatchObject({ seq: 2, deleted: true });
          expect((await p.sessions.get(session.id)).syncVersion, 'the versions held').toBe(5);
        }
        await expectConverged([a, b]);
      }
    }),

  'Y57 a suffix replaced on both stores apart: the turn both replaced is removed once, and both added blocks are kept whole, the earlier by (HLC, writer) first':
    clockedPairs(async (a, b, [onA, onB]) => {
      const session = await sharedSession(a, b, ['question', 'draft answer']);
      onA.advance(2_000);
      onB.advance(1_000);
      const expected = [session.turns[1]!.id];
      await a.sessions.replaceSuffix(session.id, { expected, turns: [{ role: 'assistant', content: 'on a' }] });
      await b.sessions.replaceSuffix(session.id, {
        expected,
        turns: [
          { role: 'assistant', content: 'on b' },
          { role: 'assistant', content: 'on b, continued' },
        ],
      });
      await sync(a, b);
      for (const p of [a, b]) {
        expect(await turnLines(p, session.id), 'the live turns').toEqual(['1 question', '3 on b', '4 on b, continued', '5 on a']);
        expect((await p.history(expected[0]!)).at(-1)?.record, 'the turn replaced on both').toMatchObject({ seq: 2, deleted: true });
        expect((await p.sessions.get(session.id)).syncVersion, 'the versions held').toBe(5);
      }
      await expectConverged([a, b]);
    }),

  'Y58 property: turns removed, cleared, replaced and appended on two stores apart after a shared transcript merge into one transcript on both: the turns neither removed, then every added turn by (HLC, writer), numbered densely':
    async (env) => {
      const arbitrary = fc.tuple(fc.integer({ min: 1, max: 4 }), arbSide, arbSide, fc.boolean());
      await property(env, arbitrary, { numRuns: Math.max(3, Math.floor(env.propertyRuns / 4)) }, async ([shared, onA, onB, snapshot]) => {
        const [a, b] = [env.eventSourced(await env.open()), env.eventSourced(await env.open())];
        const session = await sharedSession(
          a,
          b,
          Array.from({ length: shared }, (_, i) => `shared ${i}`),
        );
        const base = (await a.sessions.get(session.id)).syncVersion;
        const added = [...(await runSide(a, session.id, onA, 'a')), ...(await runSide(b, session.id, onB, 'b'))];
        const versions = (await a.sessions.get(session.id)).syncVersion + (await b.sessions.get(session.id)).syncVersion - base;
        const live = await Promise.all([a, b].map(async (p) => new Set((await p.sessions.turns(session.id)).map((turn) => turn.id))));
        if (snapshot) for (const p of [a, b]) await p.saveSnapshot();
        await sync(a, b);
        // Each side adds only after it removes, so every added turn stays; a replaced suffix's block shares its clock and keeps its order (the sort is stable).
        const later = byClock(added);
        const survivors = session.turns.filter((turn) => live.every((ids) => ids.has(turn.id)));
        const expected = [...survivors.map((turn) => [turn.seq, turn.id]), ...later.map((turn, i) => [shared + 1 + i, turn.id])];
        for (const p of [a, b]) {
          const merged = (await p.sessions.turns(session.id)).map((turn) => [turn.seq, turn.id]);
          expect(merged, 'the merged transcript').toEqual(expected);
          expect((await p.sessions.get(session.id)).syncVersion, 'the versions held').toBe(versions);
        }
        await expectConverged([a, b]);
      });
    },

  "Y88 a turn appended apart across a tombstone an older build wrote, without the clock of its turn's append, is ranked across it by that append, later or earlier, on the older store, a store that took the tombstone first and one that took the turn first":
    clockedPairs(async (a, b, [, onB]) => {
      for (const later of ['older', 'apart'] as const) {
        const onOlder = new ManualClock(T0);
        const writer = createInMemoryProvider({ clock: onOlder });
        const session = await writer.sessions.create({ title: 'shared' });
        await writer.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'question' });
        onOlder.advance(later === 'older' ? 2_000 : 1_000);
        const draft = await writer.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: 'draft answer' });
        await writer.sessions.removeLastTurn(session.id);
        await writer.purge({ id: draft.id, reason: 'request of the owner' });
        const older = await olderBuild(writer, onOlder);
        // The second store holds the session and its first turn only, and appends apart from the draft.
        await b.receive(await older.changes({}, { limit: 2 }));
        onB.advance(later === 'older' ? 1_000 : 2_000);
        await b.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'follow-up' });
        await sync(a, older);
        await sync(a, b);
        await sync(older, a);
        const [follow, tombstone] = later === 'older' ? [2, 3] : [3, 2];
        for (const p of [older, a, b]) {
          expect(await turnLines(p, session.id), `the live turns, the ${later} append later`).toEqual(['1 question', `${follow} follow-up`]);
          const held = (await p.snapshot()).turns.find((turn) => turn.id === draft.id);
          expect(held, 'the tombstone, with the clock of its append').toMatchObject({ seq: tombstone, deleted: true, appendedHlc: draft.updatedHlc });
        }
        await expectConverged([older, a, b]);
      }
    }),
});
