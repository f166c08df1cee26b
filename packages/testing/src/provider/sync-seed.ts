/**
 * Y93: a first sync into an empty store (docs/contract.md §12, "A first sync into an empty store") leaves it as a sync
 * batch by batch does, whether its backend seeds it from the other store at once or not.
 */
import type { EventSourcedProvider } from '@agentstate/core';
import { sync } from '@agentstate/core';
import { expect } from 'vitest';
import { marked } from '../suite/fixtures.js';
import { checks, property, type ProviderCheck } from '../suite/harness.js';
import { arbFleet, batchByBatch, expectConverged, expectExchanged, runReplicaOps, syncSome } from './sync.js';

/** Every version of every record `p` holds, losers marked, by record id. */
async function histories(p: EventSourcedProvider): Promise<Record<string, string[]>> {
  const { sessions, memory, skills } = await p.snapshot();
  const ids = [...sessions, ...memory, ...skills].map((record) => record.id).sort();
  return Object.fromEntries(await Promise.all(ids.map(async (id) => [id, marked(await p.history(id))] as const)));
}

export const syncSeedChecks: ProviderCheck[] = checks(['eventSourced', 'sync'], {
  'Y93 property: a first whole sync into an empty store, pulled or pushed, leaves it as a sync batch by batch does: the same read model and history of every record, its tables a replay of its log; run again it sends nothing, and the stores sync on':
    async (env) => {
      await property(env, arbFleet, async ({ n, rounds }) => {
        const open = async () => env.eventSourced(await env.open());
        const stores: EventSourcedProvider[] = [];
        for (let i = 0; i < n; i++) stores.push(await open());
        for (const round of rounds) {
          for (const [i, ops] of round.ops.entries()) await runReplicaOps(stores[i]!, `replica-${i}`, ops);
          for (const s of round.syncs) await syncSome(stores[s.a]!, stores[s.b]!, { batchSize: s.batchSize, stopAfter: s.stopAfter });
        }
        // Each origin held whole, so the first store's vector names all it holds and a sync run again sends nothing.
        await expectExchanged(stores);
        const source = stores[0]!;
        const [pulled, pushed, batched] = [await open(), await open(), await open()];
        const took = (await sync(pulled, source)).toA;
        expect((await sync(source, pushed)).toB, 'events pushed into an empty store').toBe(took);
        expect((await sync(batched, batchByBatch(source))).toA, 'events received batch by batch').toBe(took);
        await expectConverged([source, pulled, pushed, batched]);
        const expected = await histories(batched);
        for (const p of [pulled, pushed]) expect(await histories(p), 'history of every record').toEqual(expected);
        for (const p of [pulled, pushed, batched]) expect(await sync(p, source), 'a sync run again').toEqual({ toA: 0, toB: 0, merged: 0, batches: 0 });
        await pulled.memory.write({ content: 'written after the first sync' });
        await source.memory.write({ content: 'written on the source since' });
        expect(await sync(pulled, source)).toMatchObject({ toA: 1, toB: 1 });
        await expectConverged([source, pulled]);
      });
    },
});
