/** Y19–Y22, Y24–Y26, Y70–Y72: records merged against changes made apart (docs/contract.md §12, "Merge"); Y19–Y20 a skill purged after a content write it rewrote, which the other store lacks. */
import { createInMemoryProvider, ERASED, ManualClock, NotFoundError, STATE_STREAM, sync } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { marked, T0 } from '../suite/fixtures.js';
import { checks, needing, property, type ProviderCheck } from '../suite/harness.js';
import { storedText } from './erasure.js';
import { clockedPairs, eachClockedPair, expectConverged, greatest } from './sync.js';

/** Rounds of Y20's content writes and purges of the shared skill (by which store, after its clock moved `ahead` seconds), each followed by a sync in batches of `batchSize` (mostly 1: a purge then comes in a batch of its own). */
const arbSkillRounds = fc.array(
  fc.record({
    writes: fc.array(
      fc.record({
        store: fc.constantFrom(0 as const, 1 as const),
        kind: fc.constantFrom('upsert' as const, 'delete' as const, 'purge' as const),
        ahead: fc.nat(3),
      }),
      { minLength: 3, maxLength: 6 },
    ),
    batchSize: fc.constantFrom(1, 1, 2, 3),
  }),
  { minLength: 1, maxLength: 3 },
);

export const syncFieldChecks: ProviderCheck[] = checks(['eventSourced', 'sync'], {
  'Y19 a skill deleted on one store while the other deletes and then purges it, synced one event a batch, is the erased tombstone of the purge on both, whichever delete is later':
    needing(['injectableClock'], async (env) => {
      for (const purgerAhead of [true, false])
        await eachClockedPair(env, async (a, b, [onA, onB]) => {
          const skill = await a.skills.upsert({ slug: 'deploy', body: 'the quartzite steps' });
          await sync(a, b);
          (purgerAhead ? onB : onA).advance(60_000);
          await a.skills.delete(skill.id);
          await b.skills.delete(skill.id);
          await b.purge({ id: skill.id, reason: 'request of the owner' });
          // The purge's rewritten delete and the purge come in batches of their own.
          await sync(a, b, { batchSize: 1 });
          for (const p of [a, b]) {
            expect(await p.skills.getAny(skill.id), 'the tombstone of the purge').toMatchObject({
              body: ERASED,
              deleted: true,
              // Every content write held: the creation and both deletes.
              version: 3,
              syncVersion: 4,
            });
            expect(await storedText(p)).not.toContain('quartzite');
          }
          await expectConverged([a, b]);
        });
    }),

  'Y20 property: two stores upserting and deleting a shared skill apart, the first purging it once after any of them, synced in small batches, converge to the erased tombstone of the purge, or else to the greatest content write':
    needing(['injectableClock'], async (env) => {
      await property(env, arbSkillRounds, async (rounds) => {
        const clocks = [new ManualClock(T0), new ManualClock(T0)];
        const stores = [env.eventSourced(await env.open({ clock: clocks[0]! })), env.closes(createInMemoryProvider({ clock: clocks[1]! }))];
        const writes = [await stores[0]!.skills.upsert({ slug: 'rules', body: 'the quartzite rules' })];
        const { id } = writes[0]!;
        await sync(stores[0]!, stores[1]!);
        let purged = false;
        for (const round of rounds) {
          for (const [n, write] of round.writes.entries()) {
            const p = stores[write.store]!;
            // The purging store's clock runs a little faster: its writes, which its purge rewrites, often win.
            clocks[write.store]!.advance((write.ahead + (write.store === 0 ? 1 : 0)) * 1_000);
            // A store holding the purge, or a write the purge rewrote, writes no more content: an upsert would bring the skill back.
            if ((await p.skills.getAny(id)).body === ERASED) continue;
            if (write.kind === 'purge') {
              if (write.store === 1 || purged) continue;
              await p.purge({ id, reason: 'property' });
              purged = true;
            } else if (write.kind === 'upsert') writes.push(await p.skills.upsert({ slug: 'rules', body: `quartzite ${n} on ${write.store}` }));
            else
              await p.skills.delete(id).then(
                (tombstone) => writes.push(tombstone),
                (error: unknown) => expect(error).toBeInstanceOf(NotFoundError),
              );
          }
          await sync(stores[0]!, stores[1]!, { batchSize: round.batchSize });
        }
        await sync(stores[0]!, stores[1]!);
        await expectConverged(stores);
        const last = greatest(writes);
        expect(await stores[0]!.skills.getAny(id), 'the skill').toMatchObject(
          purged
            ? { body: ERASED, deleted: true, version: writes.length, syncVersion: writes.length + 1 }
            : { body: last.body, deleted: last.deleted, version: writes.length, syncVersion: writes.length },
        );
        if (purged) for (const p of stores) expect(await storedText(p)).not.toContain('quartzite');
      });
    }),

  "Y70 a session's fields updated on both stores apart merge into the later field write by (HLC, writer) on both, syncVersion counting the versions held; the loser stays in history, marked as a conflict":
    clockedPairs(async (a, b, [onA, onB]) => {
      const session = await a.sessions.create({ title: 'shared', metadata: { by: 'a' } });
      await sync(a, b);
      onA.advance(2_000);
      onB.advance(1_000);
      await b.sessions.update(session.id, { title: 'titled on b', metadata: { by: 'b' } });
      const fromA = await a.sessions.update(session.id, { title: 'titled on a' });
      await sync(a, b);
      for (const p of [a, b]) {
        expect(await p.sessions.get(session.id), 'the merged session').toEqual({ ...fromA, syncVersion: 3 });
        const view = await p.at({ seq: await p.log.head(STATE_STREAM) });
        expect(await view.sessions.get(session.id), 'the merged session in a view').toEqual({ ...fromA, syncVersion: 3 });
        expect(marked(await p.history(session.id)), 'history, its loser marked').toEqual(['shared', 'titled on a', 'titled on b (conflict)']);
      }
      await expectConverged([a, b]);
    }),

  "Y71 a session's fields updated on one store while its transcript is appended to, cut and compacted on the other: the fields and the transcript changes are all kept, on both, whichever is later":
    needing(['injectableClock'], async (env) => {
      for (const updaterAhead of [true, false])
        await eachClockedPair(env, async (a, b, [onA, onB]) => {
          const session = await a.sessions.create({ title: 'shared' });
          const first = await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'first' });
          await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'second' });
          await sync(a, b);
          (updaterAhead ? onA : onB).advance(60_000);
          const updated = await a.sessions.update(session.id, { title: 'titled on a', metadata: { tag: 'a' } });
          await b.sessions.removeLastTurn(session.id);
          await b.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: 'third' });
          await b.sessions.compact(session.id, { through: first.id, summary: 'the first turn' });
          await sync(a, b);
          for (const p of [a, b]) {
            expect(await p.sessions.get(session.id), 'the merged session').toMatchObject({
              title: 'titled on a',
              metadata: { tag: 'a' },
              summary: { text: 'the first turn' },
              syncVersion: 7,
              fieldsClock: { updatedHlc: updated.updatedHlc, lastWriterId: updated.lastWriterId },
            });
            const contents = (await p.sessions.turns(session.id, { limit: 10 })).map((turn) => turn.content);
            expect(contents, 'the transcript').toEqual(['first', 'third']);
          }
          await expectConverged([a, b]);
        });
    }),

  'Y72 a session deleted on one store while it is updated and appended to on the other is deleted on both, a delete being final as locally, with the fields of the later field write and the appended turn kept':
    needing(['injectableClock'], async (env) => {
      for (const deleterAhead of [true, false])
        await eachClockedPair(env, async (a, b, [onA, onB]) => {
          const session = await a.sessions.create({ title: 'shared' });
          await sync(a, b);
          (deleterAhead ? onA : onB).advance(60_000);
          await a.sessions.delete(session.id);
          await b.sessions.update(session.id, { title: 'titled on b' });
          const turn = await b.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'appended on b' });
          await sync(a, b);
          for (const p of [a, b]) {
            await expect(p.sessions.get(session.id)).rejects.toBeInstanceOf(NotFoundError);
            expect(await p.sessions.getAny(session.id), 'the merged tombstone').toMatchObject({
              title: deleterAhead ? 'shared' : 'titled on b',
              deleted: true,
              syncVersion: 4,
            });
            const versions = await p.history(turn.id);
            expect(versions.map((version) => version.record.deleted)).toEqual([false]);
          }
          await expectConverged([a, b]);
        });
    }),
});
