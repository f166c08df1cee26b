/** A1–A26, B38: the provider, the session, skill and memory stores (optimistic concurrency, tombstones, concurrent writers), and their records' envelope. */
import { compareHlc, ConflictError, NotFoundError, type Skill } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { GLOBAL, isEventSourced, isNonZeroHlc } from '../suite/fixtures.js';
import { type CheckEnv, checks, fresh, type ProviderCheck } from '../suite/harness.js';

/** A provider with a known instance id when the factory honours `instanceId`. */
async function openWithInstance(env: CheckEnv, instanceId: string) {
  const p = await env.open(env.caps.deterministic ? { instanceId } : {});
  const expected = env.caps.deterministic ? instanceId : isEventSourced(p) ? p.instanceId : undefined;
  return { p, expected };
}

const SLUGS = Array.from({ length: 10 }, (_, i) => `s${i}`);

/** A read taken mid-flight must still be a consistent list. */
function expectConsistent(skills: Skill[]): void {
  expect(skills.length).toBeLessThanOrEqual(10);
  expect(new Set(skills.map((s) => s.id)).size).toBe(skills.length);
  const slugs = skills.map((s) => s.slug);
  expect(slugs).toEqual([...slugs].sort());
  for (const slug of slugs) expect(SLUGS).toContain(slug);
}

