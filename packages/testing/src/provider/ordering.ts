/** B33 ordering tie-breaks, B35 scopes, B36 dead sessions, B39 the HLC, B41 the slug alphabet, B42 a slug without a scope, W31 a session another provider changed (docs/contract.md §4, §7, §9). */
import {
  compareHlc,
  encodeSnapshot,
  type Hlc,
  LIMITS,
  ManualClock,
  NotFoundError,
  type Provider,
  SkillScopeRequiredError,
  SLUG_RULE,
  STATE_STREAM,
  ValidationError,
} from '@agentstate/core';
import { maxHlc } from '@agentstate/core/backend';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { HOUR, ids, T0 } from '../suite/fixtures.js';
import { checks, clocked, fresh, needing, type ProviderCheck } from '../suite/harness.js';
import { observe } from './validation.js';

/** Slugs outside the alphabet, each for a different reason. */
const REFUSED = ['Bad Slug!', 'a b', 'x\t', '\u{1F600}', 's'.repeat(LIMITS.slug + 1), ...'../.. a/b Deploy -x x- .x x. a--b a..b a-_b café'.split(' ')];

/** Slugs inside it, at its edges. */
const ACCEPTED = ['a', '0', 'fix-esm', 'db.migrate_v2', 'a-b_c.d', '2026-01-01', 's'.repeat(LIMITS.slug)];

type Stamped = { updatedHlc: Hlc };

