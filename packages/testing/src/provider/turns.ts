/** T1–T9: structured turns and the transcript operations (docs/contract.md §2, §3). */
import type { Part, Provider, Session, Turn } from '@agentstate/core';
import { compareHlc, ConflictError, LIMITS, NotFoundError, STATE_STREAM, ValidationError } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { arbJsonObject, arbParts } from '../arbitraries/parts.js';
import { arbText } from '../arbitraries/text.js';
import { expectError, expectInvalid } from '../suite/expect-error.js';
import { footprint, says, snapshotText } from '../suite/fixtures.js';
import { checks, fresh, freshLog, property, type ProviderCheck } from '../suite/harness.js';

/** A session with turns `c1…cn` appended. */
async function withTurns(p: Provider, n: number): Promise<{ session: Session; turns: Turn[] }> {
  const session = await p.sessions.create({ title: 't' });
  const turns: Turn[] = [];
  for (let i = 1; i <= n; i += 1) turns.push(await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `c${i}` }));
  return { session, turns };
}

const contents = (turns: readonly Turn[]): string[] => turns.map((t) => t.content);

const TOOL_TURN: Part[] = [
  { type: 'reasoning', text: 'look it up' },
  { type: 'text', text: 'checking' },
  { type: 'tool-call', callId: 'call_1', toolName: 'weather', input: { city: 'Oslo' } },
  { type: 'text', text: 'done', metadata: { cache: { hit: true } } },
];

