/** B39: HLC across a clock set back, restarts and replays. */
import { compareHlc, type Hlc, ManualClock, type Provider } from '@agentstate/core';
import { maxHlc } from '@agentstate/core/backend';
import { expect } from 'vitest';
import { HOUR, T0 } from '../suite/fixtures.js';
import { checks, type ProviderCheck } from '../suite/harness.js';

interface Stamped {
  updatedHlc: Hlc;
}

export const hlcChecks: ProviderCheck[] = checks(['injectableClock'], {
  'B39 HLC across restarts and replays: with the clock set back, every replacement carries a later updatedHlc': async (env) => {
    const seen: Hlc[] = [];
    const note = <T extends Stamped>(record: T): T => {
      seen.push(record.updatedHlc);
      return record;
    };
    const later = (after: Stamped, before: Stamped, label: string): void => {
      expect(
        compareHlc(after.updatedHlc, before.updatedHlc),
        `${label}: ${JSON.stringify(after.updatedHlc)} after ${JSON.stringify(before.updatedHlc)}`,
      ).toBeGreaterThan(0);
    };

    const clock = new ManualClock(T0);
    let p = await env.open({ clock });
    const session = note(await p.sessions.create({ title: 'kept' }));
    const doomedSessions: string[] = [];
    const doomedItems: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      doomedSessions.push(note(await p.sessions.create({ title: `doomed ${i}` })).id);
      doomedItems.push(note(await p.memory.write({ content: `doomed ${i}` })).id);
    }
    note(await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'first' }));
    note(await p.skills.upsert({ slug: 'deploy', body: 'v1' }));
    note(await p.skills.upsert({ slug: 'phoenix', body: 'v1' }));
    clock.advance(10 * 60_000);
    note(await p.skills.upsert({ slug: 'deploy', body: 'v2' }));
    let phoenixTombstone: Stamped | undefined;

    const replaceAll = async (q: Provider, phase: number, label: string): Promise<void> => {
      // A fresh record starts past everything stored, whatever the physical clock says.
      const highest = seen.reduce(maxHlc);
      const fresh = note(await q.memory.write({ content: `fresh ${label}` }));
      later(fresh, { updatedHlc: highest }, `${label}: first write after the clock went back`);

      const sessionBefore = await q.sessions.get(session.id);
      const turn = note(await q.sessions.appendTurn({ sessionId: session.id, role: 'user', content: label }));
      const sessionAfter = note(await q.sessions.get(session.id));
      later(sessionAfter, sessionBefore, `${label}: the session bumped by a turn`);
      expect(turn.updatedHlc, label).toEqual(sessionAfter.updatedHlc);

      const deployBefore = await q.skills.get('deploy');
      const updated = note(await q.skills.upsert({ slug: 'deploy', body: label }));
      later(updated, deployBefore, `${label}: skill update`);
      later(note(await q.skills.recordOutcome('deploy', { success: true })), updated, `${label}: outcome`);

      if (phoenixTombstone === undefined) {
        const live = await q.skills.get('phoenix');
        phoenixTombstone = note(await q.skills.delete('phoenix'));
        later(phoenixTombstone, live, `${label}: skill delete`);
      } else {
        const back = note(await q.skills.upsert({ slug: 'phoenix', body: label }));
        later(back, phoenixTombstone, `${label}: skill resurrection`);
        phoenixTombstone = undefined;
      }

      const itemBefore = await q.memory.get(doomedItems[phase]!);
      later(note(await q.memory.delete(doomedItems[phase]!)), itemBefore, `${label}: memory delete`);
      const doomedBefore = await q.sessions.get(doomedSessions[phase]!);
      later(note(await q.sessions.delete(doomedSessions[phase]!)), doomedBefore, `${label}: session delete`);
    };

    clock.set(T0 - HOUR);
    await replaceAll(p, 0, 'live, clock set back');

    if (env.caps.durable) {
      p = await env.reopen(p, { clock: new ManualClock(T0 - 2 * HOUR) });
      await replaceAll(p, 1, 'reopened, clock further back');
    }
    if (env.caps.sharedStorage) {
      // Another process on the same storage, its clock hours ahead: this one's replacements still come later.
      const ahead = await env.openShared(p, { clock: new ManualClock(T0 + 6 * HOUR) });
      const theirs = note(await ahead.skills.upsert({ slug: 'deploy', body: 'from the future' }));
      later(note(await p.skills.upsert({ slug: 'deploy', body: 'from the past' })), theirs, 'shared storage: skill update');
      const theirTurn = note(await ahead.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'ahead' }));
      const ourTurn = note(await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'behind' }));
      later(ourTurn, theirTurn, 'shared storage: the session bumped by a turn');
    }
    if (env.caps.eventSourced) {
      const replayed = await env.replay(env.eventSourced(p).log, { clock: new ManualClock(T0 - 3 * HOUR) });
      await replaceAll(replayed, 2, 'replayed, clock further back');
    }
  },
});
