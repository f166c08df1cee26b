/** G1–G7: batch writes and group commit (docs/contract.md §4), held to the in-memory reference making the calls one at a time. */
import type { EventSourcedProvider, Provider, TurnInput, WriteMemoryInput } from '@agentstate/core';
import { ConflictError, LIMITS, NotFoundError, STATE_STREAM, ValidationError } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { type OperationOutcome, settle } from '../arbitraries/operations.js';
import { expectError } from '../suite/expect-error.js';
import { footprint, says } from '../suite/fixtures.js';
import { checks, fresh, needing, property, type ProviderCheck } from '../suite/harness.js';
import { namedRowHolding, storedHeads } from '../suite/snapshot-rows.js';
import { expectSameAs, type Pair, pair } from '../suite/reference.js';

const MEMORY_BATCH: WriteMemoryInput[] = [
  { content: 'the staging database is on port 5433', key: 'db-port', scope: ['project:alpha'] },
  { content: 'deploys go out on Tuesdays', kind: 'fact', metadata: { team: 'ops' } },
  { content: 'staging moved to port 6543', key: 'db-port', scope: ['project:alpha'] },
  { content: 'same key, another scope', key: 'db-port', scope: ['project:beta'] },
  { content: 'an explicit id', id: 'memory-g-1', expiresAt: '2027-01-01T00:00:00Z' },
];

/** One write of the G6 property, on fixed sessions `s0`, `s1` (and a missing `s9`). */
type Write =
  | { kind: 'appendTurn'; session: number; content: string; id?: string; operationId?: string }
  | { kind: 'appendTurns'; session: number; contents: string[]; id?: string; operationId?: string }
  | { kind: 'write'; content: string; key?: string; id?: string; operationId?: string }
  | { kind: 'writeMany'; contents: string[]; key?: string; operationId?: string }
  | { kind: 'deleteMemory'; id: string };

const small = <T>(values: readonly T[]) => fc.option(fc.constantFrom(...values), { nil: undefined });
const text = () => fc.constantFrom('alpha', 'beta deploy', 'gamma port', '');
type Fields = Record<string, fc.Arbitrary<unknown>>;
/** A write of `kind` with `fields`, and each of `optional` present or not. */
const arbOf = (kind: Write['kind'], fields: Fields, optional: Fields = {}) =>
  fc.record<Record<string, unknown>>(
    { kind: fc.constant(kind), ...fields, ...optional },
    { requiredKeys: ['kind', ...Object.keys(fields)] },
  ) as fc.Arbitrary<Write>;
const arbWrite = (): fc.Arbitrary<Write> => {
  const [session, contents] = [fc.constantFrom(0, 1, 9), fc.array(text(), { maxLength: 3 })];
  return fc.oneof(
    arbOf('appendTurn', { session, content: text() }, { id: small(['t-1', 't-2']), operationId: small(['op-1', 'op-2']) }),
    arbOf('appendTurns', { session, contents }, { id: small(['t-1', 't-3']), operationId: small(['op-1', 'op-3']) }),
    arbOf('write', { content: text() }, { key: small(['k1', 'k2']), id: small(['m-1', 'm-2']), operationId: small(['op-2', 'op-4']) }),
    arbOf('writeMany', { contents }, { key: small(['k1', 'k3']), operationId: small(['op-4', 'op-5']) }),
    arbOf('deleteMemory', { id: fc.constantFrom('m-1', 'm-2', 'm-9') }),
  );
};

/** Starts one write (not awaited: the G6 property has many in flight at once). */
function start(p: Provider, sessions: readonly string[], w: Write): Promise<unknown> {
  const sessionId = (n: number) => sessions[n] ?? 'missing-session';
  if (w.kind === 'deleteMemory') return p.memory.delete(w.id);
  const op = w.operationId === undefined ? {} : { operationId: w.operationId };
  const [id, key] = [w.kind === 'writeMany' || !w.id ? {} : { id: w.id }, 'key' in w && w.key ? { key: w.key } : {}];
  if (w.kind === 'appendTurn') return p.sessions.appendTurn({ sessionId: sessionId(w.session), role: 'user', content: w.content, ...id, ...op });
  // An empty content is refused: a validation failure among the others.
  if (w.kind === 'write') return p.memory.write({ content: w.content, ...key, ...id, ...op });
  if (w.kind === 'writeMany') {
    const inputs = w.contents.map((content) => ({ content, ...key }));
    return p.memory.writeMany(inputs, op);
  }
  const turns = w.contents.map((content, i) => ({ role: 'assistant' as const, content, ...(i === 0 ? id : {}) }));
  return p.sessions.appendTurns(sessionId(w.session), turns, op);
}

/** A body compared with the in-memory reference (capabilities `deterministic` and `injectableClock`). */
const paired = (body: (pair: Pair) => Promise<void>) => needing(['deterministic', 'injectableClock'], async (env) => body(await pair(env)));

