/**
 * Y65–Y66, Y86, Y92: a receive folds an origin's events in their order (docs/contract.md §12, "Order"); Y91: a refused batch
 * writes no bookkeeping either. On the pairs of sync.ts.
 */
import type { EventSourcedProvider, SyncPeer } from '@agentstate/core';
import { createInMemoryProvider, STATE_STREAM, SYNC_STREAM, SyncConflictError, sync } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { checks, needing, property, type ProviderCheck } from '../suite/harness.js';
import { arbReplicaOp, clockedPairs, expectConverged, expectExchanged, pairs, runReplicaOps, sharedSession, syncSome } from './sync.js';

/** The heads of every stream a receive may write: the events and the bookkeeping. */
const heads = (p: EventSourcedProvider) => Promise.all([p.log.head(STATE_STREAM), p.log.head(SYNC_STREAM)]);

/**
 * `to` as a peer that gets a sync's first batch late: it holds it back, is given the next batch
 * first (refused as `order`, writing nothing, or taken when no origin of an event of it that `to` lacked
 * has an event in the held one that `to` lacks), then the held batch, then the next one again.
 */
function lateFirstBatch(to: EventSourcedProvider): SyncPeer {
  let held: Parameters<SyncPeer['receive']> | undefined;
  let late = true;
  return {
    vector: (options) => to.vector(options),
    replicaId: () => to.replicaId(),
    changes: (vector, options) => to.changes(vector, options),
    retention: to.retention,
    async receive(events, options) {
      if (late && events.length > 0) {
        [held, late] = [[events, options], false];
        return { received: 0, skipped: 0, merged: 0 };
      }
      if (held !== undefined && events.length > 0) {
        const before = await heads(to);
        // An event `to` holds already (received through another store, or by a sync of another tenant) is skipped, not
        // folded (§12, "Order": only an event the store lacks must start where it stands): its origin is not ordered by it.
        const lacked = await Promise.all(events.map(async (event) => (await to.log.atOrigin!(event.origin, event.originSeq)) === undefined));
        const early = await to.receive(events, options).catch((error: unknown) => error);
        if (early instanceof SyncConflictError) expect([early.reason, await heads(to)], 'refused whole').toEqual(['order', before]);
        else {
          if (early instanceof Error) throw early;
          const origins = new Set(events.filter((_, i) => lacked[i]).map((event) => event.origin));
          const behind = held[0].filter((event) => origins.has(event.origin));
          expect((await to.receive(behind, { ...held[1], covered: {} })).received, 'events of its origins it came ahead of').toBe(0);
        }
      }
      if (held !== undefined) await to.receive(...held);
      held = undefined;
      return to.receive(events, options);
    },
  };
}

const TENANTS = ['acme', 'globex'] as const;

