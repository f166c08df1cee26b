/** Y40–Y43: retention policies travel with a sync and converge by last writer wins (docs/contract.md §12). */
import type { EventSourcedProvider } from '@agentstate/core';
import { NotFoundError, RETENTION_STREAM, sync } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError, expectInvalid } from '../suite/expect-error.js';
import { HOUR } from '../suite/fixtures.js';
import { type CheckEnv, checks, type ProviderCheck } from '../suite/harness.js';
import { pairs, skewedPairs } from './sync.js';

/** The policies in force on each store: what synced stores must agree on, each as a replay of its own log reads them. */
async function expectSamePolicies(env: CheckEnv, stores: readonly EventSourcedProvider[]): Promise<void> {
  const lists = await Promise.all(stores.map((p) => p.retention.list()));
  for (const list of lists.slice(1)) expect(list, 'the policies of the replicas').toEqual(lists[0]);
  for (const p of stores) expect(await (await env.replay(p.log)).retention.list(), 'the policies of a replay').toEqual(await p.retention.list());
}

/** The heads of the stores' retention streams. */
const policyHeads = (stores: readonly EventSourcedProvider[]) => Promise.all(stores.map((p) => p.log.head(RETENTION_STREAM)));

export const syncRetentionChecks: ProviderCheck[] = checks(['eventSourced', 'sync'], {
  'Y40 a policy set on one store is in force on the other after a sync, and so is its removal; run again, a sync writes nothing': pairs(async (a, b, env) => {
    const idle = await a.sessions.create({ title: 'idle since 2020', scope: ['acme'], createdAt: '2020-01-01T00:00:00.000Z' });
    const fresh = await a.sessions.create({ title: 'fresh', scope: ['acme'] });
    await sync(a, b);
    const policy = await a.retention.set({ record: 'session', scope: ['acme'], maxAge: '30d' });
    expect(await sync(a, b)).toEqual({ toA: 0, toB: 1, merged: 0, batches: 0 });
    expect(await b.retention.list()).toEqual([policy]);
    await expectError(() => b.sessions.get(idle.id), NotFoundError);
    expect((await b.sessions.get(fresh.id)).title).toBe('fresh');
    const heads = await policyHeads([a, b]);
    expect(await sync(b, a)).toEqual({ toA: 0, toB: 0, merged: 0, batches: 0 });
    expect(await policyHeads([a, b])).toEqual(heads);
    await b.retention.remove(policy.id);
    expect(await sync(a, b)).toEqual({ toA: 1, toB: 0, merged: 0, batches: 0 });
    expect(await a.retention.list()).toEqual([]);
    expect((await a.sessions.get(idle.id)).title).toBe('idle since 2020');
    await expectSamePolicies(env, [a, b]);
  }),

  'Y41 concurrent changes of one policy converge to the greatest HLC, whichever arrives last; a change after a sync is later than all it saw': skewedPairs(
    HOUR,
    async (a, b, env) => {
      const ahead = await a.retention.set({ id: 'scratch', record: 'memory', maxAge: '1d' });
      await a.retention.set({ id: 'drafts', record: 'memory', maxAge: '4d' });
      await a.retention.remove('drafts');
      // Written later, but with earlier HLCs: they lose on both stores.
      await b.retention.set({ id: 'scratch', record: 'memory', maxAge: '2d' });
      await b.retention.set({ id: 'drafts', record: 'memory', maxAge: '3d' });
      expect(await sync(b, a)).toEqual({ toA: 2, toB: 0, merged: 0, batches: 0 });
      expect(await b.retention.list()).toEqual([ahead]);
      await expectSamePolicies(env, [a, b]);
      // Set on the store that is behind, after it saw the other's changes: later than them.
      const after = await b.retention.set({ id: 'scratch', record: 'memory', maxAge: '5d' });
      await sync(a, b);
      expect(await a.retention.list()).toEqual([after]);
      await expectSamePolicies(env, [a, b]);
    },
  ),

  'Y42 changes of one policy with equal HLCs on two stores converge to the one of the greater replica id': skewedPairs(0, async (a, b, env) => {
    const set = { a: await a.retention.set({ record: 'turn', maxAge: '1d' }), b: await b.retention.set({ record: 'turn', maxAge: '2d' }) };
    const winner = (await a.replicaId()) > (await b.replicaId()) ? set.a : set.b;
    await sync(a, b);
    expect(await a.retention.list()).toEqual([winner]);
    await expectSamePolicies(env, [a, b]);
  }),

  'Y43 a malformed policy change is refused with the batch, naming it, and an older change than the one held is not taken': pairs(async (a, b) => {
    await a.retention.set({ id: 'scratch', record: 'memory', maxAge: '1d' });
    const [old] = (await a.retention.merge([])).changes;
    await sync(a, b);
    await b.retention.remove('scratch');
    const heads = await policyHeads([a, b]);
    expect(await b.retention.merge([old!])).toMatchObject({ received: 0 });
    const { origin: _, ...unstamped } = old!.payload;
    await expectInvalid(() => a.retention.merge([old!, { ...old!, payload: unstamped } as never]), '1.payload.origin');
    await expectInvalid(() => a.retention.merge([{ ...old!, type: 'retention.policy_renamed' } as never]), '0.type');
    await expectInvalid(() => a.retention.merge({} as never), '');
    expect(await policyHeads([a, b])).toEqual(heads);
    await sync(a, b);
    expect(await a.retention.list()).toEqual([]);
  }),
});
