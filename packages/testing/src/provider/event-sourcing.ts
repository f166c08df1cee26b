/** A27, A28, B30, B32: the state stream, replay and determinism. */
import type { LogEvent } from '@agentstate/core';
import {
  decodeStateEvent,
  EventTypes,
  ManualClock,
  NotFoundError,
  seededEntropy,
  sessionAfterTurn,
  STATE_SCHEMA_VERSION,
  STATE_STREAM,
} from '@agentstate/core';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { INSTANT, isEventSourced, populate, readModel, snapshotText, T0 } from '../suite/fixtures.js';
import { checks, freshLog, needing, type ProviderCheck } from '../suite/harness.js';

export const eventSourcingChecks: ProviderCheck[] = checks([], {
  'A27 seven mutations append exactly seven events of the seven types, in order': freshLog(async (p) => {
    const session = await p.sessions.create({ title: 't' });
    const turn = await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'hi' });
    const bumped = await p.sessions.get(session.id);
    const skill = await p.skills.upsert({ slug: 'deploy', body: 'ship it' });
    const skillTombstone = await p.skills.delete('deploy');
    const item = await p.memory.write({ content: 'a fact' });
    const itemTombstone = await p.memory.delete(item.id);
    const sessionTombstone = await p.sessions.delete(session.id);

    const events = await p.log.read({ stream: STATE_STREAM });
    expect(events.map((e) => e.type)).toEqual([
      EventTypes.SessionCreated,
      EventTypes.TurnAppended,
      EventTypes.SkillUpserted,
      EventTypes.SkillDeleted,
      EventTypes.MemoryWritten,
      EventTypes.MemoryDeleted,
      EventTypes.SessionDeleted,
    ]);
    expect([events.map((e) => e.seq), await p.log.head(STATE_STREAM)]).toEqual([[1, 2, 3, 4, 5, 6, 7], 7]);
    // Payloads, as read, are the complete post-images the calls returned, but for the turn's
    // session, which is derived from the one before (docs/contract.md §7).
    expect(events.map((e) => decodeStateEvent(e).payload)).toEqual([
      { session },
      { turn },
      { skill },
      { skill: skillTombstone },
      { item },
      { item: itemTombstone },
      { session: sessionTombstone },
    ]);
    expect(sessionAfterTurn(session, turn)).toEqual(bumped);
    for (const e of events) expect(e).toMatchObject({ stream: STATE_STREAM, schemaVersion: STATE_SCHEMA_VERSION, time: expect.stringMatching(INSTANT) });
  }),
  'A28 replay(log) reads identically to the live provider': freshLog(async (p, env) => {
    const written = await populate(p);
    const replayed = await env.replay(p.log);
    expect(await readModel(replayed)).toEqual(await readModel(p));
    for (const id of written.liveSessionIds) expect(await replayed.sessions.turns(id)).toEqual(await p.sessions.turns(id));
    await expectError(() => replayed.sessions.get(written.deletedSessionId), NotFoundError);
    await expectError(() => replayed.sessions.turns(written.deletedSessionId), NotFoundError);
    await expectError(() => replayed.memory.get(written.deletedMemoryId), NotFoundError);
    await expectError(() => replayed.skills.get('rollback'), NotFoundError);
  }),
  'B30 replay equality covers everything: snapshot bytes of live and replayed providers are identical': freshLog(async (p, env) => {
    const written = await populate(p);
    const head = await p.log.head(STATE_STREAM);
    const live = await p.snapshot();
    expect(live.seq).toBe(head);
    // Tombstones, every transcript and every version are in it.
    expect(live.sessions.find((s) => s.id === written.deletedSessionId)?.deleted).toBe(true);
    expect([live.turns.filter((t) => t.sessionId === written.deletedSessionId).map((t) => t.seq), live.turns.length]).toEqual([[1, 2], 6]);
    const skills = live.skills.map((s) => `${s.slug} ${s.version} ${s.deleted}`).sort();
    expect(skills).toEqual(['deploy 1 false', 'deploy 2 false', 'lint 1 false', 'phoenix 3 false', 'rollback 2 true']);
    expect(live.memory.find((m) => m.id === written.deletedMemoryId)?.deleted).toBe(true);
    expect(await snapshotText(await env.replay(p.log))).toBe(await snapshotText(p));
  }),
  'B32 determinism: same clock, seeded entropy and calls give identical records, events and snapshot bytes': needing(
    ['deterministic', 'injectableClock'],
    async (env) => {
      const run = async () => {
        const clock = new ManualClock(T0);
        const p = await env.open({ clock, entropy: seededEntropy(32), instanceId: 'instance-b32' });
        let step = 0;
        // Some writes share a millisecond, some do not.
        await populate(p, () => clock.advance(step++ % 3 === 0 ? 0 : 7));
        const model = await readModel(p);
        if (!isEventSourced(p)) return { model, events: [] as LogEvent[], bytes: '' };
        return { model, events: await p.log.read({ stream: STATE_STREAM }), bytes: await snapshotText(p) };
      };
      const a = await run();
      const b = await run();
      expect([b.model, JSON.stringify(b.model)]).toEqual([a.model, JSON.stringify(a.model)]);
      if (env.caps.eventSourced) {
        expect(a.events.length).toBeGreaterThan(0);
        expect([b.events, JSON.stringify(b.events), b.bytes]).toEqual([a.events, JSON.stringify(a.events), a.bytes]);
      }
    },
  ),
});