export const orderingChecks: ProviderCheck[] = checks([], {
  'B33 records created in the same millisecond list in creation order; recall of equal createdAt is newest id first': clocked(async (p, _clock) => {
    const at = new Date(T0).toISOString();

    const sessions = [];
    for (const title of ['one', 'two', 'three', 'four']) sessions.push(await p.sessions.create({ title }));
    for (const s of sessions) expect(s.createdAt).toBe(at);
    expect(ids(await p.sessions.list())).toEqual(ids(sessions));

    for (const content of ['a', 'b', 'c']) await p.sessions.appendTurn({ sessionId: sessions[0]!.id, role: 'user', content });
    expect((await p.sessions.turns(sessions[0]!.id)).map((t) => [t.seq, t.content])).toEqual(['a', 'b', 'c'].map((c, i) => [i + 1, c]));

    const skills = [];
    for (const project of ['c', 'a', 'b']) skills.push(await p.skills.upsert({ slug: 'same', body: project, scope: [`project:${project}`] }));
    // No global 'same': a get without a scope names no skill, and lists the scopes in scope order.
    expect((await expectError(() => p.skills.get('same'), SkillScopeRequiredError)).scopes).toEqual([['project:a'], ['project:b'], ['project:c']]);
    // Equal slugs and createdAt fall back to id order, which a skill's scope gives, not its creation.
    expect(ids(await p.skills.search('same', 0))).toEqual(ids(skills).sort());

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
      expect([await p.skills.list(), await p.skills.list({})]).toEqual([[global], [global]]);
      expect([await p.skills.list({ scope: ['project:p'] }), await p.skills.list({ scope: ['project:p', 'workspace:w'] })]).toEqual([[inP], [inPW]]);
      expect([await p.skills.list({ scope: ['instance:i'] }), await p.skills.list({ scope: ['workspace:w'] })]).toEqual([[inI], []]);
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
      expect([(await p.skills.get('c', { scope: ['instance:j', 'project:p'] })).id, (await p.skills.get('c', {})).id]).toEqual([c.id, c.id]);
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
    expect(early).toMatchObject({ createdAt: '2026-03-02T00:00:00.000Z', seq: 2 });
    expect((await p.sessions.get(s.id)).updatedAt).toBe('2026-03-05T00:00:00.000Z');

    await expectError(() => p.sessions.turns('unknown'), NotFoundError);
    expect((await p.sessions.delete(s.id)).updatedAt >= '2026-03-05T00:00:00.000Z').toBe(true);
    await expectError(() => p.sessions.turns(s.id), NotFoundError);
    await expectError(() => p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'after' }), NotFoundError);
  }),
  'B41 a slug outside the slug alphabet is a ValidationError on slug stating the rule, and writes nothing': fresh(async (p, env) => {
    await p.skills.upsert({ slug: 'deploy', body: 'ship it' });
    const before = await observe(env, p);
    for (const slug of REFUSED) {
      const error = await expectError(() => p.skills.upsert({ slug, body: 'b' }), ValidationError, JSON.stringify(slug));
      expect(error.field, JSON.stringify(slug)).toBe('slug');
      if (slug.length <= LIMITS.slug) expect(error.message, JSON.stringify(slug)).toContain(SLUG_RULE);
      expect(await observe(env, p), `${JSON.stringify(slug)}: state changed`).toBe(before);
    }
    for (const slug of ACCEPTED) expect((await p.skills.upsert({ slug, body: 'b' })).slug).toBe(slug);
  }),
  'B42 a slug without a scope names the global skill only; live only in other scopes it is refused naming them, writing nothing': fresh(async (p, env) => {
    const global = await p.skills.upsert({ slug: 'deploy', body: 'global' });
    const inP = await p.skills.upsert({ slug: 'deploy', body: 'p', scope: ['project:p'] });
    // With the global skill live, no scope means it, and only it.
    expect([(await p.skills.recordOutcome('deploy', { success: true })).id, (await p.skills.get('deploy')).id]).toEqual([global.id, global.id]);
    expect([(await p.skills.delete('deploy')).id, await p.skills.get('deploy', { scope: ['project:p'] })]).toEqual([global.id, inP]);
    // Gone from the global scope: every unscoped call refuses, naming the scopes, and writes nothing.
    const inQ = await p.skills.upsert({ slug: 'deploy', body: 'q', scope: ['project:q'] });
    const before = await observe(env, p);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['delete', () => p.skills.delete('deploy')],
      ['recordOutcome', () => p.skills.recordOutcome('deploy', { success: false })],
      ['get', () => p.skills.get('deploy')],
    ];
    for (const [label, call] of calls) {
      const error = await expectError(call, SkillScopeRequiredError, label);
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error.scopes, label).toEqual([inP.scope, inQ.scope]);
      expect(error.message, label).toMatch(/project:p, project:q/);
      expect(await observe(env, p), `${label}: state changed`).toBe(before);
    }
    expect([await p.skills.get('deploy', { scope: ['project:p'] }), await p.skills.get('deploy', { scope: ['project:q'] })]).toEqual([inP, inQ]);
    // A scope, or an id, still names the others; a slug live nowhere is a plain NotFoundError.
    expect((await p.skills.recordOutcome('deploy', { success: true, scope: ['project:p'] })).uses).toBe(1);
    expect((await p.skills.delete(inQ.id)).deleted).toBe(true);
    expect(await expectError(() => p.skills.delete('nothing'), NotFoundError)).not.toBeInstanceOf(SkillScopeRequiredError);
  }),
  'B39 HLC across restarts and replays: with the clock set back, every replacement carries a later updatedHlc': needing(['injectableClock'], async (env) => {
    const seen: Hlc[] = [];
    const note = <T extends Stamped>(record: T): T => {
      seen.push(record.updatedHlc);
      return record;
    };
    const later = ({ updatedHlc: a }: Stamped, { updatedHlc: b }: Stamped, label: string): void => {
      expect(compareHlc(a, b), `${label}: ${JSON.stringify(a)} after ${JSON.stringify(b)}`).toBeGreaterThan(0);
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
  }),
  'W31 a provider appending again to a session whose last turn it appended follows what another provider of the storage did there since: a retitle on a clock ahead, a turn, a trim, a deletion':
    needing(['injectableClock', 'sharedStorage', 'eventSourced'], async (env) => {
      const behind = env.eventSourced(await env.open({ clock: new ManualClock(T0) }));
      const ahead = env.eventSourced(await env.openShared(behind, { clock: new ManualClock(T0 + HOUR) }));
      const session = await behind.sessions.create({ title: 'shared' });
      const append = (p: Provider, content: string) => p.sessions.appendTurn({ sessionId: session.id, role: 'user', content });
      await append(behind, 'one');
      await append(behind, 'two');
      // Retitled on a clock an hour ahead: the next turn's clock passes the session's, which `behind` has not seen.
      const retitled = await ahead.sessions.update(session.id, { title: 'retitled' });
      const three = await append(behind, 'three');
      expect(compareHlc(three.updatedHlc, retitled.updatedHlc), 'a turn after a retitle ahead').toBeGreaterThan(0);
      expect((await behind.sessions.get(session.id)).title).toBe('retitled');
      await append(ahead, 'four');
      expect((await append(behind, 'five')).seq, 'a turn after the other provider’s').toBe(5);
      await ahead.sessions.removeLastTurn(session.id);
      expect((await append(behind, 'six')).seq, 'a turn after a trim').toBe(6);
      expect((await behind.sessions.turns(session.id)).map((turn) => [turn.seq, turn.content])).toEqual([
        [1, 'one'],
        [2, 'two'],
        [3, 'three'],
        [4, 'four'],
        [6, 'six'],
      ]);
      await ahead.sessions.delete(session.id);
      const head = await behind.log.head(STATE_STREAM);
      await expectError(() => append(behind, 'seven'), NotFoundError, 'a turn after a deletion');
      expect(await behind.log.head(STATE_STREAM)).toBe(head);
      // The tables are the fold of the log.
      expect(encodeSnapshot(await behind.snapshot())).toBe(encodeSnapshot(await (await env.replay(behind.log, { fromScratch: true })).snapshot()));
    }),
});