export const storeChecks: ProviderCheck[] = checks([], {
  'A1 name is a non-empty string and close() resolves': fresh(async (p) => {
    expect(p.name).toMatch(/./s);
    await expect(p.close()).resolves.toBeUndefined();
    // Idempotent: a second close resolves too.
    await expect(p.close()).resolves.toBeUndefined();
  }),
  "A2 sessions.get('missing') is NotFoundError": fresh(async (p) => {
    expect((await expectError(() => p.sessions.get('missing'), NotFoundError)).key).toBe('missing');
  }),
  'A3 sessions.create assigns a non-empty id and get returns the session': fresh(async (p) => {
    const s = await p.sessions.create({ title: 't', model: 'm' });
    expect(s.id).toMatch(/./s);
    expect(s).toMatchObject({ title: 't', model: 'm', deleted: false, syncVersion: 1, updatedAt: s.createdAt });
    expect(await p.sessions.get(s.id)).toEqual(s);
  }),
  'A4 three appended turns get seq 1, 2, 3 and turns() returns them in order': fresh(async (p) => {
    const s = await p.sessions.create({ title: 't', model: 'm' });
    const appended = [];
    for (const content of ['c0', 'c1', 'c2']) appended.push(await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content }));
    expect(appended.map((t) => [t.seq, t.sessionId, t.role, t.content])).toEqual(['c0', 'c1', 'c2'].map((c, i) => [i + 1, s.id, 'user', c]));
    expect([new Set(appended.map((t) => t.id)).size, await p.sessions.turns(s.id)]).toEqual([3, appended]);
  }),
  'A5 appendTurn on a missing session is NotFoundError': fresh(async (p) => {
    await expectError(() => p.sessions.appendTurn({ sessionId: 'missing', role: 'user', content: 'c' }), NotFoundError);
    expect(await p.sessions.list()).toEqual([]);
  }),
  'A6 list() returns two sessions oldest first': fresh(async (p) => {
    const first = await p.sessions.create({ title: 'first' });
    const second = await p.sessions.create({ title: 'second' });
    expect(await p.sessions.list()).toEqual([first, second]);
  }),
  'A7 delete hides the session from get and list; a second delete is NotFoundError': fresh(async (p) => {
    const first = await p.sessions.create({ title: 'first' });
    const second = await p.sessions.create({ title: 'second' });
    expect(await p.sessions.delete(first.id)).toMatchObject({ id: first.id, deleted: true });
    await expectError(() => p.sessions.get(first.id), NotFoundError);
    expect(await p.sessions.list()).toEqual([second]);
    await expectError(() => p.sessions.delete(first.id), NotFoundError);
  }),
  "A8 skills.get('missing') is NotFoundError": fresh(async (p) => {
    await expectError(() => p.skills.get('missing'), NotFoundError);
  }),
  'A9 upsert creates version 1; get by id and by slug agree': fresh(async (p) => {
    const s = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it', tags: ['ops'] });
    expect(s.id).toMatch(/./s);
    expect(s).toMatchObject({ slug: 'deploy', name: 'Deploy', body: 'ship it', tags: ['ops'], scope: GLOBAL, uses: 0, wins: 0, check: '' });
    expect(s).toMatchObject({ version: 1, syncVersion: 1, deleted: false, updatedAt: s.createdAt });
    expect([await p.skills.get(s.id), await p.skills.get('deploy')]).toEqual([s, s]);
  }),
  'A10 a second upsert of the slug keeps id and createdAt and makes version 2': fresh(async (p) => {
    const first = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it', tags: ['ops'] });
    const second = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship faster' });
    expect(second).toMatchObject({ id: first.id, createdAt: first.createdAt, version: 2, body: 'ship faster', tags: ['ops'] });
    expect(await p.skills.get('deploy')).toEqual(second);
  }),
  'A11 the same slug in scope [project:alpha] is a second skill; list(alpha) returns only it': fresh(async (p) => {
    const global = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship faster' });
    const alpha = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it', scope: ['project:alpha'] });
    expect(alpha.id).not.toBe(global.id);
    expect(alpha).toMatchObject({ version: 1, syncVersion: 1, scope: ['project:alpha'] });
    expect([await p.skills.list({ scope: ['project:alpha'] }), await p.skills.list(), await p.skills.get('deploy')]).toEqual([[alpha], [global], global]);
  }),
  "A12 search('faster', 0) finds exactly the global skill; search('', 1) returns at most one": fresh(async (p) => {
    await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it', tags: ['ops'] });
    const global = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship faster' });
    const alpha = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it', scope: ['project:alpha'] });
    expect(await p.skills.search('faster', 0)).toEqual([global]);
    // Both match '': by slug, then id (derived from the scope: no creation order).
    const both = [global, alpha].sort((x, y) => (x.id < y.id ? -1 : 1));
    expect([await p.skills.search('', 1), await p.skills.search('', 0)]).toEqual([both.slice(0, 1), both]);
  }),
  'A13 create gives syncVersion 1; re-upserting the returned record gives syncVersion 2': fresh(async (p) => {
    const created = await p.skills.upsert({ slug: 'deploy', body: 'v1' });
    expect(created.syncVersion).toBe(1);
    expect(await p.skills.upsert({ ...created, body: 'v2' })).toMatchObject({ id: created.id, body: 'v2', syncVersion: 2, version: 2 });
  }),
  'A14 an upsert carrying a stale syncVersion is ConflictError and changes nothing': fresh(async (p) => {
    const created = await p.skills.upsert({ slug: 'deploy', body: 'v1' });
    const updated = await p.skills.upsert({ ...created, body: 'v2' });
    await expectError(() => p.skills.upsert({ ...created, body: 'v3' }), ConflictError);
    expect(await p.skills.get('deploy')).toEqual(updated);
  }),
  'A15 an upsert with syncVersion 0 or none succeeds unconditionally': fresh(async (p) => {
    const created = await p.skills.upsert({ slug: 'deploy', body: 'v1' });
    await p.skills.upsert({ ...created, body: 'v2' });
    expect(await p.skills.upsert({ ...created, syncVersion: 0, body: 'v3' })).toMatchObject({ id: created.id, body: 'v3', syncVersion: 3, version: 3 });
    expect(await p.skills.upsert({ slug: 'deploy', body: 'v4' })).toMatchObject({ id: created.id, body: 'v4', syncVersion: 4, version: 4 });
  }),
  'A16 upserting a new slug with syncVersion 5 is ConflictError': fresh(async (p) => {
    await expectError(() => p.skills.upsert({ slug: 'fresh', body: 'x', syncVersion: 5 }), ConflictError);
    await expectError(() => p.skills.get('fresh'), NotFoundError);
    expect(await p.skills.list()).toEqual([]);
  }),
  'A17 a deleted skill is gone from get, list and search; a second delete is NotFoundError': fresh(async (p) => {
    const skill = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it' });
    expect(await p.skills.delete('deploy')).toMatchObject({ id: skill.id, slug: 'deploy', deleted: true });
    await expectError(() => p.skills.get('deploy'), NotFoundError);
    await expectError(() => p.skills.get(skill.id), NotFoundError);
    expect([await p.skills.list(), await p.skills.search('deploy', 0), await p.skills.search('', 0)]).toEqual([[], [], []]);
    await expectError(() => p.skills.delete('deploy'), NotFoundError);
  }),
  'A18 upserting a deleted slug resurrects it with a later updatedHlc and the new body': fresh(async (p) => {
    const original = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it' });
    const tombstone = await p.skills.delete('deploy');
    const back = await p.skills.upsert({ slug: 'deploy', body: 'ship again' });
    expect(back).toMatchObject({ id: original.id, deleted: false, body: 'ship again', name: 'Deploy', version: 3 });
    expect(compareHlc(back.updatedHlc, original.updatedHlc)).toBeGreaterThan(0);
    expect(compareHlc(back.updatedHlc, tombstone.updatedHlc)).toBeGreaterThan(0);
    expect(await p.skills.get('deploy')).toEqual(back);
  }),
  'A19 memory.write assigns an id': fresh(async (p) => {
    const item = await p.memory.write({ kind: 'fact', content: 'the user prefers Go' });
    expect(item.id).toMatch(/./s);
    expect(item).toMatchObject({ kind: 'fact', content: 'the user prefers Go', scope: GLOBAL, source: '', deleted: false, syncVersion: 1 });
    expect(await p.memory.get(item.id)).toEqual(item);
  }),
  'A20 memory.write stores the given scope': fresh(async (p) => {
    const item = await p.memory.write({ kind: 'fact', content: 'deploys go to Cloudflare', scope: ['project:x'] });
    expect(item).toMatchObject({ kind: 'fact', content: 'deploys go to Cloudflare', scope: ['project:x'] });
    expect(await p.memory.get(item.id)).toEqual(item);
  }),
  'A21 recall by query and scope': fresh(async (p) => {
    const first = await p.memory.write({ kind: 'fact', content: 'the user prefers Go' });
    const second = await p.memory.write({ kind: 'fact', content: 'deploys go to Cloudflare', scope: ['project:x'] });
    expect(await p.memory.recall({ query: 'prefers', limit: 10 })).toEqual([{ ...first, score: 1 }]);
    expect(await p.memory.recall({ query: 'deploys', scope: ['project:x'] })).toEqual([{ ...second, score: 1 }]);
  }),
  'A22 a deleted item is no longer recalled; deleting a missing id is NotFoundError': fresh(async (p) => {
    const first = await p.memory.write({ kind: 'fact', content: 'the user prefers Go' });
    await p.memory.write({ kind: 'fact', content: 'deploys go to Cloudflare', scope: ['project:x'] });
    expect(await p.memory.delete(first.id)).toMatchObject({ id: first.id, deleted: true, content: first.content });
    expect(await p.memory.recall({ query: 'prefers' })).toEqual([]);
    await expectError(() => p.memory.delete('missing'), NotFoundError);
    await expectError(() => p.memory.delete(first.id), NotFoundError);
  }),
  'A23 a created skill has syncVersion 1, originInstanceId equal to lastWriterId, a non-zero updatedHlc': async (env) => {
    const { p, expected } = await openWithInstance(env, 'instance-a23');
    const s = await p.skills.upsert({ slug: 'deploy', body: 'ship it' });
    expect(s.originInstanceId).toMatch(/./s);
    expect(s).toMatchObject({ syncVersion: 1, lastWriterId: s.originInstanceId, deleted: false });
    if (expected !== undefined) expect(s.originInstanceId).toBe(expected);
    expect(isNonZeroHlc(s.updatedHlc)).toBe(true);
  },
  'A24 an update gives syncVersion 2, a later updatedHlc and the same originInstanceId': async (env) => {
    const { p } = await openWithInstance(env, 'instance-a24');
    const created = await p.skills.upsert({ slug: 'deploy', body: 'ship it' });
    const updated = await p.skills.upsert({ slug: 'deploy', body: 'ship faster' });
    expect(updated).toMatchObject({ syncVersion: 2, originInstanceId: created.originInstanceId, lastWriterId: created.lastWriterId });
    expect(compareHlc(updated.updatedHlc, created.updatedHlc)).toBeGreaterThan(0);
  },
  "A25 an appended turn has a non-zero updatedHlc and a lastWriterId; the session's updatedHlc moves past creation": async (env) => {
    const { p } = await openWithInstance(env, 'instance-a25');
    const session = await p.sessions.create({ title: 't' });
    const turn = await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'hello' });
    expect([isNonZeroHlc(turn.updatedHlc), turn.lastWriterId]).toEqual([true, session.originInstanceId]);
    expect(turn).toMatchObject({ syncVersion: 1, originInstanceId: session.originInstanceId, deleted: false });
    const bumped = await p.sessions.get(session.id);
    expect(compareHlc(bumped.updatedHlc, session.updatedHlc)).toBeGreaterThan(0);
    // The same event bumps the session: syncVersion + 1 and the turn's HLC.
    expect(bumped).toMatchObject({ updatedHlc: turn.updatedHlc, syncVersion: 2, createdAt: session.createdAt });
  },
  'A26 50 concurrent tasks upserting s0…s9 while searching and listing leave exactly 10 skills': fresh(async (p) => {
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const [skill, found, listed] = await Promise.all([
          p.skills.upsert({ slug: `s${i % 10}`, name: `Skill ${i % 10}`, body: `body ${i}` }),
          p.skills.search('s', 0),
          p.skills.list(),
        ]);
        expectConsistent(found);
        expectConsistent(listed);
        return skill;
      }),
    );
    const final = await p.skills.list();
    expect(final.map((s) => s.slug)).toEqual(SLUGS);
    for (const s of final) expect(s).toMatchObject({ version: 5, syncVersion: 5, deleted: false });
    // Every upsert saw the one before it: each slug went through versions 1…5.
    for (const slug of SLUGS) {
      expect(
        results
          .filter((s) => s.slug === slug)
          .map((s) => s.version)
          .sort(),
        slug,
      ).toEqual([1, 2, 3, 4, 5]);
      expect(new Set(results.filter((s) => s.slug === slug).map((s) => s.id)).size, slug).toBe(1);
    }
    expect(await p.skills.search('s', 0)).toEqual(final);
  }),
  'B38 upsert keeps omitted fields; 100 concurrent recordOutcome calls add exactly 100 uses': fresh(async (p) => {
    const kept = { name: 'Deploy', tags: ['ops', 'ci'], check: 'npm test', uses: 3, wins: 2, scope: ['project:alpha'] };
    const created = await p.skills.upsert({ slug: 'deploy', body: 'ship it', ...kept });
    const bodyOnly = await p.skills.upsert({ slug: 'deploy', body: 'ship faster', scope: ['project:alpha'] });
    expect(bodyOnly).toMatchObject({ ...kept, body: 'ship faster', version: 2, id: created.id });
    const nameOnly = await p.skills.upsert({ slug: 'deploy', name: 'Deploy!', scope: ['project:alpha'] });
    expect(nameOnly).toMatchObject({ ...kept, name: 'Deploy!', body: 'ship faster', version: 3 });

    const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => p.skills.recordOutcome(created.id, { success: i % 3 === 0 })));
    const wins = Array.from({ length: 100 }, (_, i) => i).filter((i) => i % 3 === 0).length;
    const final = await p.skills.get(created.id);
    expect(final).toMatchObject({ uses: 103, wins: 2 + wins, version: 3, syncVersion: nameOnly.syncVersion + 100 });
    expect(final).toMatchObject({ name: 'Deploy!', body: 'ship faster', tags: ['ops', 'ci'], check: 'npm test' });
    // Each outcome saw the one before it: their `uses` are exactly 4…103.
    expect(outcomes.map((s) => s.uses).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 4));
    expect(new Set(outcomes.map((s) => s.syncVersion)).size).toBe(100);
  }),
});
