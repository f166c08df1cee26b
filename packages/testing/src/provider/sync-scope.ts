/** Y30–Y33: sync limited to a namespace subtree (docs/contract.md §12, "Scoped sync"), on the pairs of sync.ts. */
import type { EventSourcedProvider, Scope, Snapshot } from '@agentstate/core';
import { createInMemoryProvider, SYNC_STREAM, scopeStartsWith, sync } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { expectInvalid } from '../suite/expect-error.js';
import { checks, property, type ProviderCheck } from '../suite/harness.js';
import { arbReplicaOp, expectConverged, pairs, replicaText, runReplicaOps } from './sync.js';

const ACME: Scope = ['acme'];

/** The records of `snapshot` lying in the subtree at `scope` (all of them without one), in canonical text. */
function subtree(snapshot: Snapshot, scope: Scope = []): string {
  const sessions = snapshot.sessions.filter((session) => scopeStartsWith(session.scope, scope));
  const ids = new Set(sessions.map((session) => session.id));
  const inScope = <T extends { scope: Scope }>(records: T[]) => records.filter((record) => scopeStartsWith(record.scope, scope));
  const turns = snapshot.turns.filter((turn) => ids.has(turn.sessionId));
  const records = { ...snapshot, sessions, turns, skills: inScope(snapshot.skills), memory: inScope(snapshot.memory), operations: [] };
  return replicaText(scope.length === 0 ? records : { ...records, checkpoints: [], checkpointWrites: [] });
}

/** The heads of every stream a sync may write: the events and the bookkeeping. */
const allHeads = (stores: readonly EventSourcedProvider[]) => Promise.all(stores.map(async (p) => [await p.log.head('state'), await p.log.head(SYNC_STREAM)]));

/** Seven events of every kind in `scope`, with keys and slugs of their own: two stores never touch each other's records. */
async function work(p: EventSourcedProvider, scope: Scope, text: string): Promise<void> {
  const session = await p.sessions.create({ title: `${text} chat`, scope });
  await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `${text} question` });
  await p.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: `${text} answer` });
  const item = await p.memory.write({ content: `${text} fact`, key: `${text} fact`, scope });
  await p.memory.update(item.id, { content: `${text} fact, revised` });
  await p.skills.upsert({ slug: `deploy-${text.replace(/\W/g, '-')}`, body: `${text} steps`, scope });
  await p.skills.recordOutcome(`deploy-${text.replace(/\W/g, '-')}`, { success: true, scope });
}

/** Work in two tenants' subtrees (`acme`, with a child scope, and `globex`), and a checkpoint, which lies in no subtree. */
async function tenants(p: EventSourcedProvider, text: string): Promise<void> {
  await work(p, ACME, `${text} acme`);
  await work(p, ['globex'], `${text} globex`);
  await work(p, ['acme', 'team'], `${text} team`);
  await p.checkpoints.put({ threadId: `${text}-thread`, checkpointId: '01', checkpoint: { text } });
}

/** Two tenants' scopes for Y33's operations. */
const TENANTS = ['acme', 'globex'] as const;

