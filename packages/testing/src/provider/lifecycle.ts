/** V1–V8 time travel and the diff of two points, R1–R6 retention (docs/contract.md §7, §11). */
import type { Provider, Snapshot, StateDiff } from '@agentstate/core';
import {
  canonicalJson,
  encodeSnapshot,
  type EventSourcedProvider,
  formatInstant,
  instantToMs,
  ManualClock,
  NotFoundError,
  ReadOnlyViewError,
  RETENTION_STREAM,
  seededEntropy,
  STATE_STREAM,
  ValidationError,
} from '@agentstate/core';
import { compareStrings } from '@agentstate/core/backend';
import fc from 'fast-check';
import { expect } from 'vitest';
import { arbOperations, runOperations } from '../arbitraries/operations.js';
import { expectError } from '../suite/expect-error.js';
import { DAY, HOUR, populate, readModel, T0 } from '../suite/fixtures.js';
import { type CheckEnv, checks, freshLog, needing, property, type ProviderCheck } from '../suite/harness.js';
import { cutAt, expectViewIsReplay, replayedAt } from '../suite/log-cut.js';
import { chunkRowsOf } from '../suite/snapshot-rows.js';

/**
 * The diff of two whole projections, written apart from core's as the reference: per kind, the live
 * records by id, a change being a different canonical JSON; each list in id order.
 */
function wholeDiff(before: Snapshot, after: Snapshot): Omit<StateDiff, 'from' | 'to'> {
  const kind = <T extends { id: string; deleted?: boolean }>(was: readonly T[], is: readonly T[]) => {
    const live = (list: readonly T[]) => new Map(list.filter((r) => !r.deleted).map((r) => [r.id, r]));
    const [a, b] = [live(was), live(is)];
    const byId = (x: T, y: T) => compareStrings(x.id, y.id);
    const changed = [...b.values()].filter((r) => a.has(r.id) && canonicalJson(a.get(r.id)) !== canonicalJson(r)).sort(byId);
    return {
      created: [...b.values()].filter((r) => !a.has(r.id)).sort(byId),
      changed: changed.map((r) => ({ before: a.get(r.id)!, after: r })),
      deleted: [...a.values()].filter((r) => !b.has(r.id)).sort(byId),
    };
  };
  const kinds = ['sessions', 'turns', 'skills', 'memory', 'checkpoints'] as const;
  return Object.fromEntries(kinds.map((k) => [k, kind<{ id: string; deleted?: boolean }>(before[k], after[k])])) as Omit<StateDiff, 'from' | 'to'>;
}

/** A body (needing `injectableClock`) handed a fresh deterministic event-sourced provider on a manual clock at T0. */
function clockedLog(body: (p: EventSourcedProvider, clock: ManualClock, env: CheckEnv) => Promise<void>) {
  return needing(['injectableClock'], async (env) => {
    const clock = new ManualClock(T0);
    await body(env.eventSourced(await env.open({ clock, entropy: seededEntropy(11), instanceId: 'instance-v' })), clock, env);
  });
}

/** One write: which writer makes it, after moving its clock by `step` ms (back when negative). */
const arbWrites = fc.array(fc.record({ writer: fc.constantFrom(0, 1), step: fc.integer({ min: -2 * HOUR, max: 2 * HOUR }) }), { minLength: 1, maxLength: 10 });