export const batchChecks: ProviderCheck[] = checks([], {
  'G1 sessions.appendTurns appends each turn as one appendTurn would, in one call: same turns, events and snapshot bytes as the reference appending one at a time':
    paired(async ({ subject, reference }) => {
      const turns = [
        { role: 'user' as const, content: 'deploy the api' },
        { role: 'assistant' as const, parts: [{ type: 'text' as const, text: 'on it' }], metadata: { step: 1 } },
        { role: 'tool' as const, content: 'ok', id: 'turn-g-1', createdAt: '2026-01-01T12:00:00+01:00' },
      ];
      const s = await subject.sessions.create({ title: 'batch' });
      await subject.sessions.appendTurn({ sessionId: s.id, role: 'system', content: 'first' });
      const got = await subject.sessions.appendTurns(s.id, turns);
      const r = await reference.sessions.create({ title: 'batch' });
      await reference.sessions.appendTurn({ sessionId: r.id, role: 'system', content: 'first' });
      const want = [];
      for (const turn of turns) want.push(await reference.sessions.appendTurn({ sessionId: r.id, ...turn }));
      expect([got, got.map((t) => t.seq), await subject.sessions.turns(s.id)]).toEqual([want, [2, 3, 4], await reference.sessions.turns(r.id)]);
      await expectSameAs(subject, reference);
      expect(await subject.sessions.appendTurns(s.id, [])).toEqual([]);
      await expectSameAs(subject, reference);
    }),
  'G2 a bad turn, a taken or repeated turn id, a missing session or an oversized batch refuses the whole appendTurns call, naming the index, and writes nothing':
    fresh(async (p) => {
      const s = await p.sessions.create({});
      const kept = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'kept', id: 'turn-g-taken' });
      const before = await footprint(p, s.id);
      const say = (content: string, id?: string) => ({ role: 'user' as const, content, ...(id ? { id } : {}) });
      const append = (turns: TurnInput[]) => () => p.sessions.appendTurns(s.id, turns);
      expect((await expectError(append([say('a'), { role: 'nobody' as 'user', content: 'b' }]), ValidationError)).field).toBe('turns.1.role');
      expect((await expectError(append([say('a'), say('b'), { role: 'user' }]), ValidationError)).field).toMatch(/^turns\.2\./);
      expect((await expectError(append([say('a'), say('b', 'turn-g-taken')]), ConflictError)).message).toContain('turns[1]');
      expect((await expectError(append([say('a', 'turn-g-new'), say('b', 'turn-g-new')]), ConflictError)).message).toContain('turns[1]');
      await expectError(() => p.sessions.appendTurns('missing-session', [{ role: 'user', content: 'a' }]), NotFoundError);
      const many = Array.from({ length: LIMITS.batch + 1 }, () => ({ role: 'user' as const, content: 'x' }));
      expect((await expectError(() => p.sessions.appendTurns(s.id, many), ValidationError)).field).toBe('turns');
      expect((await expectError(() => p.sessions.appendTurns(s.id, 'not turns' as never), ValidationError)).field).toBe('turns');
      expect([await footprint(p, s.id), await p.sessions.turns(s.id)]).toEqual([before, [kept]]);
    }),
  'G3 memory.writeMany writes each input as one write would, in order (a later key updates an earlier item): same items, events and snapshot bytes as the reference writing one at a time':
    paired(async ({ subject, reference }) => {
      await subject.memory.write({ content: 'stored holder', key: 'stored', kind: 'note' });
      await reference.memory.write({ content: 'stored holder', key: 'stored', kind: 'note' });
      const inputs = [...MEMORY_BATCH, { content: 'updates the stored holder', key: 'stored' }];
      const got = await subject.memory.writeMany(inputs);
      const want = [];
      for (const input of inputs) want.push(await reference.memory.write(input));
      expect(got).toEqual(want);
      expect(got[2]).toMatchObject({ id: got[0]!.id, syncVersion: 2 });
      await expectSameAs(subject, reference);
    }),
  'G4 a bad input, a taken or repeated id, another id for a held key or an operationId on an element refuses the whole writeMany call, naming the index, and writes nothing':
    fresh(async (p) => {
      const s = await p.sessions.create({});
      await p.memory.write({ content: 'held', id: 'memory-g-taken' });
      await p.memory.write({ content: 'holds a key', key: 'held' });
      const before = await footprint(p, s.id);
      const ok = { content: 'fine' };
      const invalid = async (inputs: WriteMemoryInput[]) => (await expectError(() => p.memory.writeMany(inputs), ValidationError)).field;
      const conflict = async (inputs: WriteMemoryInput[]) => (await expectError(() => p.memory.writeMany(inputs), ConflictError)).message;
      expect(await invalid([ok, ok, ok, { content: '' }])).toBe('inputs.3.content');
      expect(await invalid([ok, { content: 'x', metadata: 'no' as never }])).toMatch(/^inputs\.1\.metadata/);
      expect(await invalid([ok, { content: 'x', operationId: 'op' }])).toBe('inputs.1.operationId');
      expect(await conflict([ok, ok, { content: 'x', id: 'memory-g-taken' }])).toContain('inputs[2]');
      expect(await conflict(['a', 'b'].map((content) => ({ content, id: 'memory-g-new' })))).toContain('inputs[1]');
      expect(await conflict([{ content: 'x', key: 'held', id: 'memory-g-other' }])).toContain('inputs[0]');
      expect(await invalid(Array.from({ length: LIMITS.batch + 1 }, () => ok))).toBe('inputs');
      expect([await footprint(p, s.id), (await p.memory.get('memory-g-taken')).content, await p.memory.writeMany([])]).toEqual([before, 'held', []]);
      expect(await footprint(p, s.id)).toEqual(before);
    }),
  'G5 appendTurns and writeMany with an operationId are idempotent: a retry returns the first result and appends nothing; the same id with another input is a ConflictError':
    fresh(async (p) => {
      const s = await p.sessions.create({});
      const turns = [says('one'), says('two', 'assistant')];
      const first = await p.sessions.appendTurns(s.id, turns, { operationId: 'op-g-turns' });
      const items = await p.memory.writeMany(MEMORY_BATCH, { operationId: 'op-g-memory' });
      await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'later' });
      const before = await footprint(p, s.id);
      expect(await p.sessions.appendTurns(s.id, turns, { operationId: 'op-g-turns' })).toEqual(first);
      expect([await p.memory.writeMany(MEMORY_BATCH, { operationId: 'op-g-memory' }), await footprint(p, s.id)]).toEqual([items, before]);
      await expectError(() => p.sessions.appendTurns(s.id, turns.slice(1), { operationId: 'op-g-turns' }), ConflictError);
      await expectError(() => p.memory.writeMany(MEMORY_BATCH.slice(1), { operationId: 'op-g-memory' }), ConflictError);
      await expectError(() => p.memory.writeMany(MEMORY_BATCH, { operationId: 'op-g-turns' }), ConflictError);
      expect([await footprint(p, s.id), (await p.sessions.turns(s.id)).map((t) => t.content)]).toEqual([before, ['one', 'two', 'later']]);
    }),
  'G6 Property: random writes started all at once on one provider (batches, failures, reused ids and operation ids) give the same outcomes, events and snapshot bytes as the reference running them one at a time in call order':
    needing(['deterministic', 'injectableClock'], (env) =>
      property(env, fc.array(arbWrite(), { minLength: 1, maxLength: 24 }), async (writes) => {
        const { subject, reference } = await pair(env);
        const sessions = [(await subject.sessions.create({})).id, (await subject.sessions.create({})).id];
        const mirrored = [(await reference.sessions.create({})).id, (await reference.sessions.create({})).id];
        expect(mirrored).toEqual(sessions);
        const got = await Promise.all(writes.map((w) => settle(start(subject, sessions, w))));
        const want: OperationOutcome[] = [];
        for (const w of writes) want.push(await settle(start(reference, sessions, w)));
        expect(got).toEqual(want);
        await expectSameAs(subject, reference);
      }),
    ),
  'G7 With snapshotEvery k, a batch write whose events pass one or more multiples of k saves one snapshot, of the state after its last event; one that passes none saves none':
    needing(['eventSourced'], async (env) => {
      const every = 3;
      const p = env.eventSourced(await env.open({ snapshotEvery: every }));
      const s = await p.sessions.create({ title: 'snapshots' });
      const want: number[] = [];
      // Each write expects a snapshot at its last seq exactly when one of its seqs is a multiple of k.
      const write = async (run: () => Promise<unknown>) => {
        const from = (await p.log.head(STATE_STREAM)) + 1;
        await run();
        const to = await p.log.head(STATE_STREAM);
        if (Array.from({ length: to - from + 1 }, (_, i) => from + i).some((seq) => seq % every === 0)) want.push(to);
        expect(await savedSeqs(p), `after the write of seqs ${from}–${to}`).toEqual(want);
      };
      const before = await savedSeqs(p);
      want.push(...before);
      // Seven events pass two multiples of 3 whatever the head: one snapshot.
      const seven = Array.from({ length: 7 }, (_, i) => ({ role: 'user' as const, content: `turn ${i}` }));
      await write(() => p.sessions.appendTurns(s.id, seven));
      await write(() => p.memory.writeMany(MEMORY_BATCH));
      for (let i = 0; i < every; i += 1) await write(() => p.sessions.appendTurns(s.id, [{ role: 'assistant' as const, content: `one ${i}` }]));
      expect(want.length - before.length).toBe(3);
      // The batch's snapshot holds its whole state: every one of its turns, in the snapshot's turns part.
      expect((await p.log.latestSnapshot(STATE_STREAM, { upToSeq: want[before.length]! }))?.seq).toBe(want[before.length]);
      expect(await namedRowHolding(p.log, want[before.length]!, 'turn 6')).toBeDefined();
    }),
});

/** The seqs of the stored snapshots of the state stream, ascending. */
async function savedSeqs(p: EventSourcedProvider): Promise<number[]> {
  return (await storedHeads(p.log)).map((head) => head.seq).reverse();
}