export const syncScopeChecks: ProviderCheck[] = checks(['eventSourced', 'sync'], {
  'Y30 a sync scoped to a subtree carries only the events whose records all lie in it, both ways, and run again sends nothing and writes nothing': pairs(
    async (a, b) => {
      await tenants(a, 'laptop');
      await tenants(b, 'server');
      const summary = await sync(a, b, { scope: ACME, batchSize: 2 });
      expect(summary).toMatchObject({ toA: 14, toB: 14 });
      for (const p of [a, b]) {
        const snapshot = await p.snapshot();
        expect(snapshot.skills.filter((skill) => skill.scope[0] === 'globex').length).toBe(1);
        expect(snapshot.checkpoints.length).toBe(1);
      }
      expect(subtree(await a.snapshot(), ACME)).toBe(subtree(await b.snapshot(), ACME));
      expect(subtree(await a.snapshot(), ['globex'])).not.toBe(subtree(await b.snapshot(), ['globex']));
      const after = await allHeads([a, b]);
      expect(await sync(b, a, { scope: ACME })).toEqual({ toA: 0, toB: 0, merged: 0, batches: 0 });
      expect(await sync(a, b, { scope: ['acme', 'team'] })).toEqual({ toA: 0, toB: 0, merged: 0, batches: 0 });
      expect(await allHeads([a, b])).toEqual(after);
      // What a store sends of a subtree: its own events there and those it received there.
      expect((await a.changes({}, { scope: ['acme', 'team'] })).length).toBe(14);
      expect((await a.changes(await b.vector({ scope: ACME }), { scope: ACME })).length).toBe(0);
      await expectInvalid(() => a.changes({}, { scope: 'acme' as unknown as Scope }), 'scope');
    },
  ),

  'Y31 after a scoped sync, a sync of another subtree and then of the whole store carries every event the first left out; interrupted, it resumes': pairs(
    async (a, b) => {
      await tenants(a, 'laptop');
      await tenants(b, 'server');
      await sync(a, b, { scope: ACME });
      const stop = new AbortController();
      const cut = sync(a, b, { scope: ['globex'], batchSize: 2, signal: stop.signal, onProgress: () => stop.abort('cut') });
      await expect(cut).rejects.toBe('cut');
      // The batch received is the sender's own: the sync resumes after it.
      expect(await b.changes(await a.vector({ scope: ['globex'] }), { scope: ['globex'] })).toHaveLength(5);
      expect(await sync(a, b, { scope: ['globex'], batchSize: 3 })).toMatchObject({ toA: 5, toB: 7 });
      expect(subtree(await a.snapshot(), ['globex'])).toBe(subtree(await b.snapshot(), ['globex']));
      expect(await sync(a, b)).toMatchObject({ toA: 1, toB: 1 });
      await expectConverged([a, b]);
      const after = await allHeads([a, b]);
      for (const scope of [undefined, ACME, ['globex'], ['initech']])
        expect(await sync(a, b, scope === undefined ? {} : { scope })).toEqual({ toA: 0, toB: 0, merged: 0, batches: 0 });
      expect(await allHeads([a, b])).toEqual(after);
    },
  ),

  'Y32 a scoped receive refuses, whole, a batch holding an event outside its subtree (a record of another scope, a checkpoint, a purge of two tenants) and writes nothing':
    pairs(async (a, b) => {
      await tenants(a, 'laptop');
      const all = await a.changes({});
      const globex = all.findIndex((event) => JSON.stringify(event.payload).includes('laptop globex'));
      // A turn's scope is its session's: one of another tenant's session is refused although it carries no scope.
      const turn = all.find((event) => event.type === 'session.turn_appended' && JSON.stringify(event.payload).includes('laptop globex'))!;
      await b.receive(all.filter((event) => event.type === 'session.created' && JSON.stringify(event.payload).includes('laptop globex')));
      const before = await allHeads([b]);
      await expectInvalid(() => b.receive(all.slice(0, globex + 1), { scope: ACME }), `${globex}`);
      await expectInvalid(() => b.receive([all.find((event) => event.type.startsWith('checkpoint.'))!], { scope: ACME }), '0');
      await expectInvalid(() => b.receive([turn], { scope: ACME }), '0');
      await expectInvalid(() => b.receive([], { scope: ACME, covered: { [turn.origin]: -1 } }), `covered.${turn.origin}`);
      // A purge naming both tenants' records lies in neither's subtree: not sent, and refused.
      const { seq } = await a.purge({ matching: 'revised', reason: 'both tenants' });
      const purge = (await a.changes({})).find((event) => event.originSeq === seq)!;
      expect(purge.type).toBe('records.purged');
      expect((await a.changes({}, { scope: ACME })).map((event) => event.originSeq)).not.toContain(seq);
      await expectInvalid(() => b.receive([purge], { scope: ACME }), '0');
      expect(await allHeads([b])).toEqual(before);
    }),

  "Y33 property: two tenants' random work and random scoped and whole syncs: a tenant's scoped replica holds exactly its subtree, equal to the source's":
    async (env) => {
      // A tenant's scoped sync of its replica with the source or the mirror, or the mirror's sync with the source, whole or of a tenant.
      const arbSyncs = fc.array(
        fc.record({ tenant: fc.nat(1), batchSize: fc.integer({ min: 1, max: 4 }), kind: fc.constantFrom('replica', 'replica-mirror', 'whole', 'mirror') }),
        { maxLength: 5 },
      );
      const arbRounds = fc.array(
        fc.record({ ops: fc.tuple(fc.array(arbReplicaOp, { maxLength: 4 }), fc.array(arbReplicaOp, { maxLength: 4 })), syncs: arbSyncs }),
        { minLength: 1, maxLength: 3 },
      );
      await property(env, arbRounds, async (rounds) => {
        const source = env.eventSourced(await env.open());
        // One scoped replica per tenant, and a mirror that syncs with the source both whole and scoped.
        const replicas = [env.eventSourced(await env.open()), env.closes(createInMemoryProvider())];
        const mirror = env.closes(createInMemoryProvider());
        for (const round of rounds) {
          for (const [tenant, ops] of round.ops.entries()) await runReplicaOps(source, TENANTS[tenant]!, ops);
          for (const { tenant, batchSize, kind } of round.syncs) {
            const scope = [TENANTS[tenant]!];
            if (kind === 'whole') await sync(source, mirror, { batchSize });
            else if (kind === 'mirror') await sync(source, mirror, { scope, batchSize });
            else await sync(kind === 'replica' ? source : mirror, replicas[tenant]!, { scope, batchSize });
          }
        }
        for (const [i, replica] of replicas.entries()) {
          await sync(mirror, replica, { scope: [TENANTS[i]!] });
          await sync(source, replica, { scope: [TENANTS[i]!] });
          const [mine, theirs] = [await replica.snapshot(), await source.snapshot()];
          expect(subtree(mine), `replica ${TENANTS[i]}`).toBe(subtree(mine, [TENANTS[i]!]));
          expect(subtree(mine, [TENANTS[i]!])).toBe(subtree(theirs, [TENANTS[i]!]));
        }
        await sync(source, mirror);
        await expectConverged([source, mirror]);
      });
    },
});