export const syncOrderChecks: ProviderCheck[] = checks(['eventSourced', 'sync'], {
  'Y65 two batches of one origin received in reverse order: the later is refused (order) and writes nothing, so both stores fold the turns in one order':
    clockedPairs(async (a, b, [onA, onB]) => {
      const session = await sharedSession(a, b, ['first']);
      onA.advance(1_000);
      onB.advance(2_000);
      await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'on a' });
      await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'on a, again' });
      // Later by its clock than both: its place is last, wherever the turns arrive.
      await b.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'on b' });
      const [origin, held] = [await a.replicaId(), await b.vector()];
      const earlier = await a.changes(held, { limit: 1 });
      const later = await a.changes(held, { limit: 1, after: earlier[0]! });
      const before = await heads(b);
      // Folded first, the later turn would chain onto b's own turn as if its writer had held it.
      const refused = await expectError(() => b.receive(later, { from: { [origin]: earlier[0]!.originSeq } }), SyncConflictError);
      expect([refused.reason, refused.code, refused.origin, refused.originSeq]).toEqual(['order', 'diverged', origin, later[0]!.originSeq]);
      expect(refused.message).toMatch(/nothing was received$/);
      expect(await heads(b), 'nothing written').toEqual(before);
      // Each appended apart from b's own turn: folded as merges.
      expect(await b.receive(earlier, { from: { [origin]: held[origin] ?? 0 } })).toEqual({ received: 1, skipped: 0, merged: 1 });
      expect(await b.receive(later, { from: { [origin]: earlier[0]!.originSeq } })).toEqual({ received: 1, skipped: 0, merged: 1 });
      await sync(a, b);
      for (const p of [a, b]) expect((await p.sessions.turns(session.id)).map((turn) => turn.content)).toEqual(['first', 'on a', 'on a, again', 'on b']);
      await expectConverged([a, b]);
    }),

  'Y92 a scoped batch holding a turn, received ahead of the batch holding its session, is refused as order (not as outside the scope) and writes nothing':
    pairs(async (a, b) => {
      const scope = ['acme'];
      const session = await a.sessions.create({ title: 'tenant chat', scope });
      await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'hello' });
      const [origin, held] = [await a.replicaId(), await b.vector({ scope })];
      const first = await a.changes(held, { scope, limit: 1 });
      const second = await a.changes(held, { scope, limit: 1, after: first[0]! });
      const before = await heads(b);
      // The turn's session is in the batch it overtook: its scope is not known here yet.
      const refused = await expectError(() => b.receive(second, { scope, from: { [origin]: first[0]!.originSeq } }), SyncConflictError);
      expect([refused.reason, refused.originSeq]).toEqual(['order', second[0]!.originSeq]);
      expect(await heads(b), 'nothing written').toEqual(before);
      expect(await b.receive(first, { scope, from: { [origin]: held[origin] ?? 0 } })).toEqual({ received: 1, skipped: 0, merged: 0 });
      expect(await b.receive(second, { scope, from: { [origin]: first[0]!.originSeq } })).toEqual({ received: 1, skipped: 0, merged: 0 });
      expect((await b.sessions.turns(session.id)).map((turn) => turn.content)).toEqual(['hello']);
    }),

  "Y86 a whole sync's batch received ahead of its earlier batch is refused (order), though the store holds the event it starts after through a tenant's sync or a relay holding part of the origin brought it further; in order, across a reopen, both are taken":
    needing(
      ['durable'],
      pairs(async (to, a, env) => {
        const globex = await a.memory.write({ content: 'first', key: 'plan', scope: ['globex'] });
        await a.sessions.create({ title: 'tenant chat', scope: ['acme'] });
        await a.memory.update(globex.id, { content: 'second' });
        await sync(a, to, { scope: ['acme'] });
        const [origin, held] = [await a.replicaId(), await to.vector()];
        // The earlier batch brings the globex write and the acme session, which `to` holds already; the later one the update.
        const earlier = await a.changes(held, { limit: 2 });
        const later = await a.changes(held, { after: earlier[1]! });
        const before = await heads(to);
        // The acme session, held through the acme sync, vouches for nothing of globex: the write the update follows is in flight.
        const refused = await expectError(() => to.receive(later, { from: { [origin]: earlier[1]!.originSeq } }), SyncConflictError);
        expect([refused.reason, refused.origin, refused.originSeq]).toEqual(['order', origin, later[0]!.originSeq]);
        expect(await heads(to), 'nothing written').toEqual(before);
        expect(await to.receive(earlier, { from: { [origin]: held[origin] ?? 0 } })).toEqual({ received: 1, skipped: 1, merged: 0 });
        // What the earlier batch reached is kept in the log: a store opened again (a server restarted) takes the next batch.
        const b = env.eventSourced(await env.reopen(to));
        expect(await b.receive(later, { from: { [origin]: earlier[1]!.originSeq } })).toEqual({ received: 1, skipped: 0, merged: 0 });
        expect((await b.memory.get(globex.id)).content).toBe('second');
        await sync(a, b);
        await expectConverged([a, b]);
        // A relay holding only a's globex events brings b further by a whole sync: what it reached vouches for no event it lacked.
        await a.skills.upsert({ slug: 'deploy', body: 'v1', scope: ['acme'] });
        await a.skills.upsert({ slug: 'deploy', body: 'v2', scope: ['acme'] });
        await a.memory.write({ content: 'later', key: 'later', scope: ['globex'] });
        const relay = env.closes(createInMemoryProvider());
        await sync(a, relay, { scope: ['globex'] });
        await sync(b, relay);
        const now = await b.vector();
        const first = await a.changes(now, { limit: 1 });
        const second = await a.changes(now, { limit: 1, after: first[0]! });
        const untouched = await heads(b);
        const ahead = await expectError(() => b.receive(second, { from: { [origin]: first[0]!.originSeq } }), SyncConflictError);
        expect([ahead.reason, ahead.originSeq]).toEqual(['order', second[0]!.originSeq]);
        expect(await heads(b), 'nothing written').toEqual(untouched);
        expect(await b.receive(first, { from: { [origin]: now[origin] ?? 0 } })).toEqual({ received: 1, skipped: 0, merged: 0 });
        expect(await b.receive(second, { from: { [origin]: first[0]!.originSeq } })).toEqual({ received: 1, skipped: 0, merged: 0 });
        await sync(a, b);
        await expectConverged([a, b]);
      }),
    ),

  'Y91 a batch refused as concurrent by a store that never received from its origin writes nothing, not even its sync notes': pairs(async (a, _b, env) => {
    const session = await a.sessions.create({ title: 'mine' });
    // A store whose ids collide with it creates a session of the same id: no merge rule covers two creations.
    const other = env.closes(createInMemoryProvider({ ids: { next: () => session.id } }));
    await other.sessions.create({ title: 'theirs' });
    const before = await heads(a);
    const refused = await expectError(() => sync(a, other), SyncConflictError);
    expect([refused.reason, refused.record]).toEqual(['concurrent', session.id]);
    expect(await heads(a), 'no event, no sync.partial, no sync.covered').toEqual(before);
  }),

  "Y66 property: 3 stores each working in two tenants' subtrees, synced whole or by tenant, some syncs' first batch received late and some stopped: after a final exchange every store reads the same, equal to a replay of its log":
    async (env) => {
      const arbRounds = fc.array(
        fc.record({
          ops: fc.array(fc.tuple(fc.array(arbReplicaOp, { maxLength: 3 }), fc.array(arbReplicaOp, { maxLength: 3 })), { minLength: 3, maxLength: 3 }),
          syncs: fc.array(
            fc.record({
              a: fc.nat(2),
              b: fc.nat(2),
              tenant: fc.option(fc.nat(1)),
              batchSize: fc.integer({ min: 1, max: 3 }),
              late: fc.boolean(),
              stopAfter: fc.option(fc.integer({ min: 1, max: 2 })),
            }),
            { maxLength: 4 },
          ),
        }),
        { minLength: 1, maxLength: 3 },
      );
      await property(env, arbRounds, async (rounds) => {
        const stores = [env.eventSourced(await env.open()), env.eventSourced(await env.open()), env.closes(createInMemoryProvider())];
        for (const round of rounds) {
          // Each store's records are its own, in both tenants: only an origin's own order is at stake.
          for (const [i, pair] of round.ops.entries()) for (const [t, ops] of pair.entries()) await runReplicaOps(stores[i]!, [TENANTS[t]!, `store-${i}`], ops);
          for (const { a, b, tenant, batchSize, late, stopAfter } of round.syncs) {
            if (a === b) continue;
            const scope = tenant === null ? {} : { scope: [TENANTS[tenant]!] };
            await syncSome(stores[a]!, late ? lateFirstBatch(stores[b]!) : stores[b]!, { ...scope, batchSize, stopAfter });
          }
        }
        await expectExchanged(stores);
      });
    },
});
