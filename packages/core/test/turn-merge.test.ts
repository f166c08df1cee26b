/**
 * A session's transcript written on two stores apart (docs/contract.md §12, "Merge"): appends, removals,
 * replaced suffixes, purges of turns, field writes, compactions and a purge of the session race, and every store
 * ends with the same read model whichever store's events it receives first, its turns numbered densely by the
 * rank of their appends (HLC, writer, id), tombstones included, and a purged turn's text (or every title and
 * summary of a purged session) gone from every log; so too when one store's log was written by an older build, its
 * tombstones without the clock of their turn's append.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareHlc,
  createInMemoryProvider,
  encodeSnapshot,
  type EventSourcedProvider,
  InMemoryLog,
  ManualClock,
  NotFoundError,
  replay,
  STATE_STREAM,
  type Snapshot,
  sync,
  type Turn,
} from '@agentstate/core';

type Op = { kind: 'append' | 'remove' | 'replace' | 'purge' | 'retitle' | 'compact' | 'purgeSession'; advance: number };

const arbOps: fc.Arbitrary<Op[]> = fc.array(
  fc.record({
    kind: fc.constantFrom(...(['append', 'append', 'remove', 'replace', 'purge', 'retitle', 'compact', 'purgeSession'] as const)),
    advance: fc.nat(2),
  }),
  { maxLength: 6 },
);

/**
 * What a store wrote apart: the turns it appended, the ids of those it removed or purged, the texts it purged, the
 * texts of the titles and summaries it wrote, and whether it purged the session (its other ops then find none).
 */
interface Written {
  appended: Turn[];
  gone: Set<string>;
  purged: string[];
  fields: string[];
  sessionPurged: boolean;
}

/** Runs `ops` on `p`, its clock moving 0–2 ms before each, so the two stores' clocks tie now and then. */
async function runOps(p: EventSourcedProvider, clock: ManualClock, sessionId: string, ops: readonly Op[], label: string): Promise<Written> {
  const written: Written = { appended: [], gone: new Set(), purged: [], fields: [], sessionPurged: false };
  for (const [i, op] of ops.entries()) {
    if (written.sessionPurged) break;
    clock.advance(op.advance);
    // Each turn's text ends in a word of its own, which a purge of it must leave nowhere.
    const text = (suffix: string) => `${label} turn ${i} zz${label}${i}${suffix}zz`;
    if (op.kind === 'append') written.appended.push(await p.sessions.appendTurn({ sessionId, role: 'user', content: text('') }));
    else if (op.kind === 'remove')
      await p.sessions.removeLastTurn(sessionId).then(
        (tombstone) => written.gone.add(tombstone.id),
        (error: unknown) => expect(error).toBeInstanceOf(NotFoundError),
      );
    else if (op.kind === 'retitle') {
      await p.sessions.update(sessionId, { title: text('t') });
      written.fields.push(text('t'));
    } else if (op.kind === 'compact') {
      const last = (await p.sessions.turns(sessionId)).at(-1);
      if (last === undefined) continue;
      await p.sessions.compact(sessionId, { through: last.id, summary: text('s') });
      written.fields.push(text('s'));
    } else if (op.kind === 'purgeSession') {
      // Every turn it holds goes with the session; a turn the other store appends apart is not one of them.
      for (const turn of await p.sessions.turns(sessionId)) {
        written.gone.add(turn.id);
        written.purged.push(turn.content);
      }
      await p.purge({ id: sessionId, reason: 'test' });
      written.sessionPurged = true;
    } else if (op.kind === 'replace') {
      const last = (await p.sessions.turns(sessionId)).at(-1);
      const turns = [text('a'), text('b')].map((content) => ({ role: 'assistant' as const, content }));
      written.appended.push(...(await p.sessions.replaceSuffix(sessionId, { expected: last ? [last.id] : [], turns })));
      if (last) written.gone.add(last.id);
    } else {
      // Its last live turn, which the other store may remove, replace or purge apart too.
      const target = (await p.sessions.turns(sessionId)).at(-1);
      if (target === undefined) continue;
      await p.purge({ id: target.id, reason: 'test' });
      written.gone.add(target.id);
      written.purged.push(target.content);
    }
  }
  return written;
}