export const turnChecks: ProviderCheck[] = checks([], {
  'T1 content alone becomes one text part, parts alone render their text parts as content, both given are both kept, an empty text part is kept': fresh(
    async (p) => {
      const s = await p.sessions.create({ metadata: { app: 'cli', n: 1 } });
      expect(s.metadata).toEqual({ app: 'cli', n: 1 });
      const plain = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hello' });
      expect(plain).toMatchObject({ content: 'hello', parts: [{ type: 'text', text: 'hello' }], metadata: {} });
      const empty = await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', content: '' });
      expect(empty.parts).toEqual([]);
      const structured = await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', parts: TOOL_TURN, metadata: { model: 'm' } });
      expect(structured).toMatchObject({ content: 'checking\ndone', parts: TOOL_TURN, metadata: { model: 'm' } });
      const both = await p.sessions.appendTurn({ sessionId: s.id, role: 'tool', content: 'sunny', parts: [{ type: 'data', name: 'w', data: [1, 2] }] });
      expect(both).toMatchObject({ content: 'sunny', parts: [{ type: 'data', name: 'w', data: [1, 2] }] });
      // An empty text part is more than '' gives (no part): it is kept, not folded into the content.
      const emptyText = await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', parts: [{ type: 'text', text: '' }] });
      expect(emptyText).toMatchObject({ content: '', parts: [{ type: 'text', text: '' }] });
      expect(await p.sessions.turns(s.id)).toEqual([plain, empty, structured, both, emptyText]);
    },
  ),
  'T2 random structured turns and metadata read back equal to what was written (after a reopen too, when durable)': (env) => {
    const turn = fc.record({ parts: arbParts(), metadata: arbJsonObject(), content: fc.option(arbText(), { nil: undefined }) });
    const arbitrary = fc.tuple(arbJsonObject(), fc.array(turn, { minLength: 1, maxLength: 4 }));
    return property(env, arbitrary, { numRuns: Math.max(5, Math.floor(env.propertyRuns / 4)) }, async ([metadata, inputs]) => {
      let p = await env.open();
      const s = await p.sessions.create({ metadata });
      const written: Turn[] = [];
      for (const input of inputs) {
        const turn = await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', ...input });
        expect([turn.parts, turn.metadata]).toEqual([input.parts, input.metadata]);
        written.push(turn);
      }
      for (const reopen of env.caps.durable ? [false, true] : [false]) {
        if (reopen) p = await env.reopen(p);
        expect([await p.sessions.turns(s.id), (await p.sessions.get(s.id)).metadata]).toEqual([written, metadata]);
      }
    });
  },
  'T3 turns({ last: n }) is the newest n live turns, oldest first; last with afterSeq or limit is a ValidationError': fresh(async (p) => {
    const { session } = await withTurns(p, 5);
    expect(contents(await p.sessions.turns(session.id, { last: 2 }))).toEqual(['c4', 'c5']);
    expect(contents(await p.sessions.turns(session.id, { last: 9 }))).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    await p.sessions.removeLastTurn(session.id);
    expect(contents(await p.sessions.turns(session.id, { last: 2 }))).toEqual(['c3', 'c4']);
    await expectInvalid(() => p.sessions.turns(session.id, { last: 2, limit: 1 }), 'last');
    await expectError(() => p.sessions.turns(session.id, { last: 0 }), ValidationError);
    await expectError(() => p.sessions.turns('missing', { last: 1 }), NotFoundError);
  }),
  'T4 removeLastTurn returns the tombstone (syncVersion 2, later HLC), reads skip it, the session moves once; none left is NotFoundError': fresh(async (p) => {
    const { session, turns } = await withTurns(p, 2);
    const before = await p.sessions.get(session.id);
    const tombstone = await p.sessions.removeLastTurn(session.id);
    expect(tombstone).toMatchObject({ id: turns[1]!.id, seq: 2, content: 'c2', deleted: true, syncVersion: 2 });
    expect(compareHlc(tombstone.updatedHlc, turns[1]!.updatedHlc)).toBeGreaterThan(0);
    expect(await p.sessions.get(session.id)).toMatchObject({ syncVersion: before.syncVersion + 1, updatedHlc: tombstone.updatedHlc });
    expect(await p.sessions.turns(session.id)).toEqual([turns[0]]);
    await p.sessions.removeLastTurn(session.id);
    const mark = await footprint(p, session.id);
    await expectError(() => p.sessions.removeLastTurn(session.id), NotFoundError);
    expect(await footprint(p, session.id)).toEqual(mark);
    await expectError(() => p.sessions.removeLastTurn('missing'), NotFoundError);
  }),
  'T5 seqs are never reused: a turn appended after a removal gets the highest seq ever + 1': fresh(async (p) => {
    const { session } = await withTurns(p, 3);
    await p.sessions.removeLastTurn(session.id);
    await p.sessions.removeLastTurn(session.id);
    const next = await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'again' });
    expect(next.seq).toBe(4);
    const [added] = await p.sessions.replaceSuffix(session.id, { expected: [next.id], turns: [{ role: 'user', content: 'redo' }] });
    expect([added!.seq, (await p.sessions.turns(session.id)).map((t) => `${t.seq} ${t.content}`)]).toEqual([5, ['1 c1', '5 redo']]);
    expect((await p.sessions.turns(session.id, { afterSeq: 1 })).map((t) => t.seq)).toEqual([5]);
  }),
  'T6 clear tombstones every live turn and moves the session once; an empty transcript writes nothing and returns []': fresh(async (p) => {
    const { session, turns } = await withTurns(p, 3);
    const before = await p.sessions.get(session.id);
    expect((await p.sessions.clear(session.id)).map((t) => [t.id, t.deleted, t.syncVersion])).toEqual(turns.map((t) => [t.id, true, 2]));
    expect([(await p.sessions.get(session.id)).syncVersion, await p.sessions.turns(session.id)]).toEqual([before.syncVersion + 1, []]);
    const mark = await footprint(p, session.id);
    expect([await p.sessions.clear(session.id), await footprint(p, session.id)]).toEqual([[], mark]);
    await expectError(() => p.sessions.clear('missing'), NotFoundError);
  }),
  'T7 replaceSuffix replaces exactly the expected live suffix, [] appends many at once; a mismatch or taken id is a ConflictError that writes nothing': fresh(
    async (p) => {
      const { session, turns } = await withTurns(p, 3);
      const replacing = [says('r1', 'assistant'), { role: 'assistant' as const, parts: TOOL_TURN, id: 'chosen-id' }];
      const added = await p.sessions.replaceSuffix(session.id, { expected: [turns[1]!.id, turns[2]!.id], turns: replacing });
      expect(added.flatMap((t) => [t.seq, t.content, t.id === 'chosen-id'])).toEqual([4, 'r1', false, 5, 'checking\ndone', true]);
      expect([added[0]!.updatedHlc, contents(await p.sessions.turns(session.id))]).toEqual([added[1]!.updatedHlc, ['c1', 'r1', 'checking\ndone']]);
      const mark = await footprint(p, session.id);
      await expectError(() => p.sessions.replaceSuffix(session.id, { expected: [turns[2]!.id], turns: [] }), ConflictError, 'a removed turn');
      await expectError(() => p.sessions.replaceSuffix(session.id, { expected: [turns[0]!.id], turns: [] }), ConflictError, 'not a suffix');
      await expectError(() => p.sessions.replaceSuffix(session.id, { expected: ['a', 'b', 'c', 'd'], turns: [] }), ConflictError, 'longer');
      await expectError(
        () => p.sessions.replaceSuffix(session.id, { expected: [], turns: [{ role: 'user', content: 'x', id: turns[2]!.id }] }),
        ConflictError,
        'tombstone id',
      );
      const twice = { expected: [], turns: ['x', 'y'].map((content) => ({ ...says(content), id: 'dup' })) };
      await expectError(() => p.sessions.replaceSuffix(session.id, twice), ConflictError, 'same id twice');
      expect(await footprint(p, session.id)).toEqual(mark);
      const appended = await p.sessions.replaceSuffix(session.id, { expected: [], turns: [says('a1'), says('a2')] });
      expect([appended.map((t) => t.seq), await p.sessions.replaceSuffix(session.id, { expected: [], turns: [] })]).toEqual([[6, 7], []]);
      await expectError(() => p.sessions.replaceSuffix('missing', { expected: [], turns: [] }), NotFoundError);
    },
  ),
  'T8 each transcript operation appends exactly one event (session.turns_removed, session.suffix_replaced) and replay reads the same': freshLog(
    async (p, env) => {
      const { session, turns } = await withTurns(p, 3);
      const head = await p.log.head(STATE_STREAM);
      await p.sessions.removeLastTurn(session.id);
      await p.sessions.replaceSuffix(session.id, { expected: [turns[1]!.id], turns: [says('n1'), says('n2')] });
      await p.sessions.clear(session.id);
      const events = await p.log.read({ stream: STATE_STREAM, afterSeq: head });
      expect(events.map((e) => e.type)).toEqual(['session.turns_removed', 'session.suffix_replaced', 'session.turns_removed']);
      const replayed = await env.replay(p.log);
      expect([await snapshotText(replayed), await replayed.sessions.turns(session.id)]).toEqual([await snapshotText(p), []]);
      expect((await replayed.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'z' })).seq).toBe(6);
    },
  ),
  'T9 malformed parts and metadata are a ValidationError naming the field, and write nothing': fresh(async (p) => {
    const { session } = await withTurns(p, 1);
    const bad: Array<[unknown, string]> = [
      [{ parts: [{ type: 'file', mediaType: 'image/png', url: 'https://x', data: 'AAAA' }] }, 'parts.0.url'],
      [{ parts: [{ type: 'file', mediaType: 'image/png' }] }, 'parts.0.url'],
      [{ parts: [{ type: 'file', mediaType: 'image/png', data: 'not base64!' }] }, 'parts.0.data'],
      [{ parts: [{ type: 'tool-call', callId: 'c', toolName: 't' }] }, 'parts.0.input'],
      [{ parts: [{ type: 'tool-result', callId: 'c', toolName: 't', output: 1, isError: 'no' }] }, 'parts.0.isError'],
      [{ parts: [{ type: 'text', text: 'a', extra: 1 }] }, 'parts.0.extra'],
      [{ parts: [{ type: 'video' }] }, 'parts.0.type'],
      [{ parts: Array.from({ length: LIMITS.parts + 1 }, () => ({ type: 'text', text: 'a' })) }, 'parts'],
      [{ content: 'a', metadata: JSON.parse('{"__proto__": 1}') }, 'metadata.__proto__'],
      [{ content: 'a', metadata: [1] }, 'metadata'],
      [{}, 'content'],
    ];
    const mark = await footprint(p, session.id);
    for (const [fields, field] of bad) {
      const input = { sessionId: session.id, role: 'assistant', ...(fields as object) } as Parameters<Provider['sessions']['appendTurn']>[0];
      expect((await expectError(() => p.sessions.appendTurn(input), ValidationError, field)).field, JSON.stringify(fields).slice(0, 80)).toBe(field);
    }
    await expectError(() => p.sessions.create({ metadata: { n: Number.NaN } }), ValidationError);
    expect([await footprint(p, session.id), contents(await p.sessions.turns(session.id))]).toEqual([mark, ['c1']]);
  }),
});
