/** A23–A25: the sync envelope of created, updated and appended records. */
import { compareHlc } from '@agentstate/core';
import { expect } from 'vitest';
import { isEventSourced, isNonZeroHlc } from '../suite/fixtures.js';
import type { CheckEnv, ProviderCheck } from '../suite/harness.js';
import { checks } from '../suite/harness.js';

/** A provider with a known instance id when the factory honours `instanceId`. */
async function openWithInstance(env: CheckEnv, instanceId: string) {
  const p = await env.open(env.caps.deterministic ? { instanceId } : {});
  const expected = env.caps.deterministic ? instanceId : isEventSourced(p) ? p.instanceId : undefined;
  return { p, expected };
}

export const envelopeChecks: ProviderCheck[] = checks([], {
  'A23 a created skill has syncVersion 1, originInstanceId equal to lastWriterId, a non-zero updatedHlc': async (env) => {
    const { p, expected } = await openWithInstance(env, 'instance-a23');
    const s = await p.skills.upsert({ slug: 'deploy', body: 'ship it' });
    expect(s.syncVersion).toBe(1);
    expect(typeof s.originInstanceId).toBe('string');
    expect(s.originInstanceId.length).toBeGreaterThan(0);
    expect(s.lastWriterId).toBe(s.originInstanceId);
    if (expected !== undefined) expect(s.originInstanceId).toBe(expected);
    expect(isNonZeroHlc(s.updatedHlc)).toBe(true);
    expect(s.deleted).toBe(false);
  },
  'A24 an update gives syncVersion 2, a later updatedHlc and the same originInstanceId': async (env) => {
    const { p } = await openWithInstance(env, 'instance-a24');
    const created = await p.skills.upsert({ slug: 'deploy', body: 'ship it' });
    const updated = await p.skills.upsert({ slug: 'deploy', body: 'ship faster' });
    expect(updated.syncVersion).toBe(2);
    expect(compareHlc(updated.updatedHlc, created.updatedHlc)).toBeGreaterThan(0);
    expect(updated.originInstanceId).toBe(created.originInstanceId);
    expect(updated.lastWriterId).toBe(created.lastWriterId);
  },
  "A25 an appended turn has a non-zero updatedHlc and a lastWriterId; the session's updatedHlc moves past creation": async (env) => {
    const { p } = await openWithInstance(env, 'instance-a25');
    const session = await p.sessions.create({ title: 't' });
    const turn = await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'hello' });
    expect(isNonZeroHlc(turn.updatedHlc)).toBe(true);
    expect(turn.lastWriterId).toBe(session.originInstanceId);
    expect(turn).toMatchObject({ syncVersion: 1, originInstanceId: session.originInstanceId, deleted: false });
    const bumped = await p.sessions.get(session.id);
    expect(compareHlc(bumped.updatedHlc, session.updatedHlc)).toBeGreaterThan(0);
    // The same event bumps the session: syncVersion + 1 and the turn's HLC.
    expect(bumped.updatedHlc).toEqual(turn.updatedHlc);
    expect(bumped.syncVersion).toBe(2);
    expect(bumped.createdAt).toBe(session.createdAt);
  },
});
