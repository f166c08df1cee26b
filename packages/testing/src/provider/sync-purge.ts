/**
 * Y81–Y85: a record purged on one store while it changes on the other merges (docs/contract.md §12, "Merge"): a session,
 * a turn a summary covers, a skill purged on both; and a record a user wrote as `[erased]` is no purge.
 */
import type { EventSourcedProvider, PurgeInput } from '@agentstate/core';
import { createInMemoryProvider, ERASED, sync } from '@agentstate/core';
import { expect } from 'vitest';
import { checks, needing, type ProviderCheck } from '../suite/harness.js';
import { storedText } from './erasure.js';
import { eachClockedPair, eachPair, expectConverged } from './sync.js';

/** The changes of the shared session the second store makes while the first purges it: each adds `kept` text or none. */
const CHANGES = {
  append: (p: EventSourcedProvider, id: string) => p.sessions.appendTurn({ sessionId: id, role: 'user', content: 'kept Wombat' }).then(() => 1),
  removeLastTurn: (p: EventSourcedProvider, id: string) => p.sessions.removeLastTurn(id).then(() => 0),
  replaceSuffix: async (p: EventSourcedProvider, id: string) => {
    const [, last] = await p.sessions.turns(id);
    await p.sessions.replaceSuffix(id, { expected: [last!.id], turns: [{ role: 'assistant', content: 'kept Wombat' }] });
    return 1;
  },
  compact: async (p: EventSourcedProvider, id: string) => {
    const [, last] = await p.sessions.turns(id);
    await p.sessions.compact(id, { through: last!.id, summary: 'the user gave the code Quokka' });
    return 0;
  },
  update: (p: EventSourcedProvider, id: string) => p.sessions.update(id, { title: 'Quokka, renamed', metadata: { code: 'Quokka' } }).then(() => 0),
} as const;

/** The purges that take the session: by its id, by a text its title holds, by its namespace. */
const reason = 'request of the owner';
const PURGES: ((id: string) => PurgeInput)[] = [(id) => ({ id, reason }), () => ({ matching: 'Quokka', reason }), () => ({ namespace: ['tenant'], reason })];