/** `p` as the store an older build wrote: the same replica and events, its tombstones without the clock of their turn's append. */
async function olderBuild(p: EventSourcedProvider, clock: ManualClock): Promise<EventSourcedProvider> {
  const log = new InMemoryLog({ identity: await p.log.identity(), clock });
  for (const { seq: _, ...event } of await p.log.read({ stream: STATE_STREAM })) {
    await log.append({ ...event, payload: JSON.parse(JSON.stringify(event.payload), (key, value) => (key === 'appendedHlc' ? undefined : value)) });
  }
  return replay(log, { clock });
}

/** The rank of an append: its clock, its writer, its id. */
function byRank(a: Turn, b: Turn): number {
  return compareHlc(a.updatedHlc, b.updatedHlc) || cmp(a.lastWriterId, b.lastWriterId) || cmp(a.id, b.id);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The read model without local seqs, which differ between replicas. */
function replicaText(snapshot: Snapshot): string {
  return encodeSnapshot({ ...snapshot, seq: 0, operations: snapshot.operations.map((operation) => ({ ...operation, seq: 0 })) });
}

describe('a transcript written on two stores apart', () => {
  it('merges to one read model in either order of arrival, its turns numbered densely by rank, tombstones included, a log of an older build too', async () => {
    await fc.assert(
      fc.asyncProperty(arbOps, arbOps, fc.integer({ min: 1, max: 2 }), fc.boolean(), async (opsA, opsB, before, older) => {
        const [clockA, clockB] = [new ManualClock(Date.UTC(2026, 0, 1)), new ManualClock(Date.UTC(2026, 0, 1))];
        const b = createInMemoryProvider({ clock: clockB });
        let a = createInMemoryProvider({ clock: clockA });
        const session = await a.sessions.create({ title: 'shared' });
        const base: Turn[] = [];
        for (let i = 0; i < before; i++) base.push(await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `base ${i} zzbase${i}zz` }));
        await sync(a, b);
        const onA = await runOps(a, clockA, session.id, opsA, 'a');
        const onB = await runOps(b, clockB, session.id, opsB, 'b');
        if (older) a = await olderBuild(a, clockA);
        // Each order of arrival, on a store that wrote nothing, and on the two writers themselves.
        const [first, second] = [createInMemoryProvider(), createInMemoryProvider()];
        await sync(first, a);
        await sync(first, b);
        await sync(second, b);
        await sync(second, a);
        await sync(a, b);
        const stores = [a, b, first, second];
        const texts = await Promise.all(stores.map(async (p) => replicaText(await p.snapshot())));
        for (const text of texts) expect(text).toBe(texts[0]);
        for (const p of stores) expect(replicaText(await (await replay(p.log)).snapshot()), 'a replay of its log').toBe(texts[0]);
        const all = [...base, ...onA.appended, ...onB.appended].sort(byRank);
        const held = (await a.snapshot()).turns.filter((turn) => turn.sessionId === session.id);
        expect(
          held.map((turn) => [turn.seq, turn.id]),
          'every turn, tombstones too, numbered densely by rank',
        ).toEqual(all.map((turn, i) => [i + 1, turn.id]));
        const gone = new Set([...onA.gone, ...onB.gone]);
        expect(held.filter((turn) => !turn.deleted).map((turn) => turn.id)).toEqual(all.filter((turn) => !gone.has(turn.id)).map((turn) => turn.id));
        // A purge of the session wins: every title and summary written on either store, apart from it or not, goes.
        const fields = onA.sessionPurged || onB.sessionPurged ? [...onA.fields, ...onB.fields] : [];
        const purged = [...onA.purged, ...onB.purged, ...fields].map((content) => content.split(' ').at(-1)!);
        for (const p of stores) {
          const stored = JSON.stringify([await p.log.read({ stream: STATE_STREAM }), await p.snapshot()]);
          for (const secret of purged) expect(stored, secret).not.toContain(secret);
        }
      }),
      { numRuns: 25 },
    );
  });
});
