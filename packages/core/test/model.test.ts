/**
 * Model-based test: random sequences of store operations run against the
 * in-memory provider (imported through the package's exports, as a user
 * would) and against a deliberately simple model. After every sequence,
 * replay equals live and snapshot-plus-suffix replay equals a full replay.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConflictError, createInMemoryProvider, encodeSnapshot, hmacCodec, ManualClock, NotFoundError, replay, seededEntropy } from '@agentstate/core';
import type { EventSourcedProvider } from '@agentstate/core';

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'Éclair', 'deploy', 'deployment'];
const SLUGS = ['s1', 's2', 's3'];
const SCOPES = [[], ['project:p'], ['project:p', 'workspace:w']];

type Op =
  | { op: 'createSession' }
  | { op: 'appendTurn'; session: number; content: string }
  | { op: 'deleteSession'; session: number }
  | { op: 'upsertSkill'; slug: string; scope: number; body: string | undefined }
  | { op: 'recordOutcome'; slug: string; scope: number; success: boolean }
  | { op: 'deleteSkill'; slug: string; scope: number }
  | { op: 'writeMemory'; content: string; scope: number }
  | { op: 'deleteMemory'; item: number }
  | { op: 'saveSnapshot' }
  | { op: 'tick'; ms: number };

const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ op: 'createSession' as const }),
  fc.record({ op: fc.constant('appendTurn' as const), session: fc.nat(3), content: text }),
  fc.record({ op: fc.constant('deleteSession' as const), session: fc.nat(3) }),
  fc.record({ op: fc.constant('upsertSkill' as const), slug: fc.constantFrom(...SLUGS), scope: fc.nat(2), body: fc.option(text, { nil: undefined }) }),
  fc.record({ op: fc.constant('recordOutcome' as const), slug: fc.constantFrom(...SLUGS), scope: fc.nat(2), success: fc.boolean() }),
  fc.record({ op: fc.constant('deleteSkill' as const), slug: fc.constantFrom(...SLUGS), scope: fc.nat(2) }),
  fc.record({ op: fc.constant('writeMemory' as const), content: text, scope: fc.nat(2) }),
  fc.record({ op: fc.constant('deleteMemory' as const), item: fc.nat(8) }),
  fc.constant({ op: 'saveSnapshot' as const }),
  fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: -3, max: 5 }) }),
);

interface ModelSkill {
  id: string;
  body: string;
  version: number;
  uses: number;
  wins: number;
  deleted: boolean;
}

class Model {
  sessions: { id: string; createdAt: string; deleted: boolean; turns: string[] }[] = [];
  skills = new Map<string, ModelSkill>();
  memory: { id: string; content: string; createdAt: string; deleted: boolean }[] = [];
  events = 0;
}

const key = (slug: string, scope: number) => `${scope}/${slug}`;

async function run(p: EventSourcedProvider, m: Model, o: Op, clock: ManualClock): Promise<void> {
  switch (o.op) {
    case 'tick':
      clock.advance(o.ms);
      return;
    case 'saveSnapshot':
      await p.saveSnapshot();
      return;
    case 'createSession': {
      const s = await p.sessions.create({ title: 'x' });
      m.sessions.push({ id: s.id, createdAt: s.createdAt, deleted: false, turns: [] });
      m.events += 1;
      return;
    }
    case 'appendTurn': {
      const s = m.sessions[o.session];
      if (!s || s.deleted) {
        await expect(p.sessions.appendTurn({ sessionId: s?.id ?? 'missing', role: 'user', content: o.content })).rejects.toBeInstanceOf(NotFoundError);
        return;
      }
      const turn = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: o.content });
      s.turns.push(o.content);
      expect(turn.seq).toBe(s.turns.length);
      m.events += 1;
      return;
    }
    case 'deleteSession': {
      const s = m.sessions[o.session];
      if (!s || s.deleted) {
        await expect(p.sessions.delete(s?.id ?? 'missing')).rejects.toBeInstanceOf(NotFoundError);
        return;
      }
      await p.sessions.delete(s.id);
      s.deleted = true;
      m.events += 1;
      return;
    }
    case 'upsertSkill': {
      const k = key(o.slug, o.scope);
      const before = m.skills.get(k);
      const skill = await p.skills.upsert({ slug: o.slug, scope: SCOPES[o.scope], body: o.body });
      const next: ModelSkill = before
        ? { ...before, body: o.body ?? before.body, version: before.version + 1, deleted: false }
        : { id: skill.id, body: o.body ?? '', version: 1, uses: 0, wins: 0, deleted: false };
      m.skills.set(k, next);
      expect({ id: skill.id, body: skill.body, version: skill.version, uses: skill.uses, wins: skill.wins, deleted: skill.deleted }).toEqual(next);
      m.events += 1;
      return;
    }
    case 'recordOutcome': {
      const s = m.skills.get(key(o.slug, o.scope));
      if (!s || s.deleted) {
        // Resolution may still find the slug elsewhere along the chain; only check the exact-scope case.
        return;
      }
      const got = await p.skills.recordOutcome(s.id, { success: o.success });
      s.uses += 1;
      s.wins += o.success ? 1 : 0;
      expect([got.uses, got.wins, got.version]).toEqual([s.uses, s.wins, s.version]);
      m.events += 1;
      return;
    }
    case 'deleteSkill': {
      const s = m.skills.get(key(o.slug, o.scope));
      if (!s || s.deleted) return;
      const tomb = await p.skills.delete(s.id);
      s.deleted = true;
      s.version += 1;
      expect([tomb.deleted, tomb.version]).toEqual([true, s.version]);
      m.events += 1;
      return;
    }
    case 'writeMemory': {
      const item = await p.memory.write({ content: o.content, scope: SCOPES[o.scope] });
      m.memory.push({ id: item.id, content: o.content, createdAt: item.createdAt, deleted: false });
      m.events += 1;
      return;
    }
    case 'deleteMemory': {
      const item = m.memory[o.item];
      if (!item || item.deleted) {
        await expect(p.memory.delete(item?.id ?? 'missing')).rejects.toBeInstanceOf(NotFoundError);
        return;
      }
      await p.memory.delete(item.id);
      item.deleted = true;
      m.events += 1;
      return;
    }
  }
}

async function checkAgainstModel(p: EventSourcedProvider, m: Model): Promise<void> {
  const oldestFirst = (a: { id: string; createdAt: string }, b: { id: string; createdAt: string }) =>
    a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1;
  const liveSessions = m.sessions.filter((s) => !s.deleted).sort(oldestFirst);
  expect((await p.sessions.list()).map((s) => s.id)).toEqual(liveSessions.map((s) => s.id));
  for (const s of m.sessions.filter((x) => !x.deleted)) {
    expect((await p.sessions.turns(s.id)).map((t) => t.content)).toEqual(s.turns);
  }
  for (const s of m.skills.values()) {
    if (s.deleted) await expect(p.skills.get(s.id)).rejects.toBeInstanceOf(NotFoundError);
    else expect((await p.skills.get(s.id)).body).toBe(s.body);
  }
  const liveIds = (scope: number) =>
    [...m.skills.entries()]
      .filter(([k, s]) => !s.deleted && k.startsWith(`${scope}/`))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, s]) => s.id);
  for (const scope of [0, 1, 2]) {
    expect((await p.skills.list({ scope: SCOPES[scope] })).map((s) => s.id)).toEqual(liveIds(scope));
  }
  const searched = (await p.skills.search('', 0)).map((s) => s.id).sort();
  expect(searched).toEqual([0, 1, 2].flatMap(liveIds).sort());
  const live = m.memory
    .filter((x) => !x.deleted)
    .sort(oldestFirst)
    .reverse()
    .map((x) => x.id);
  expect((await p.memory.recall({ limit: 10_000 })).map((h) => h.id)).toEqual(live);
  expect(await p.log.head('state')).toBe(m.events);
}

describe('the in-memory provider against a model', () => {
  it('agrees with the model, and replays to the same state from scratch and from snapshots', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.array(opArb, { minLength: 5, maxLength: 80, size: 'max' }), async (seed, ops) => {
        const clock = new ManualClock(1_800_000_000_000);
        const codec = hmacCodec('model-test');
        const p = createInMemoryProvider({ clock, entropy: seededEntropy(seed), snapshotCodec: codec });
        const m = new Model();
        for (const o of ops) await run(p, m, o, clock);
        await checkAgainstModel(p, m);
        const live = encodeSnapshot(await p.snapshot());
        const full = await replay(p.log, { fromScratch: true, snapshotCodec: codec });
        const fromSnapshot = await replay(p.log, { snapshotCodec: codec });
        expect(encodeSnapshot(await full.snapshot())).toBe(live);
        expect(encodeSnapshot(await fromSnapshot.snapshot())).toBe(live);
        await checkAgainstModel(fromSnapshot, m);
        // Another instance continues the log: replacements keep their origin.
        const other = await replay(p.log, { snapshotCodec: codec, instanceId: 'other-instance', clock });
        const sessions = await other.sessions.list();
        if (sessions[0]) {
          const turn = await other.sessions.appendTurn({ sessionId: sessions[0].id, role: 'tool', content: 'from elsewhere' });
          const bumped = await other.sessions.get(sessions[0].id);
          expect([bumped.originInstanceId, bumped.lastWriterId, turn.originInstanceId]).toEqual([p.instanceId, 'other-instance', 'other-instance']);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a caller-supplied id that is taken, appending nothing', async () => {
    const p = createInMemoryProvider();
    const s = await p.sessions.create({ id: 'fixed' });
    await expect(p.sessions.create({ id: s.id })).rejects.toBeInstanceOf(ConflictError);
    expect(await p.log.head('state')).toBe(1);
  });
});