export const syncPurgeChecks: ProviderCheck[] = checks(['eventSourced', 'sync'], {
  "Y81 a session purged on one store while the other appends to it, removes its last turn, replaces its suffix, compacts it or updates its fields, in either order of arrival: the purge's tombstone on both, every version of its fields and summary erased, a turn appended apart kept, converged":
    needing(['injectableClock'], async (env) => {
      // The purger alternates, and so does, every two runs, which of the two writes later by the clock.
      for (const [n, [kind, change]] of Object.entries(CHANGES).entries()) {
        const purgerLater = Math.floor(n / 2) % 2 === 0;
        await eachClockedPair(env, async (a, b, [onA, onB]) => {
          const session = await a.sessions.create({ title: 'Quokka chat', scope: ['tenant'], metadata: { code: 'Quokka' } });
          for (const content of ['the code is Quokka', 'noted: Quokka']) await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content });
          await sync(a, b);
          // The purger takes the change holding its purge, the other the purge holding its change; `sync` pulls into `a` first.
          const [purger, changer] = n % 2 === 0 ? [a, b] : [b, a];
          (purgerLater === (purger === a) ? onA : onB).advance(60_000);
          const kept = await change(changer, session.id);
          await purger.purge(PURGES[n % PURGES.length]!(session.id));
          const versions = (await changer.sessions.get(session.id)).syncVersion + 1;
          await sync(a, b);
          const label = `${kind}, the purge ${purgerLater ? 'later' : 'earlier'}`;
          for (const p of [a, b]) {
            const { sessions, turns } = await p.snapshot();
            expect(
              sessions.find((held) => held.id === session.id),
              `${label}: the purged session`,
            ).toMatchObject({ title: ERASED, metadata: {}, deleted: true, syncVersion: versions });
            const live = turns.filter((turn) => turn.sessionId === session.id && !turn.deleted).map((turn) => turn.content);
            expect(live, `${label}: the turns appended apart`).toEqual(Array.from({ length: kept }, () => 'kept Wombat'));
            expect(await storedText(p), `${label}: the purged text`).not.toContain('Quokka');
          }
          await expectConverged([a, b]);
        });
      }
    }),

  'Y82 a session compacted on one store through a turn the other purges alone, in either order of arrival: the summary stands on both, marked stale by the store that took the purge after it, and context leaves it out; converged':
    needing([], async (env) => {
      await eachPair(env, async (a, b) => {
        const session = await a.sessions.create({ title: 'shared' });
        await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'a question' });
        const told = await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'the code is Quokka' });
        await sync(a, b);
        const { summary } = await a.sessions.compact(session.id, { through: told.id, summary: 'a question and a code' });
        // No summary on the second store: its purge leaves the session as it was, so the compaction chains on it there.
        await b.purge({ id: told.id, reason: 'request of the owner' });
        await sync(a, b);
        for (const p of [a, b]) {
          expect(await p.sessions.get(session.id), 'the compacted session').toMatchObject({
            summary: { text: summary!.text, through: told.id, stale: true },
            syncVersion: 5,
          });
          const window = await p.sessions.context(session.id, { maxTokens: 1000 });
          expect(
            window.entries.map((entry) => entry.kind),
            'the window without the summary of a turn no longer live',
          ).toEqual(['turn']);
          expect(await storedText(p)).not.toContain('Quokka');
        }
        await expectConverged([a, b]);
      });
    }),
  "Y83 a skill two stores each purge after other changes, one recording outcomes, the other upserting and recording one, in either order of arrival: one erased tombstone on both, each outcome counted once, every content write counted, the later one's counts; converged":
    needing([], async (env) => {
      for (const order of ['a first', 'b first'] as const)
        await eachPair(env, async (a, b) => {
          const skill = await a.skills.upsert({ slug: 'unlock', body: 'the locker code is Quokka' });
          await a.skills.recordOutcome(skill.id, { success: true });
          await sync(a, b);
          await a.skills.recordOutcome(skill.id, { success: true });
          await a.skills.recordOutcome(skill.id, { success: false });
          await a.purge({ id: skill.id, reason: 'request of the owner' });
          const upserted = await b.skills.upsert({ slug: 'unlock', body: 'the locker code is still Quokka' });
          await b.skills.recordOutcome(skill.id, { success: true });
          await b.purge({ id: skill.id, reason: 'request of the owner' });
          await (order === 'a first' ? sync(a, b) : sync(b, a));
          // The later content write is the second's upsert (1 use, 1 win), with the three outcomes it did not hold.
          const contentClock = { updatedHlc: upserted.updatedHlc, lastWriterId: upserted.lastWriterId };
          const tombstone = { body: ERASED, deleted: true, version: 2, uses: 4, wins: 3, outcomes: { uses: 4, wins: 3 }, contentClock, syncVersion: 8 };
          for (const p of [a, b]) {
            expect(await p.skills.getAny(skill.id), `${order}: the tombstone`).toMatchObject(tombstone);
            expect(await storedText(p), `${order}: the purged text`).not.toContain('Quokka');
          }
          await expectConverged([a, b]);
        });
      // A third store takes the versions a purger wrote before its purges, erased, and not the purges yet: the deletes and
      // the outcome written where those versions came intact follow them there, and the purges erase them on arrival. Of
      // `notes`, it takes a delete and a later update written apart, both erased: they merge deleted there, as against a
      // purge, while the delete that follows was written where the update won.
      await env.scoped(async () => {
        const [a, b, c] = [env.eventSourced(await env.open()), env.eventSourced(await env.open()), env.closes(createInMemoryProvider())];
        const item = await a.memory.write({ content: 'the rules', key: 'rules' });
        const notes = await a.memory.write({ content: 'the notes', key: 'notes' });
        const skill = await a.skills.upsert({ slug: 'unlock', body: 'the rules' });
        for (const p of [b, c]) await sync(a, p);
        const deleted = await c.memory.delete(notes.id);
        await c.memory.update(item.id, { content: 'the code is Quokka' });
        const upserted = await c.skills.upsert({ slug: 'unlock', body: 'the locker code is Quokka' });
        while (Date.now() <= deleted.updatedHlc.wall) await new Promise((resolve) => setTimeout(resolve, 1));
        await a.memory.update(notes.id, { content: 'the safe code is Quokka' });
        await sync(a, c);
        await a.skills.recordOutcome(skill.id, { success: true });
        for (const id of [item.id, notes.id]) await a.memory.delete(id);
        for (const id of [item.id, skill.id, notes.id]) await c.purge({ id, reason });
        await b.receive(await c.changes(await b.vector(), { limit: 4 }));
        for (const [x, y] of [
          [a, b],
          [b, c],
          [a, c],
        ] as const)
          await sync(x, y);
        const contentClock = { updatedHlc: upserted.updatedHlc, lastWriterId: upserted.lastWriterId };
        const tombstone = { body: ERASED, deleted: true, version: 2, uses: 1, wins: 1, outcomes: { uses: 1, wins: 1 }, contentClock, syncVersion: 4 };
        for (const p of [a, b, c]) {
          expect(await p.memory.getAny(item.id), 'the chain: the item').toMatchObject({ content: ERASED, deleted: true, syncVersion: 4 });
          expect(await p.memory.getAny(notes.id), 'the chain: the notes').toMatchObject({ content: ERASED, deleted: true, syncVersion: 5 });
          expect(await p.skills.getAny(skill.id), 'the chain: the skill').toMatchObject(tombstone);
          expect(await storedText(p), 'the chain: the purged text').not.toContain('Quokka');
        }
        await expectConverged([a, b, c]);
      });
    }),
  'Y84 a session compacted on one store through its last turn while the other purges an earlier turn the summary covers, the purge later or earlier by the clock, synced with either store first and then again: the summary is stale on both, as a local purge leaves it, and context leaves it out; converged':
    needing(['injectableClock'], async (env) => {
      for (const order of ['compactor first', 'purger first'] as const)
        for (const purgeLater of [true, false])
          await eachClockedPair(env, async (a, b, [onA, onB]) => {
            const session = await a.sessions.create({ title: 'shared' });
            const told = await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'the code is Quokka' });
            const last = await a.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: 'noted' });
            await sync(a, b);
            (purgeLater ? onB : onA).advance(60_000);
            await a.sessions.compact(session.id, { through: last.id, summary: 'the user gave a code' });
            await b.purge({ id: told.id, reason: 'request of the owner' });
            // The store that takes the purge after the summary marks it; one that takes the summary after a purge later by
            // the clock too. A purge earlier by the clock may have been held by the summary's writer: its mark comes back
            // from the compactor's store with the next sync.
            for (let i = 0; i < 2; i++) await (order === 'compactor first' ? sync(a, b) : sync(b, a));
            const label = `${order}, the purge ${purgeLater ? 'later' : 'earlier'}`;
            for (const p of [a, b]) {
              expect((await p.sessions.get(session.id)).summary, `${label}: the summary`).toMatchObject({ through: last.id, stale: true });
              const window = await p.sessions.context(session.id, { maxTokens: 1000 });
              expect(
                window.entries.map((entry) => entry.kind),
                `${label}: the window without the summary of an erased turn`,
              ).toEqual(['turn']);
            }
            await expectConverged([a, b]);
          });
    }),
  "Y85 a session, memory item and skill a user wrote as `[erased]` and deleted on one store while the other changes each apart, later by the clock: no purge, the later change's text on both; converged":
    needing(['injectableClock'], async (env) => {
      await eachClockedPair(env, async (a, b, [, onB]) => {
        // Each as a purge would leave it but for the log: no purge names it.
        const session = await a.sessions.create({ title: ERASED });
        const item = await a.memory.write({ content: ERASED, source: ERASED });
        const skill = await a.skills.upsert({ slug: 'erased', name: ERASED, body: ERASED });
        await sync(a, b);
        await a.sessions.delete(session.id);
        await a.memory.delete(item.id);
        await a.skills.delete(skill.id);
        onB.advance(60_000);
        await b.sessions.update(session.id, { title: 'Wombat notes' });
        await b.memory.update(item.id, { content: 'Wombat fact' });
        await b.skills.upsert({ slug: 'erased', name: 'Wombat', body: 'Wombat steps' });
        await sync(a, b);
        for (const p of [a, b]) {
          const held = (await p.snapshot()).sessions.find((s) => s.id === session.id);
          expect(held, 'the session: deleted, with the later title').toMatchObject({ title: 'Wombat notes', deleted: true, syncVersion: 3 });
          expect(await p.memory.getAny(item.id), 'the item: the later update').toMatchObject({ content: 'Wombat fact', deleted: false, syncVersion: 3 });
          expect(await p.skills.getAny(skill.id), 'the skill: the later upsert').toMatchObject({
            name: 'Wombat',
            body: 'Wombat steps',
            deleted: false,
            version: 3,
          });
        }
        await expectConverged([a, b]);
      });
    }),
});