export const lifecycleChecks: ProviderCheck[] = checks(['eventSourced'], {
  'V1 at({ seq }) reads, at every seq, exactly as a fresh replay of the log cut there, with or without stored snapshots': clockedLog(async (p, clock, env) => {
    await populate(p, () => clock.advance(1_000));
    const middle = Math.floor((await p.log.head(STATE_STREAM)) / 2);
    // A snapshot stored at the current head, another below: views above and below them must agree
    // with replay.
    await p.saveSnapshot();
    await p.memory.write({ content: 'written after the snapshot' });
    const head = await p.log.head(STATE_STREAM);
    for (let seq = 0; seq <= head; seq += 1) await expectViewIsReplay(p, seq);
    for (const seq of [middle, head]) {
      const view = await p.at({ seq });
      const reference = await env.replay(cutAt(p.log, seq), { clock: { now: () => Date.parse(view.time) } });
      expect(await readModel(view), `reads at seq ${seq}`).toEqual(await readModel(reference));
    }
  }),
  'V2 at({ time }) folds every event at or before the instant; before the first event the state is empty': clockedLog(async (p, clock) => {
    const first = await p.memory.write({ content: 'one' });
    clock.advance(HOUR);
    await p.memory.update(first.id, { content: 'two' });
    clock.advance(HOUR);
    await p.memory.write({ content: 'three' });
    const at = (ms: number) => p.at({ time: formatInstant(ms) });
    const before = await at(T0 - 1);
    expect([before.seq, await before.memory.recall()]).toEqual([0, []]);
    expect([(await at(T0)).seq, (await (await at(T0 + HOUR - 1)).memory.get(first.id)).content]).toEqual([1, 'one']);
    const later = await at(T0 + HOUR + 30 * 60_000);
    expect([later.seq, later.time, (await later.memory.get(first.id)).content]).toEqual([2, formatInstant(T0 + HOUR + 30 * 60_000), 'two']);
    expect([(await at(T0 + 10 * HOUR)).seq, (await p.at({ time: '2026-01-01T13:00:00+01:00' })).seq]).toEqual([3, 1]);
  }),
  'V3 a seq beyond the head, negative or fractional, and a time that is not an ISO instant, are ValidationErrors': freshLog(async (p) => {
    await p.memory.write({ content: 'one' });
    for (const seq of [2, -1, 0.5, Number.NaN]) await expectError(() => p.at({ seq }), ValidationError, `seq ${seq}`);
    for (const time of ['yesterday', '2026-01-01T10:00', '']) await expectError(() => p.at({ time }), ValidationError, `time ${time}`);
    await expectError(() => p.at(undefined as never), ValidationError, 'no point');
    await expectError(() => p.diff({ from: { seq: 0 }, to: { seq: 5 } }), ValidationError, 'diff beyond the head');
  }),
  'V4 a view refuses every write with ReadOnlyViewError and does not move when the provider writes on': freshLog(async (p) => {
    const s = await p.sessions.create({ title: 'before' });
    const view = await p.at({ seq: 1 });
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['sessions.create', () => view.sessions.create()],
      ['sessions.appendTurn', () => view.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'x' })],
      ['sessions.removeLastTurn', () => view.sessions.removeLastTurn(s.id)],
      ['sessions.clear', () => view.sessions.clear(s.id)],
      ['sessions.replaceSuffix', () => view.sessions.replaceSuffix(s.id, { expected: [], turns: [] })],
      ['sessions.delete', () => view.sessions.delete(s.id)],
      ['sessions.compact', () => view.sessions.compact(s.id, { through: 1, summary: 'a summary' })],
      ['skills.upsert', () => view.skills.upsert({ slug: 'a', body: 'b' })],
      ['skills.recordOutcome', () => view.skills.recordOutcome('a', { success: true })],
      ['skills.delete', () => view.skills.delete('a')],
      ['memory.write', () => view.memory.write({ content: 'x' })],
      ['memory.update', () => view.memory.update('x', { content: 'y' })],
      ['memory.delete', () => view.memory.delete('x')],
      ['memory.sweep', () => view.memory.sweep()],
      ['checkpoints.put', () => view.checkpoints.put({ threadId: 't', checkpointId: 'c', checkpoint: {} } as never)],
      ['checkpoints.putWrites', () => view.checkpoints.putWrites({ threadId: 't', checkpointId: 'c', taskId: 'k', writes: [] } as never)],
      ['checkpoints.deleteThread', () => view.checkpoints.deleteThread('t')],
      ['retention.set', () => view.retention.set({ record: 'memory', maxAge: '1d' })],
      ['retention.remove', () => view.retention.remove('x')],
      ['retention.apply', () => view.retention.apply()],
    ];
    for (const [name, write] of writes) await expectError(write, ReadOnlyViewError, name);
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'after' });
    await p.sessions.delete(s.id);
    expect([(await view.sessions.get(s.id)).title, await view.sessions.turns(s.id), await p.log.head(STATE_STREAM)]).toEqual(['before', [], 3]);
  }),
  'V5 diff names what was created, changed (before and after) and deleted per record kind; reversed, it swaps them': freshLog(async (p) => {
    const kept = await p.memory.write({ content: 'kept' });
    const changed = await p.memory.write({ content: 'old text' });
    const gone = await p.memory.write({ content: 'gone' });
    const s = await p.sessions.create({ title: 'chat' });
    const from = await p.log.head(STATE_STREAM);
    await p.memory.update(changed.id, { content: 'new text' });
    await p.memory.delete(gone.id);
    const added = await p.memory.write({ content: 'added' });
    const turn = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hi' });
    const skill = await p.skills.upsert({ slug: 'deploy', body: 'ship' });
    const to = await p.log.head(STATE_STREAM);

    const d = await p.diff({ from: { seq: from }, to: { seq: to } });
    expect([d.from.seq, d.to.seq]).toEqual([from, to]);
    expect([d.memory.created.map((m) => m.id), d.memory.deleted.map((m) => [m.id, m.content])]).toEqual([[added.id], [[gone.id, 'gone']]]);
    expect(d.memory.changed.map((c) => [c.before.content, c.after.content])).toEqual([['old text', 'new text']]);
    expect([d.turns.created.map((t) => t.id), d.skills.created.map((k) => k.id)]).toEqual([[turn.id], [skill.id]]);
    // The session moved (its turn count and envelope), so it changed.
    expect(d.sessions.changed.map((c) => c.after.id)).toEqual([s.id]);
    expect([...d.memory.created, ...d.memory.deleted, ...d.memory.changed.map((c) => c.after)].some((m) => m.id === kept.id)).toBe(false);

    const back = await p.diff({ from: { seq: to }, to: { seq: from } });
    expect([back.memory.created.map((m) => m.id), back.memory.deleted.map((m) => m.id)]).toEqual([[gone.id], [added.id]]);
    expect(back.memory.changed.map((c) => [c.before.content, c.after.content])).toEqual([['new text', 'old text']]);
    const none = await p.diff({ from: { seq: to }, to: { seq: to } });
    const changes = [none.memory, none.sessions, none.turns, none.skills, none.checkpoints].map((k) => k.created.length + k.changed.length + k.deleted.length);
    expect(changes.every((n) => n === 0)).toBe(true);
  }),
  'V6 for random operation sequences, the view at every seq equals a fresh replay of the log cut at that seq, and the diff from it to another seq compares those replays whole':
    needing(['injectableClock'], (env) => {
      const arbitrary = fc.tuple(arbOperations({ maxLength: 20 }), fc.integer({ min: 0, max: 20 }), fc.nat());
      return property(env, arbitrary, { numRuns: Math.max(1, Math.floor(env.propertyRuns / 4)) }, async ([operations, snapshotAt, offset]) => {
        const clock = new ManualClock(T0);
        const p = env.eventSourced(await env.open({ clock }));
        await runOperations(p, operations.slice(0, snapshotAt), { clock });
        await p.saveSnapshot();
        await runOperations(p, operations.slice(snapshotAt), { clock });
        const head = await p.log.head(STATE_STREAM);
        const replayed: Snapshot[] = [];
        for (let seq = 0; seq <= head; seq += 1) {
          replayed.push(await replayedAt(p.log, seq));
          await expectViewIsReplay(p, seq);
        }
        // Each seq against another, earlier or later: a diff reads only the records touched in between.
        for (let seq = 0; seq <= head; seq += 1) {
          const other = (seq + offset) % (head + 1);
          const { from: _from, to: _to, ...diff } = await p.diff({ from: { seq }, to: { seq: other } });
          expect(diff, `diff from ${seq} to ${other}`).toEqual(wholeDiff(replayed[seq]!, replayed[other]!));
        }
      });
    }),
  'V7 a view reads each collection as a replay does whichever read comes first, and still does when a part of its snapshot is damaged': clockedLog(
    async (p, clock, env) => {
      const tick = () => clock.advance(1_000);
      const { liveSessionIds } = await populate(p, tick);
      const snapshotSeq = await p.log.head(STATE_STREAM);
      await p.saveSnapshot();
      // Events after the snapshot touch every collection, so each part is folded forward on its own.
      await p.sessions.appendTurn({ sessionId: liveSessionIds[0]!, role: 'user', content: 'after the snapshot' });
      tick();
      await p.sessions.create({ title: 'made after the snapshot' });
      tick();
      await p.skills.upsert({ slug: 'deploy', body: 'ship it after the snapshot' });
      tick();
      const late = await p.memory.write({ kind: 'fact', content: 'written after the snapshot' });
      tick();
      await p.memory.update(late.id, { content: 'rewritten after the snapshot' });
      const head = await p.log.head(STATE_STREAM);
      // Each read first on a fresh view, then every read in turn (which restores the parts one by one).
      const firsts: Array<[string, (v: Provider) => Promise<unknown>]> = [
        ['memory.recall', (v) => v.memory.recall({ limit: 50 })],
        ['sessions.list', (v) => v.sessions.list()],
        ['sessions.turns', (v) => v.sessions.turns(liveSessionIds[0]!)],
        ['skills.search', (v) => v.skills.search('', 0)],
        ['namespaces', (v) => v.namespaces()],
      ];
      const check = async (label: string) => {
        for (const seq of [snapshotSeq, head - 2, head]) {
          const fresh = await p.at({ seq });
          const reference = await env.replay(cutAt(p.log, seq), { clock: { now: () => Date.parse(fresh.time) } });
          for (const [name, read] of firsts) expect(await read(await p.at({ seq })), `${label}: ${name} first at seq ${seq}`).toEqual(await read(reference));
          expect(await readModel(fresh), `${label}: reads at seq ${seq}`).toEqual(await readModel(reference));
          expect(encodeSnapshot(await fresh.capture()), `${label}: capture at seq ${seq}`).toBe(encodeSnapshot(await replayedAt(p.log, seq)));
        }
      };
      await check('intact');
      // A chunk that no longer matches its head: the view folds from an older snapshot (here none) instead.
      const [memory] = await chunkRowsOf(p.log, (await p.log.latestSnapshot(STATE_STREAM, { upToSeq: snapshotSeq }))!, 'memory');
      await p.log.saveSnapshot({ ...memory!, data: '[]' });
      await check('damaged part');
    },
  ),
  'R1 a memory policy by kind hides expired items from every read before any sweep; the sweep tombstones exactly them': clockedLog(async (p, clock) => {
    const scratch = await p.memory.write({ kind: 'scratch', content: 'scratch note', key: 'draft' });
    const fact = await p.memory.write({ kind: 'fact', content: 'a fact note' });
    const policy = await p.retention.set({ record: 'memory', memoryKind: 'scratch', maxAge: '1d' });
    expect(policy).toMatchObject({ id: 'memory:scratch@*', scope: [], record: 'memory', memoryKind: 'scratch', maxAgeMs: DAY, action: 'tombstone' });
    clock.advance(DAY - 1);
    expect((await p.memory.recall()).map((m) => m.id).sort()).toEqual([scratch.id, fact.id].sort());
    clock.advance(1);
    expect((await p.memory.recall({ query: 'note' })).map((m) => m.id)).toEqual([fact.id]);
    await expectError(() => p.memory.get(scratch.id), NotFoundError, 'get');
    await expectError(() => p.memory.getByKey('draft', { scope: [] }), NotFoundError, 'getByKey');
    await expectError(() => p.memory.getAny(scratch.id), NotFoundError, 'getAny');
    const head = await p.log.head(STATE_STREAM);
    expect([await p.retention.apply(), await p.log.head(STATE_STREAM)]).toEqual([{ sessions: 0, turns: 0, skills: 0, memory: 1 }, head + 1]);
    expect([(await p.memory.getAny(scratch.id)).deleted, (await p.memory.get(fact.id)).content]).toEqual([true, 'a fact note']);
    expect(await p.retention.apply()).toEqual({ sessions: 0, turns: 0, skills: 0, memory: 0 });
  }),
  'R2 session, turn and skill policies cover their namespace and its descendants only; a transcript is tombstoned once all of it expired': clockedLog(
    async (p, clock) => {
      const inside = await p.sessions.create({ scope: ['org', 'a'] });
      const outside = await p.sessions.create({ scope: ['org2'] });
      const old = await p.sessions.appendTurn({ sessionId: inside.id, role: 'user', content: 'old words' });
      await p.sessions.appendTurn({ sessionId: outside.id, role: 'user', content: 'old words elsewhere' });
      const skillIn = await p.skills.upsert({ slug: 'aging', body: 'b', scope: ['org', 'a', 'b'] });
      const skillOut = await p.skills.upsert({ slug: 'aging', body: 'b', scope: ['org2'] });
      await p.retention.set({ record: 'turn', scope: ['org'], maxAge: '90d' });
      await p.retention.set({ record: 'skill', scope: ['org'], maxAge: 30 * DAY });
      clock.advance(60 * DAY);
      const fresh = await p.sessions.appendTurn({ sessionId: inside.id, role: 'assistant', content: 'new words' });
      clock.advance(30 * DAY);
      // The old turn is 90 days old: hidden from turns and search; the newer one and the other
      // namespace stay.
      expect((await p.sessions.turns(inside.id)).map((t) => t.id)).toEqual([fresh.id]);
      expect((await p.sessions.search({ query: 'words' })).map((h) => h.turn.content).sort()).toEqual(['new words', 'old words elsewhere']);
      await expectError(() => p.skills.get(skillIn.id), NotFoundError, 'skill in org/a/b');
      expect((await p.skills.get('aging', { scope: ['org2'] })).id).toBe(skillOut.id);
      expect((await p.skills.list({ scope: ['org'], includeDescendants: true })).length).toBe(0);
      // Only whole transcripts are tombstoned: inside still has a live turn that has not expired.
      expect(await p.retention.apply()).toEqual({ sessions: 0, turns: 0, skills: 1, memory: 0 });
      clock.advance(60 * DAY);
      expect(await p.retention.apply()).toEqual({ sessions: 0, turns: 2, skills: 0, memory: 0 });
      expect([await p.sessions.turns(inside.id), (await p.sessions.turns(outside.id)).length]).toEqual([[], 1]);
      expect(old.id).not.toBe(fresh.id);

      await p.retention.set({ record: 'session', scope: ['org2'], maxAge: '1y' });
      clock.advance(365 * DAY);
      await expectError(() => p.sessions.get(outside.id), NotFoundError, 'idle session');
      expect([(await p.sessions.list()).map((s) => s.id), await p.retention.apply()]).toEqual([[inside.id], { sessions: 1, turns: 0, skills: 0, memory: 0 }]);
      expect((await p.sessions.getAny(outside.id)).deleted).toBe(true);
    },
  ),
  'R3 policies live in the log: listed by id, replaced by id, removed, read back by a replay; a purge policy is accepted; bad policies are ValidationErrors':
    freshLog(async (p, env) => {
      await p.retention.set({ id: 'scratch', record: 'memory', memoryKind: 'scratch', maxAge: '1d' });
      await p.retention.set({ id: 'scratch', record: 'memory', memoryKind: 'scratch', maxAge: '2d' });
      await p.retention.set({ record: 'turn', scope: ['team'], maxAge: '90d' });
      expect((await p.retention.list()).flatMap((x) => [x.id, x.maxAgeMs])).toEqual(['scratch', 2 * DAY, 'turn@team', 90 * DAY]);
      expect((await p.retention.remove('turn@team')).record).toBe('turn');
      await expectError(() => p.retention.remove('turn@team'), NotFoundError, 'removed twice');
      expect([await p.log.head(RETENTION_STREAM), (await (await env.replay(p.log)).retention.list()).map((x) => x.id)]).toEqual([4, ['scratch']]);
      expect(await p.retention.set({ record: 'memory', maxAge: '1d', action: 'purge' })).toMatchObject({ id: 'memory@*', action: 'purge' });
      for (const bad of [
        { record: 'memory', maxAge: '1 day' },
        { record: 'memory', maxAge: 0 },
        { record: 'thread', maxAge: '1d' },
        { record: 'turn', memoryKind: 'scratch', maxAge: '1d' },
        { record: 'memory', maxAge: '1d', extra: true },
      ]) {
        await expectError(() => p.retention.set(bad as never), ValidationError, JSON.stringify(bad));
      }
      expect([await p.log.head(STATE_STREAM), await p.log.head(RETENTION_STREAM)]).toEqual([0, 5]);
    }),
  'R4 a view reads with the policies in force at its instant; a sweep keeps a record written again after it expired': clockedLog(async (p, clock) => {
    const item = await p.memory.write({ content: 'short lived', kind: 'scratch' });
    clock.advance(2 * DAY);
    await p.retention.set({ record: 'memory', maxAge: '1d' });
    const before = await p.at({ seq: 1 });
    expect([(await before.memory.get(item.id)).content, await before.retention.list()]).toEqual(['short lived', []]);
    await expectError(() => (async () => (await p.at({ time: formatInstant(T0 + 2 * DAY) })).memory.get(item.id))(), NotFoundError, 'view after the policy');
    // Written again: young, so no longer expired, and the sweep keeps it.
    await p.memory.update(item.id, { content: 'refreshed' });
    expect([await p.retention.apply(), (await p.memory.get(item.id)).content]).toEqual([{ sessions: 0, turns: 0, skills: 0, memory: 0 }, 'refreshed']);
  }),
  'R5 a second provider on the same storage obeys the first one’s policies at once': needing(['injectableClock', 'sharedStorage'], async (env) => {
    const clock = new ManualClock(T0);
    const p = env.eventSourced(await env.open({ clock }));
    const q = env.eventSourced(await env.openShared(p, { clock }));
    const item = await p.memory.write({ content: 'a note' });
    expect((await q.memory.get(item.id)).content).toBe('a note');
    await p.retention.set({ record: 'memory', maxAge: '1h' });
    clock.advance(HOUR);
    await expectError(() => q.memory.get(item.id), NotFoundError, 'the other provider');
    expect(await q.retention.apply()).toMatchObject({ memory: 1 });
    expect((await p.memory.getAny(item.id)).deleted).toBe(true);
  }),
  'R6 a purge policy erases what it expires in one records.purged event per sweep: the text leaves every event and snapshot, younger records stay': clockedLog(
    async (p, clock) => {
      const old = await p.memory.write({ kind: 'scratch', content: 'r6 Quetzal-58 draft', key: 'r6-key' });
      await p.memory.update(old.id, { content: 'r6 Quetzal-59 draft' });
      const chat = await p.sessions.create({ title: 'r6 chat', scope: ['team'] });
      const oldTurn = await p.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: 'r6 Pangolin-12 words' });
      await p.saveSnapshot();
      await p.retention.set({ record: 'memory', memoryKind: 'scratch', maxAge: '1d', action: 'purge' });
      await p.retention.set({ record: 'turn', scope: ['team'], maxAge: '1d', action: 'purge' });
      clock.advance(DAY);
      const young = await p.memory.write({ kind: 'scratch', content: 'r6 young draft' });
      const youngTurn = await p.sessions.appendTurn({ sessionId: chat.id, role: 'assistant', content: 'r6 young words' });
      const head = await p.log.head(STATE_STREAM);
      expect(await p.retention.apply()).toEqual({ sessions: 0, turns: 1, skills: 0, memory: 1 });
      const events = await p.log.read({ stream: STATE_STREAM, afterSeq: head });
      expect(events).toMatchObject([{ type: 'records.purged', payload: { reason: 'retention: memory:scratch@*, turn@team' } }]);
      const stored = JSON.stringify(await p.log.read({ stream: STATE_STREAM })) + ((await p.log.latestSnapshot(STATE_STREAM))?.data ?? '');
      for (const erased of ['Quetzal-58', 'Quetzal-59', 'r6-key', 'Pangolin-12']) expect(stored).not.toContain(erased);
      expect(await p.memory.getAny(old.id)).toMatchObject({ content: '[erased]', deleted: true });
      expect((await p.sessions.turns(chat.id)).map((t) => t.id)).toEqual([youngTurn.id]);
      expect((await p.history(oldTurn.id)).every((v) => v.kind === 'turn' && v.record.content === '[erased]')).toBe(true);
      expect([(await p.memory.get(young.id)).content, await p.retention.apply()]).toEqual(['r6 young draft', { sessions: 0, turns: 0, skills: 0, memory: 0 }]);
      expect(await p.log.head(STATE_STREAM)).toBe(head + 1);
    },
  ),
  "V8 time lookups with decreasing clocks: at({ time }) folds the longest prefix of the stream stamped at or before it; event times never decrease along a dense stream, and along each writer's events of a gapped one":
    needing(['injectableClock'], (env) =>
      property(env, arbWrites, { numRuns: Math.max(1, Math.floor(env.propertyRuns / 4)) }, async (writes) => {
        // Two processes an hour apart on one store where the backend can share it; else one clock
        // going back and forth.
        const clocks = [new ManualClock(T0), new ManualClock(T0 - HOUR)];
        const p = env.eventSourced(await env.open({ clock: clocks[0] }));
        const writers: EventSourcedProvider[] = [p];
        if (env.caps.sharedStorage) writers.push(env.eventSourced(await env.openShared(p, { clock: clocks[1] })));
        for (const [i, { writer, step }] of writes.entries()) {
          const w = writer % writers.length;
          clocks[w]!.advance(step);
          await writers[w]!.memory.write({ content: `write ${i} by writer ${w}` });
        }
        const events = await p.log.read({ stream: STATE_STREAM });
        const times = events.map((e) => e.time);
        // A gapped log's writers commit in parallel (docs/contract.md §7, "Positions"): each keeps
        // its own order only.
        const writerOf = (e: (typeof events)[number]): string => /by writer (\d+)/.exec(JSON.stringify(e.payload))![1]!;
        for (const w of p.log.gapped === true ? writers.map((_, i) => String(i)) : []) {
          const own = events.filter((e) => writerOf(e) === w).map((e) => e.time);
          expect(own, `event times of writer ${w}`).toEqual([...own].sort());
        }
        if (p.log.gapped !== true) expect(times, 'event times along the stream').toEqual([...times].sort());
        for (const ms of times.flatMap((t) => [instantToMs(t) - 1, instantToMs(t)])) {
          const time = formatInstant(ms);
          // The consistent cut: every event before the first one stamped later than the instant.
          const later = events.findIndex((e) => e.time > time);
          const prefix = later === -1 ? events.length : later;
          const cut = events[prefix - 1]?.seq ?? 0;
          const view = await p.at({ time });
          expect([view.seq, encodeSnapshot(await view.capture())], `at ${time}`).toEqual([cut, encodeSnapshot(await replayedAt(p.log, cut))]);
          const diff = await p.diff({ from: { time: formatInstant(T0 - 10 * HOUR) }, to: { time } });
          expect([diff.from.seq, diff.to.seq, diff.memory.created.length]).toEqual([0, cut, prefix]);
        }
        // Policies are events of their own stream, held to the same rule: a writer whose clock is
        // behind still sets one.
        const late = Math.max(...clocks.map((c) => c.now())) + HOUR;
        clocks[0]!.set(late);
        await writers[0]!.retention.set({ record: 'memory', maxAge: '1d' });
        const last = writers.length - 1;
        clocks[last]!.set(late - 2 * HOUR);
        await writers[last]!.retention.set({ record: 'turn', maxAge: '1d' });
        expect((await p.log.read({ stream: RETENTION_STREAM })).map((e) => e.time)).toEqual([formatInstant(late), formatInstant(late)]);
      }),
    ),
});
