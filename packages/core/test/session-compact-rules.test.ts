/**
 * `session.compacted` (docs/contract.md §4, "Compaction"; §12, "Merge"): the fold refuses a compaction
 * the stamper could not have written, naming its seq; and compactions and appends written apart on two
 * stores merge to the same session on both, whatever order they arrive in, the later summary standing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AppendInput, LogEvent, Session } from '@agentstate/core';
import { CorruptionError, createInMemoryProvider, encodeSnapshot, EventTypes, InMemoryLog, ManualClock, replay, STATE_STREAM, sync } from '@agentstate/core';

async function logOf(events: readonly LogEvent[]): Promise<InMemoryLog> {
  const log = new InMemoryLog();
  for (const { seq: _seq, ...input } of events) await log.append(input as AppendInput);
  return log;
}

describe('session.compacted', () => {
  it('is refused by the fold when it could not have been stamped', async () => {
    const p = createInMemoryProvider();
    const session = await p.sessions.create({ title: 'kept' });
    const other = await p.sessions.create({});
    const [, second] = await p.sessions.appendTurns(session.id, [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
    ]);
    const [foreign] = await p.sessions.appendTurns(other.id, [{ role: 'user', content: 'c' }]);
    const removed = await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'gone' });
    await p.sessions.removeLastTurn(session.id);
    await p.sessions.compact(session.id, { through: second!.id, summary: 'two turns' });
    const events = await p.log.read({ stream: STATE_STREAM });
    const target = events.at(-1)!;
    expect(target.type).toBe(EventTypes.SessionCompacted);
    const stamped = (target.payload as { session: Session }).session;
    expect(encodeSnapshot(await (await replay(await logOf(events))).snapshot())).toBe(encodeSnapshot(await p.snapshot()));
    const forgeries: [Session, RegExp][] = [
      [{ ...stamped, summary: undefined }, /carries no summary/],
      [{ ...stamped, summary: { ...stamped.summary!, through: foreign!.id } }, /is not a live turn of the session/],
      [{ ...stamped, summary: { ...stamped.summary!, through: removed.id } }, /is not a live turn of the session/],
      [{ ...stamped, summary: { ...stamped.summary!, through: 'no-such-turn' } }, /is not a live turn of the session/],
      [{ ...stamped, title: 'changed' }, /title changed/],
      [{ ...stamped, syncVersion: stamped.syncVersion + 1 }, /syncVersion \d+ follows/],
    ];
    for (const [forgery, rule] of forgeries) {
      const { summary, ...rest } = forgery;
      const forged = events.map((e) => (e === target ? { ...e, payload: { session: summary === undefined ? rest : forgery } } : e));
      const error = await replay(await logOf(forged)).catch((e: unknown) => e);
      expect(error, String(rule)).toBeInstanceOf(CorruptionError);
      expect(error).toMatchObject({ stream: STATE_STREAM, seq: target.seq, message: expect.stringMatching(rule) });
    }
  });

  it('merges compactions and appends written apart on two stores to the same session, the later summary by (HLC, writer) standing', async () => {
    type Op = { store: 0 | 1; kind: 'append' | 'compact'; pick: number; tick: number };
    const arbOp: fc.Arbitrary<Op> = fc.record({
      store: fc.constantFrom(0 as const, 1 as const),
      kind: fc.constantFrom('append' as const, 'compact' as const),
      pick: fc.nat(),
      tick: fc.integer({ min: 0, max: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp, { maxLength: 12 }), fc.boolean(), async (ops, pullFirst) => {
        const clocks = [new ManualClock(Date.UTC(2026, 0, 1)), new ManualClock(Date.UTC(2026, 0, 1))];
        const stores = clocks.map((clock, i) => createInMemoryProvider({ clock, instanceId: `store-${i}` }));
        const [a, b] = stores as [ReturnType<typeof createInMemoryProvider>, ReturnType<typeof createInMemoryProvider>];
        const session = await a.sessions.create({});
        await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'start' });
        await sync(a, b);
        const summaries: Session['summary'][] = [];
        for (const op of ops) {
          const p = stores[op.store]!;
          clocks[op.store]!.advance(op.tick);
          if (op.kind === 'append') await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `turn ${op.pick}` });
          else {
            const live = [...(await p.sessions.turns(session.id))];
            summaries.push((await p.sessions.compact(session.id, { through: live[op.pick % live.length]!.id, summary: `gist ${op.pick}` })).summary);
          }
        }
        if (pullFirst) await sync(b, a);
        else await sync(a, b);
        const [onA, onB] = [await a.sessions.get(session.id), await b.sessions.get(session.id)];
        expect(onB).toEqual(onA);
        const later = (x: NonNullable<Session['summary']>, y: NonNullable<Session['summary']>) =>
          x.updatedHlc.wall - y.updatedHlc.wall || x.updatedHlc.counter - y.updatedHlc.counter || (x.lastWriterId < y.lastWriterId ? -1 : 1);
        const expected = summaries.reduce<Session['summary']>((best, s) => (best === undefined || later(s!, best) > 0 ? s : best), undefined);
        expect(onA.summary).toEqual(expected);
        for (const p of stores) {
          const again = await replay(await logOf(await p.log.read({ stream: STATE_STREAM })), { fromScratch: true });
          expect(encodeSnapshot(await again.snapshot())).toBe(encodeSnapshot(await p.snapshot()));
        }
      }),
      { numRuns: 60 },
    );
  });
});
