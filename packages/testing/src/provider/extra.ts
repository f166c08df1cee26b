/** X1–X15, X18, X19: further behaviour of docs/contract.md, numbered X in docs/conformance.md, and the property-based checks against the in-memory provider. */
import type { MemoryItem, Provider, Skill } from '@agentstate/core';
import { compareHlc, decodeStateEvent, isUuidV7, LIMITS, NotFoundError, STATE_STREAM, uuidV7Time, ValidationError } from '@agentstate/core';
import { compareMemoryNewestFirst, compareSkillsBySlug, matchesText, skillSearchText } from '@agentstate/core/backend';
import fc from 'fast-check';
import { expect } from 'vitest';
import { arbOperations, runOperations } from '../arbitraries/operations.js';
import { arbQuery, arbText } from '../arbitraries/text.js';
import { expectError } from '../suite/expect-error.js';
import { GLOBAL, ids, INSTANT, T0 } from '../suite/fixtures.js';
import { checks, clocked, fresh, freshLog, needing, property, type ProviderCheck } from '../suite/harness.js';
import { expectSameAs, pair } from '../suite/reference.js';

export const extraChecks: ProviderCheck[] = checks([], {
  'X1 delete returns the tombstone: same content, deleted, syncVersion + 1, a later HLC (skills: version + 1)': fresh(async (p) => {
    const session = await p.sessions.create({ title: 't', model: 'm' });
    const sessionTombstone = await p.sessions.delete(session.id);
    expect(sessionTombstone).toMatchObject({ id: session.id, title: 't', model: 'm', createdAt: session.createdAt, deleted: true, syncVersion: 2 });
    expect(sessionTombstone.originInstanceId).toBe(session.originInstanceId);
    expect(compareHlc(sessionTombstone.updatedHlc, session.updatedHlc)).toBeGreaterThan(0);

    const skill = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship', tags: ['ops'], check: 'true' });
    const skillTombstone = await p.skills.delete('deploy');
    const { updatedHlc: _a, updatedAt: _b, syncVersion: _c, version: _d, deleted: _e, ...content } = skill;
    expect(skillTombstone).toMatchObject({ ...content, deleted: true, syncVersion: 2, version: 2 });
    expect(compareHlc(skillTombstone.updatedHlc, skill.updatedHlc)).toBeGreaterThan(0);

    const item = await p.memory.write({ kind: 'fact', content: 'c', source: 'chat', scope: ['project:p'] });
    const itemTombstone = await p.memory.delete(item.id);
    expect(itemTombstone).toEqual({ ...item, deleted: true, syncVersion: 2, updatedHlc: itemTombstone.updatedHlc, updatedAt: itemTombstone.updatedAt });
    expect(itemTombstone.updatedAt >= item.updatedAt).toBe(true);
    expect(compareHlc(itemTombstone.updatedHlc, item.updatedHlc)).toBeGreaterThan(0);
  }),
  'X2 turns pages with afterSeq and limit': fresh(async (p) => {
    const s = await p.sessions.create({});
    for (let i = 1; i <= 5; i += 1) await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: `t${i}` });
    const seqs = async (options: { afterSeq?: number; limit?: number }) => (await p.sessions.turns(s.id, options)).map((t) => t.seq);
    expect(await seqs({})).toEqual([1, 2, 3, 4, 5]);
    expect(await seqs({ afterSeq: 2 })).toEqual([3, 4, 5]);
    expect(await seqs({ limit: 2 })).toEqual([1, 2]);
    expect([await seqs({ afterSeq: 2, limit: 2 }), await seqs({ afterSeq: 4, limit: 10 }), await seqs({ afterSeq: 5 })]).toEqual([[3, 4], [5], []]);
    expect(await seqs({ limit: 0 })).toEqual([1, 2, 3, 4, 5]);
  }),
  'X3 sessions.list pages with limit and offset, oldest first': fresh(async (p) => {
    const all = [];
    for (let i = 0; i < 5; i += 1) all.push((await p.sessions.create({ title: `s${i}` })).id);
    const page = async (options: { limit?: number; offset?: number }) => ids(await p.sessions.list(options));
    expect([await page({}), await page({ limit: 2 }), await page({ offset: 2, limit: 2 })]).toEqual([all, all.slice(0, 2), all.slice(2, 4)]);
    expect([await page({ offset: 4 }), await page({ offset: 5 }), await page({ limit: 0 })]).toEqual([all.slice(4), [], all]);
  }),
  'X4 a resurrecting upsert keeps id, createdAt, originInstanceId and the fields it leaves out': fresh(async (p) => {
    const original = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'v1', tags: ['ops'], check: 'true', uses: 4, wins: 3 });
    await p.skills.delete(original.id);
    const back = await p.skills.upsert({ slug: 'deploy', body: 'v2' });
    const { id, createdAt, originInstanceId } = original;
    expect(back).toMatchObject({ id, createdAt, originInstanceId, name: 'Deploy', body: 'v2', tags: ['ops'], check: 'true', uses: 4, wins: 3 });
    expect(back).toMatchObject({ deleted: false, version: 3, syncVersion: 3 });
    expect(await p.skills.list()).toEqual([back]);
  }),
  'X5 recordOutcome bumps uses, wins and the envelope but not the content version; a missing skill is NotFoundError': fresh(async (p) => {
    const s = await p.skills.upsert({ slug: 'deploy', body: 'ship' });
    const won = await p.skills.recordOutcome('deploy', { success: true });
    expect(won).toMatchObject({ id: s.id, uses: 1, wins: 1, version: 1, syncVersion: 2, body: 'ship' });
    expect(compareHlc(won.updatedHlc, s.updatedHlc)).toBeGreaterThan(0);
    const lost = await p.skills.recordOutcome(s.id, { success: false });
    expect(lost).toMatchObject({ uses: 2, wins: 1, version: 1, syncVersion: 3 });
    expect(await p.skills.get('deploy')).toEqual(lost);
    await expectError(() => p.skills.recordOutcome('missing', { success: true }), NotFoundError);
    await p.skills.delete('deploy');
    await expectError(() => p.skills.recordOutcome('deploy', { success: true }), NotFoundError);
    await expectError(() => p.skills.recordOutcome(s.id, { success: true }), NotFoundError);
  }),
  'X6 memory.get returns a live item; a tombstone or an unknown id is NotFoundError': fresh(async (p) => {
    const item = await p.memory.write({ content: 'c', kind: 'note', source: 'tool' });
    expect(await p.memory.get(item.id)).toEqual(item);
    await p.memory.delete(item.id);
    await expectError(() => p.memory.get(item.id), NotFoundError);
    await expectError(() => p.memory.get('unknown'), NotFoundError);
  }),
  'X7 recall filters by kinds and caps at limit, newest first': fresh(async (p) => {
    const a = await p.memory.write({ kind: 'fact', content: 'alpha one' });
    const b = await p.memory.write({ kind: 'preference', content: 'alpha two' });
    const c = await p.memory.write({ kind: 'fact', content: 'beta three' });
    const d = await p.memory.write({ kind: 'note', content: 'alpha four' });
    expect(a.kind).toBe('fact');
    expect(ids(await p.memory.recall({ kinds: ['fact'] }))).toEqual([c.id, a.id]);
    expect(ids(await p.memory.recall({ kinds: ['fact', 'preference'] }))).toEqual([c.id, b.id, a.id]);
    expect([ids(await p.memory.recall({ kinds: ['fact'], query: 'alpha' })), ids(await p.memory.recall({ kinds: ['missing'] }))]).toEqual([[a.id], []]);
    expect(ids(await p.memory.recall({ limit: 2 }))).toEqual([d.id, c.id]);
    expect(ids(await p.memory.recall({ query: 'alpha', limit: 2 }))).toEqual([d.id, b.id]);
    expect(ids(await p.memory.recall({ limit: 1 }))).toEqual([d.id]);
  }),
  'X8 skills.search matches slug, name, body and tags, every query token or with match any one of them': fresh(async (p) => {
    const a = await p.skills.upsert({ slug: 'alpha-deploy', name: 'Release Train', body: 'push containers', tags: ['Kubernetes', 'ops'] });
    await p.skills.upsert({ slug: 'beta', name: 'Other', body: 'nothing here' });
    for (const query of ['alpha', 'deploy', 'train', 'RELEASE', 'containers', 'kube', 'OPS', 'alpha train push kubernetes ops']) {
      expect(ids(await p.skills.search(query, 0)), query).toEqual([a.id]);
    }
    expect([ids(await p.skills.search('alpha other', 0)), ids(await p.skills.search('alpha other', { match: 'all' }))]).toEqual([[], []]);
    const other = await p.skills.get('beta');
    expect(ids(await p.skills.search('alpha other', { match: 'any' }))).toEqual([a.id, other.id]);
    expect(ids(await p.skills.search('other kube', { match: 'any', order: 'winRate' }))).toEqual([a.id, other.id]);
  }),
  'X9 instants are canonical (fixed-width UTC with milliseconds, input normalised); tags are always arrays': fresh(async (p) => {
    const s = await p.sessions.create({ createdAt: '2026-03-01T01:00:00+01:00' });
    expect(s).toMatchObject({ createdAt: '2026-03-01T00:00:00.000Z', updatedAt: '2026-03-01T00:00:00.000Z' });
    const t = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'c', createdAt: '2026-03-02T00:00:00.5Z' });
    expect(t.createdAt).toBe('2026-03-02T00:00:00.500Z');
    expect((await p.sessions.create({})).createdAt).toMatch(INSTANT);
    const k = await p.skills.upsert({ slug: 'bare' });
    expect(k).toMatchObject({ tags: [], name: '', body: '', check: '', scope: GLOBAL, uses: 0, wins: 0 });
    expect([k.createdAt, k.updatedAt]).toEqual([expect.stringMatching(INSTANT), expect.stringMatching(INSTANT)]);
    expect((await p.skills.get('bare')).tags).toEqual([]);
    expect((await p.memory.write({ content: 'c', createdAt: '2026-03-03T00:00:00Z' })).createdAt).toBe('2026-03-03T00:00:00.000Z');
  }),
  'X10 with a manual clock: createdAt is the clock, ids are increasing UUIDv7 of that time, the HLC is { wall, counter }': clocked(async (p, clock) => {
    const created = [];
    for (let i = 0; i < 5; i += 1) created.push(await p.sessions.create({ title: `s${i}` }));
    for (const [i, s] of created.entries()) {
      expect(s).toMatchObject({ createdAt: new Date(T0).toISOString(), updatedHlc: { wall: T0, counter: i } });
      expect([isUuidV7(s.id), uuidV7Time(s.id)], s.id).toEqual([true, T0]);
    }
    expect([ids(created), new Set(ids(created)).size]).toEqual([[...ids(created)].sort(), 5]);
    clock.advance(5);
    expect((await p.memory.write({ content: 'c' })).updatedHlc).toEqual({ wall: T0 + 5, counter: 0 });
    // The physical clock goes back: the HLC keeps counting from where it was.
    clock.advance(-1000);
    expect(await p.memory.write({ content: 'd' })).toMatchObject({ updatedHlc: { wall: T0 + 5, counter: 1 }, createdAt: new Date(T0 - 995).toISOString() });
  }),
  'X11 a replayed provider continues the same stream on new writes': freshLog(async (p, env) => {
    const s = await p.sessions.create({ title: 't' });
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'one' });
    const head = await p.log.head(STATE_STREAM);
    const replayed = await env.replay(p.log);
    const turn = await replayed.sessions.appendTurn({ sessionId: s.id, role: 'assistant', content: 'two' });
    expect([turn.seq, await p.log.head(STATE_STREAM)]).toEqual([2, head + 1]);
    const [last] = await p.log.read({ stream: STATE_STREAM, afterSeq: head });
    expect([last?.seq, decodeStateEvent(last!).payload, (await replayed.snapshot()).seq]).toEqual([head + 1, { turn }, head + 1]);
  }),
  'X14 a replacement by another instance keeps originInstanceId and names itself lastWriterId': needing(['deterministic'], async (env) => {
    if (!env.caps.durable && !env.caps.eventSourced) env.skip('durable or eventSourced');
    const origin = 'instance-origin';
    let p = await env.open({ instanceId: origin });
    const session = await p.sessions.create({ title: 't' });
    await p.skills.upsert({ slug: 'deploy', body: 'v1' });
    const items = [(await p.memory.write({ content: 'one' })).id, (await p.memory.write({ content: 'two' })).id];

    const replaceAs = async (q: Provider, writer: string, item: string): Promise<void> => {
      const turn = await q.sessions.appendTurn({ sessionId: session.id, role: 'user', content: writer });
      expect(turn, writer).toMatchObject({ originInstanceId: writer, lastWriterId: writer });
      expect(await q.sessions.get(session.id), writer).toMatchObject({ originInstanceId: origin, lastWriterId: writer });
      expect(await q.skills.upsert({ slug: 'deploy', body: writer }), writer).toMatchObject({ originInstanceId: origin, lastWriterId: writer });
      expect(await q.skills.recordOutcome('deploy', { success: true }), writer).toMatchObject({ originInstanceId: origin, lastWriterId: writer });
      expect(await q.memory.delete(item), writer).toMatchObject({ originInstanceId: origin, lastWriterId: writer, deleted: true });
      expect(await q.memory.write({ content: writer }), writer).toMatchObject({ originInstanceId: writer, lastWriterId: writer });
    };

    if (env.caps.durable) {
      p = await env.reopen(p, { instanceId: 'instance-reopened' });
      await replaceAs(p, 'instance-reopened', items[0]!);
    }
    if (env.caps.eventSourced) {
      const replayed = await env.replay(env.eventSourced(p).log, { instanceId: 'instance-replayed' });
      expect(replayed.instanceId).toBe('instance-replayed');
      await replaceAs(replayed, 'instance-replayed', items[1]!);
    }
  }),
  'X15 relevance order ranks by term frequency and, with match any, by how many query tokens match': clocked(async (p, clock) => {
    // Equal lengths, so only the term frequency can separate them; the better one is written first,
    // so a ranking that ignored frequencies would put it second (newest first breaks ties).
    const often = await p.memory.write({ content: 'coffee coffee coffee tea' });
    clock.advance(1);
    const once = await p.memory.write({ content: 'coffee milk sugar tea' });
    clock.advance(1);
    const teaOnly = await p.memory.write({ content: 'green tea please' });
    clock.advance(1);
    await p.memory.write({ content: 'unrelated words entirely' });
    const ranked = await p.memory.recall({ query: 'coffee', order: 'relevance' });
    expect(ids(ranked)).toEqual([often.id, once.id]);
    expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score);
    for (const hit of ranked) expect([hit.score > 0, hit.score <= 1], `score ${hit.score}`).toEqual([true, true]);
    const any = await p.memory.recall({ query: 'coffee sugar', order: 'relevance', match: 'any' });
    expect(ids(any)).toEqual([once.id, often.id]);
    expect(ids(await p.memory.recall({ query: 'sugar tea', match: 'any' })).sort()).toEqual([often.id, once.id, teaOnly.id].sort());
    expect(ids(await p.memory.recall({ query: 'sugar tea' }))).toEqual([once.id]);
  }),
  'X18 getAny reads a live record or its tombstone, and NotFoundError only for a record that never existed': fresh(async (p) => {
    const session = await p.sessions.create({ title: 'kept' });
    const skill = await p.skills.upsert({ slug: 'deploy', body: 'ship it', scope: ['web'] });
    const item = await p.memory.write({ content: 'a fact' });
    expect([await p.sessions.getAny(session.id), await p.skills.getAny(skill.id), await p.memory.getAny(item.id)]).toEqual([session, skill, item]);
    const gone = [await p.sessions.delete(session.id), await p.skills.delete('deploy', { scope: ['web'] }), await p.memory.delete(item.id)];
    const tombstones = [await p.sessions.getAny(session.id), await p.skills.getAny(skill.id), await p.skills.getAny('deploy', { scope: ['web'] })];
    expect([...tombstones, await p.memory.getAny(item.id)]).toEqual([gone[0], gone[1], gone[1], gone[2]]);
    await expectError(() => p.sessions.getAny('never'), NotFoundError);
    await expectError(() => p.skills.getAny('never'), NotFoundError);
    await expectError(() => p.memory.getAny('never'), NotFoundError);
  }),
  'X19 memory.getByKey reads the live, unexpired holder of a key in exactly that scope': clocked(async (p, clock) => {
    const item = await p.memory.write({ content: 'dark mode', key: 'theme', scope: ['users', 'u1'] });
    expect(await p.memory.getByKey('theme', { scope: ['users', 'u1'] })).toEqual(item);
    const updated = await p.memory.write({ content: 'light mode', key: 'theme', scope: ['users', 'u1'] });
    expect(await p.memory.getByKey('theme', { scope: ['users', 'u1'] })).toEqual(updated);
    await expectError(() => p.memory.getByKey('theme', { scope: ['users'] }), NotFoundError);
    await expectError(() => p.memory.getByKey('theme', { scope: ['users', 'u1', 'x'] }), NotFoundError);
    await expectError(() => p.memory.getByKey('other', { scope: ['users', 'u1'] }), NotFoundError);
    await expectError(() => p.memory.getByKey('', { scope: ['users', 'u1'] }), ValidationError);
    await p.memory.delete(item.id);
    await expectError(() => p.memory.getByKey('theme', { scope: ['users', 'u1'] }), NotFoundError);
    const expiring = await p.memory.write({ content: 'soon gone', key: 'k', expiresAt: new Date(T0 + 1000).toISOString() });
    expect(await p.memory.getByKey('k', { scope: [] })).toEqual(expiring);
    clock.advance(1000);
    await expectError(() => p.memory.getByKey('k', { scope: [] }), NotFoundError);
  }),
  'X12 random operation sequences give the same outcomes, events and snapshot bytes as the in-memory reference': needing(
    ['deterministic', 'injectableClock'],
    (env) =>
      property(env, arbOperations({ maxLength: 25 }), async (operations) => {
        const { subject, reference, subjectClock, referenceClock } = await pair(env);
        const outcomes = await runOperations(subject, operations, { clock: subjectClock });
        expect(outcomes).toEqual(await runOperations(reference, operations, { clock: referenceClock }));
        await expectSameAs(subject, reference);
      }),
  ),
  'X13 skills.search and memory.recall agree with the reference lexical matcher on generated texts and queries, with match all and any': (env) => {
    const inputs = fc.tuple(fc.array(arbText(), { minLength: 1, maxLength: 6 }), fc.array(arbQuery(), { minLength: 1, maxLength: 6 }));
    return property(env, inputs, async ([texts, queries]) => {
      const p = await env.open();
      const skills: Skill[] = [];
      const items: MemoryItem[] = [];
      for (const [i, text] of texts.entries()) {
        skills.push(await p.skills.upsert({ slug: `t${i}`, body: text }));
        items.push(await p.memory.write({ content: text }));
      }
      for (const query of queries) {
        for (const match of ['all', 'any'] as const) {
          const label = `${JSON.stringify(query)} (match ${match})`;
          const wantSkills = skills.filter((s) => matchesText(query, skillSearchText(s), match)).sort(compareSkillsBySlug);
          expect(ids(await p.skills.search(query, { match })), `skills.search ${label}`).toEqual(ids(wantSkills));
          const wantItems = items.filter((m) => matchesText(query, m.content, match)).sort(compareMemoryNewestFirst);
          expect(ids(await p.memory.recall({ query, match, limit: LIMITS.pageSize })), `memory.recall ${label}`).toEqual(ids(wantItems));
        }
      }
    });
  },
});
