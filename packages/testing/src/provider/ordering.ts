/** B33 ordering tie-breaks, B35 scopes, B36 transcripts of dead sessions and updatedAt. */
import { NotFoundError, SkillScopeRequiredError } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { ids, T0 } from '../suite/fixtures.js';
import type { ProviderCheck } from '../suite/harness.js';
import { checks, clocked, fresh } from '../suite/harness.js';

export const orderingChecks: ProviderCheck[] = checks([], {
  'B33 records created in the same millisecond list in creation order; recall of equal createdAt is newest id first': clocked(async (p, _clock) => {
    const at = new Date(T0).toISOString();

    const sessions = [];
    for (const title of ['one', 'two', 'three', 'four']) sessions.push(await p.sessions.create({ title }));
    for (const s of sessions) expect(s.createdAt).toBe(at);
    expect(ids(await p.sessions.list())).toEqual(ids(sessions));

    const turns = [];
    for (const content of ['a', 'b', 'c']) turns.push(await p.sessions.appendTurn({ sessionId: sessions[0]!.id, role: 'user', content }));
    expect((await p.sessions.turns(sessions[0]!.id)).map((t) => [t.seq, t.content])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);

    const skills = [];
    for (const project of ['c', 'a', 'b']) skills.push(await p.skills.upsert({ slug: 'same', body: project, scope: [`project:${project}`] }));
    // No global 'same': a get without a scope names no skill, and lists the scopes in scope order.
    const refused = await expectError(() => p.skills.get('same'), SkillScopeRequiredError);
    expect(refused.scopes).toEqual([['project:a'], ['project:b'], ['project:c']]);
    // Equal slugs and createdAt fall back to creation (id) order.
    expect(ids(await p.skills.search('same', 0))).toEqual(ids(skills));

    const items = [];
    for (const content of ['tie one', 'tie two', 'tie three']) items.push(await p.memory.write({ content }));
    for (const m of items) expect(m.createdAt).toBe(at);
    expect(ids(await p.memory.recall({ query: 'tie' }))).toEqual(ids(items).reverse());

    // Explicit equal createdAt with ids out of insertion order: the id decides.
    const past = '2025-06-01T00:00:00.000Z';
    for (const id of ['m-b', 'm-a', 'm-c']) await p.memory.write({ id, content: `explicit ${id}`, createdAt: past });
    expect(ids(await p.memory.recall({ query: 'explicit' }))).toEqual(['m-c', 'm-b', 'm-a']);
    for (const id of ['sess-b', 'sess-a', 'sess-c']) await p.sessions.create({ id, createdAt: past });
    expect(ids(await p.sessions.list())).toEqual(['sess-a', 'sess-b', 'sess-c', ...ids(sessions)]);
  }),
  'B35 scope: list is exact; recall without scope spans all; get without a scope is global only, with one the most specific along the chain': fresh(
    async (p) => {
      const global = await p.skills.upsert({ slug: 'x', body: 'global' });
      const inP = await p.skills.upsert({ slug: 'x', body: 'p', scope: ['project:p'] });
      const inPW = await p.skills.upsert({ slug: 'x', body: 'pw', scope: ['project:p', 'workspace:w'] });
      const inI = await p.skills.upsert({ slug: 'x', body: 'i', scope: ['instance:i'] });
      expect(await p.skills.list()).toEqual([global]);
      expect(await p.skills.list({})).toEqual([global]);
      expect(await p.skills.list({ scope: ['project:p'] })).toEqual([inP]);
      expect(await p.skills.list({ scope: ['project:p', 'workspace:w'] })).toEqual([inPW]);
      expect(await p.skills.list({ scope: ['instance:i'] })).toEqual([inI]);
      expect(await p.skills.list({ scope: ['workspace:w'] })).toEqual([]);

      // Without a scope: the global skill only; a slug live only elsewhere is refused, naming its scopes.
      const inQ = await p.skills.upsert({ slug: 'y', body: 'q', scope: ['project:q'] });
      const inR = await p.skills.upsert({ slug: 'y', body: 'r', scope: ['project:r'] });
      await p.skills.upsert({ slug: 'z', body: 'r', scope: ['project:r'] });
      const zGlobal = await p.skills.upsert({ slug: 'z', body: 'global' });
      expect((await p.skills.get('x')).id).toBe(global.id);
      expect((await expectError(() => p.skills.get('y'), SkillScopeRequiredError)).scopes).toEqual([inQ.scope, inR.scope]);
      expect((await p.skills.get('z')).id).toBe(zGlobal.id);

      // With a scope: the most specific along {i,p,w} → {i,p,''} → {i,'',''} → global.
      const c = await p.skills.upsert({ slug: 'c', body: 'global' });
      const cI = await p.skills.upsert({ slug: 'c', body: 'i', scope: ['instance:i'] });
      const cIP = await p.skills.upsert({ slug: 'c', body: 'ip', scope: ['instance:i', 'project:p'] });
      expect((await p.skills.get('c', { scope: ['instance:i', 'project:p', 'workspace:w'] })).id).toBe(cIP.id);
      expect((await p.skills.get('c', { scope: ['instance:i', 'project:p'] })).id).toBe(cIP.id);
      expect((await p.skills.get('c', { scope: ['instance:i', 'project:q'] })).id).toBe(cI.id);
      expect((await p.skills.get('c', { scope: ['instance:j', 'project:p'] })).id).toBe(c.id);
      expect((await p.skills.get('c', {})).id).toBe(c.id);
      expect((await p.skills.get('x', { scope: ['project:p', 'workspace:w'] })).id).toBe(inPW.id);
      expect((await p.skills.get('x', { scope: ['project:p', 'workspace:v'] })).id).toBe(inP.id);
      // {'',p,w} is not on the chain of {i,p,w}: the instance level comes first.
      expect((await p.skills.get('x', { scope: ['instance:i', 'project:p', 'workspace:w'] })).id).toBe(inI.id);
      await expectError(() => p.skills.get('y', { scope: ['project:zz'] }), NotFoundError);

      // Memory: no scope spans every scope; a scope is exact.
      const m1 = await p.memory.write({ content: 'scoped fact global' });
      const m2 = await p.memory.write({ content: 'scoped fact p', scope: ['project:p'] });
      const m3 = await p.memory.write({ content: 'scoped fact pw', scope: ['project:p', 'workspace:w'] });
      expect(ids(await p.memory.recall({ query: 'scoped' }))).toEqual([m3.id, m2.id, m1.id]);
      expect(ids(await p.memory.recall({ query: 'scoped', scope: ['project:p'] }))).toEqual([m2.id]);
      expect(ids(await p.memory.recall({ query: 'scoped', scope: [] }))).toEqual([m1.id]);
      expect(ids(await p.memory.recall({ query: 'scoped', scope: ['workspace:w'] }))).toEqual([]);
    },
  ),
  "B36 turns of a deleted or unknown session is NotFoundError; a session's updatedAt never moves back": fresh(async (p) => {
    const s = await p.sessions.create({ title: 't', createdAt: '2026-03-01T00:00:00.000Z' });
    expect(s.updatedAt).toBe('2026-03-01T00:00:00.000Z');
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'late', createdAt: '2026-03-05T00:00:00.000Z' });
    expect((await p.sessions.get(s.id)).updatedAt).toBe('2026-03-05T00:00:00.000Z');
    const early = await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', content: 'early', createdAt: '2026-03-02T00:00:00.000Z' });
    expect(early.createdAt).toBe('2026-03-02T00:00:00.000Z');
    expect(early.seq).toBe(2);
    expect((await p.sessions.get(s.id)).updatedAt).toBe('2026-03-05T00:00:00.000Z');

    await expectError(() => p.sessions.turns('unknown'), NotFoundError);
    const tombstone = await p.sessions.delete(s.id);
    expect(tombstone.updatedAt >= '2026-03-05T00:00:00.000Z').toBe(true);
    await expectError(() => p.sessions.turns(s.id), NotFoundError);
    await expectError(() => p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'after' }), NotFoundError);
  }),
});
