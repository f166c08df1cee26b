/** W1–W7, W40: the context window (docs/contract.md §4, "Context"). */
import type { ContextWindow, NamedTokenCounter, Provider, Session, Turn, TurnInput } from '@agentstate/core';
import { defaultTokenCounter, formatInstant, ManualClock, NotFoundError, STATE_STREAM, turnTokenText } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { expectError, expectInvalid } from '../suite/expect-error.js';
import { footprint, HOUR, ids, says, T0 } from '../suite/fixtures.js';
import { checks, fresh, freshLog, needing, property, type ProviderCheck } from '../suite/harness.js';

/** A cheap counter of the property checks: a token per four characters. */
export const QUARTERS: NamedTokenCounter = { name: 'quarters', count: (text) => Math.ceil(text.length / 4) };

/**
 * One step of a transcript: a text turn; an assistant turn of tool calls, text turns between, and their
 * results (`reuse`: with the call ids of the first tool step again); or a result no call made.
 */
export type Step =
  | { kind: 'text'; role: 'user' | 'assistant' | 'system'; words: number }
  | { kind: 'tools'; calls: number; between: number; oneResultTurn: boolean; words: number; reuse?: boolean }
  | { kind: 'orphan' };

export const arbStep: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('text' as const), role: fc.constantFrom('user' as const, 'assistant' as const, 'system' as const), words: fc.nat(30) }),
  fc.record({
    kind: fc.constant('tools' as const),
    calls: fc.integer({ min: 1, max: 3 }),
    between: fc.nat(2),
    oneResultTurn: fc.boolean(),
    words: fc.nat(30),
    reuse: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('orphan' as const) }),
);

/** The turns `steps` stand for, each tool call with a fresh call id unless its step reuses them. */
export function transcript(steps: readonly Step[]): TurnInput[] {
  const turns: TurnInput[] = [];
  let calls = 0;
  for (const step of steps) {
    if (step.kind === 'orphan') {
      turns.push({ role: 'tool', parts: [{ type: 'tool-result', callId: 'never-called', toolName: 'look', output: 'lost' }] });
      continue;
    }
    const text = 'word '.repeat(step.words).trim();
    if (step.kind === 'text') {
      turns.push({ role: step.role, content: text });
      continue;
    }
    const ids = Array.from({ length: step.calls }, (_, i) => `call-${(step.reuse ? 0 : calls) + i + 1}`);
    if (!step.reuse) calls += step.calls;
    turns.push({ role: 'assistant', parts: ids.map((callId) => ({ type: 'tool-call' as const, callId, toolName: 'look', input: { q: text } })) });
    for (let i = 0; i < step.between; i += 1) turns.push({ role: 'assistant', content: `waiting ${i}` });
    const results = ids.map((callId) => ({ type: 'tool-result' as const, callId, toolName: 'look', output: text }));
    if (step.oneResultTurn) turns.push({ role: 'tool', parts: results });
    else for (const result of results) turns.push({ role: 'tool', parts: [result] });
  }
  return turns;
}

/** A session holding `turns`. */
export async function sessionWith(p: Provider, turns: readonly TurnInput[], scope: string[] = []): Promise<Session> {
  const session = await p.sessions.create({ scope });
  for (let i = 0; i < turns.length; i += 1000) await p.sessions.appendTurns(session.id, turns.slice(i, i + 1000));
  return session;
}

/** Each call/result pair of `turns` as the indexes of its two turns: a result and the newest call of its id up to it. */
function pairs(turns: readonly Turn[]): [number, number][] {
  return turns.flatMap((turn, i) =>
    turn.parts.flatMap((part) => {
      if (part.type !== 'tool-result') return [];
      const call = turns.slice(0, i + 1).findLastIndex((t) => t.parts.some((p) => p.type === 'tool-call' && p.callId === part.callId));
      return call < 0 ? [] : [[call, i] as [number, number]];
    }),
  );
}

/**
 * `window` holds, after its memories, a suffix of the live transcript `live` that splits no
 * call from its result, each entry counted by `counter`, within its budget; and the nearest
 * older suffix that splits no pair would not fit.
 */
export function expectWindow(live: readonly Turn[], window: ContextWindow, counter: NamedTokenCounter): void {
  const shown = window.entries.flatMap((entry) => (entry.kind === 'turn' ? [entry.turn] : []));
  const cut = live.length - shown.length;
  expect(ids(shown), 'a suffix of the live transcript').toEqual(ids(live.slice(cut)));
  const memoryCount = window.entries.length - shown.length;
  const kinds = window.entries.map((entry) => entry.kind);
  expect(kinds, 'memories before turns').toEqual([...Array(memoryCount).fill('memory'), ...Array(shown.length).fill('turn')]);
  for (const entry of window.entries)
    expect(entry.tokens, 'entry counted by the counter').toBe(
      counter.count(entry.kind === 'turn' ? turnTokenText(entry.turn) : entry.kind === 'summary' ? entry.summary.text : entry.memory.content),
    );
  expect(window.tokens).toBe(window.entries.reduce((sum, entry) => sum + entry.tokens, 0));
  expect(window.tokens, 'within the budget').toBeLessThanOrEqual(window.maxTokens);
  const splits = (k: number) => pairs(live).some(([call, result]) => call < k && k <= result);
  expect(splits(cut), 'a call apart from its result').toBe(false);
  const memories = window.tokens - shown.reduce((sum, turn) => sum + counter.count(turnTokenText(turn)), 0);
  for (let k = cut - 1; k >= 0; k -= 1) {
    if (splits(k)) continue;
    const older = live.slice(k).reduce((sum, turn) => sum + counter.count(turnTokenText(turn)), 0);
    expect(memories + older, `the newest turns that fit: from index ${k} they would fit too`).toBeGreaterThan(window.maxTokens);
    break;
  }
}

/** The live transcript of a session. */
export const liveTurns = async (p: Provider, id: string): Promise<Turn[]> => [...(await p.sessions.turns(id))];

export const contextChecks: ProviderCheck[] = checks([], {
  'W1 property: for random transcripts with tool calls and random budgets, the window is the newest turns that fit, never over the budget, never splitting a call from its result, the same on every call':
    fresh(async (p, env) => {
      await property(
        env,
        fc.record({ steps: fc.array(arbStep, { maxLength: 12 }), maxTokens: fc.integer({ min: 1, max: 400 }) }),
        async ({ steps, maxTokens }) => {
          const session = await sessionWith(p, transcript(steps));
          const window = await p.sessions.context(session.id, { maxTokens, counter: QUARTERS });
          expect(window).toMatchObject({ sessionId: session.id, maxTokens, counter: 'quarters' });
          expectWindow(await liveTurns(p, session.id), window, QUARTERS);
          expect(await p.sessions.context(session.id, { maxTokens, counter: QUARTERS }), 'deterministic').toEqual(window);
        },
      );
    }),

  'W2 a long transcript is read back as far as the budget needs: a call whose result is among the newest turns keeps its turns together across the reads':
    fresh(async (p) => {
      // A call early in 700 turns answered late, so the newest turns hold a result whose call is far older.
      const turns: TurnInput[] = Array.from({ length: 700 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `turn ${i}` }));
      turns[40] = { role: 'assistant', parts: [{ type: 'tool-call', callId: 'late', toolName: 'slow', input: {} }] };
      turns[660] = { role: 'tool', parts: [{ type: 'tool-result', callId: 'late', toolName: 'slow', output: 'done' }] };
      const session = await sessionWith(p, turns);
      const live = await liveTurns(p, session.id);
      const zeroFor = (keep: (text: string) => boolean): NamedTokenCounter => ({ name: 'some', count: (text) => (keep(text) ? 1 : 0) });
      for (const [counter, maxTokens] of [
        [QUARTERS, 100],
        [QUARTERS, 1000],
        [QUARTERS, 10_000],
        [zeroFor((text) => text.includes('turn 3')), 150],
        [zeroFor((text) => text.includes('turn 3')), 50],
        [zeroFor(() => false), 1],
      ] as const) {
        const window = await p.sessions.context(session.id, { maxTokens, counter });
        expectWindow(live, window, counter);
      }
      expect((await p.sessions.context(session.id, { maxTokens: 1, counter: zeroFor(() => false) })).entries.length).toBe(700);
    }),

  'W3 removed turns and deleted sessions are never in a window; bad options and unknown sessions are typed errors that write nothing': fresh(async (p) => {
    const session = await sessionWith(p, transcript([{ kind: 'text', role: 'user', words: 3 }]));
    await p.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: 'a secret answer' });
    const removed = await p.sessions.removeLastTurn(session.id);
    const [replaced] = await p.sessions.replaceSuffix(session.id, { expected: [], turns: [{ role: 'assistant', content: 'kept' }] });
    await p.sessions.replaceSuffix(session.id, { expected: [replaced!.id], turns: [{ role: 'assistant', content: 'final' }] });
    const window = await p.sessions.context(session.id, { maxTokens: 1000, counter: QUARTERS });
    const ids = window.entries.map((entry) => (entry.kind === 'turn' ? entry.turn.id : ''));
    expect(ids).not.toContain(removed.id);
    expect(ids).not.toContain(replaced!.id);
    expectWindow(await liveTurns(p, session.id), window, QUARTERS);
    const before = await footprint(p, session.id);
    for (const [options, field] of [
      [{ maxTokens: 0 }, 'maxTokens'],
      [{ maxTokens: 1.5 }, 'maxTokens'],
      [{ maxTokens: -3 }, 'maxTokens'],
      [{ maxTokens: '10' }, 'maxTokens'],
      [{}, 'maxTokens'],
      [{ maxTokens: 10, counter: 'o200k' }, 'counter'],
      [{ maxTokens: 10, counter: () => 1.5 }, 'counter'],
      [{ maxTokens: 10, counter: { name: 'neg', count: () => -1 } }, 'counter'],
      [{ maxTokens: 10, recall: { limit: 0 } }, 'recall.limit'],
      [{ maxTokens: 10, extra: true }, 'extra'],
    ] as const)
      await expectInvalid(() => p.sessions.context(session.id, options as unknown as { maxTokens: number }), field, JSON.stringify(options));
    await expectError(() => p.sessions.context('no-such-session', { maxTokens: 10 }), NotFoundError);
    expect(await footprint(p, session.id)).toEqual(before);
    await p.sessions.delete(session.id);
    await expectError(() => p.sessions.context(session.id, { maxTokens: 10 }), NotFoundError);
  }),

  'W4 with recall, the memories of the session scope recalled for its last user turn come first, best first, counted within the same budget': fresh(
    async (p) => {
      const scope = ['user:ada'];
      await p.memory.write({ content: 'Ada prefers dark mode in every editor', scope });
      await p.memory.write({ content: 'Ada deploys on Fridays after lunch', scope });
      await p.memory.write({ content: 'Bob prefers dark mode too', scope: ['user:bob'] });
      const question = 'Which editor mode does Ada prefer, dark or light?';
      const session = await sessionWith(
        p,
        [{ role: 'user', content: question }, ...transcript([{ kind: 'tools', calls: 1, between: 0, oneResultTurn: true, words: 5 }])],
        scope,
      );
      const live = await liveTurns(p, session.id);
      const expected = await p.memory.recall({ query: question, scope, limit: 2, match: 'any' });
      expect(expected.map((hit) => hit.content)).toContain('Ada prefers dark mode in every editor');
      const window = await p.sessions.context(session.id, { maxTokens: 1000, counter: QUARTERS, recall: { limit: 2 } });
      expect(window.entries.flatMap((entry) => (entry.kind === 'memory' ? [entry.memory.id] : []))).toEqual(expected.map((hit) => hit.id));
      expectWindow(live, window, QUARTERS);
      expect(window.entries.filter((entry) => entry.kind === 'turn')).toHaveLength(live.length);
      // A budget the first memory alone fills: the turns give way, and the memory after it, which no longer fits, is left out.
      const first = QUARTERS.count(expected[0]!.content);
      const tight = await p.sessions.context(session.id, { maxTokens: first, counter: QUARTERS, recall: { limit: 2 } });
      expect(tight.entries.map((entry) => entry.kind)).toEqual(['memory']);
      expectWindow(live, tight, QUARTERS);
      // A user turn longer than a query may be is cut to LIMITS.query characters, never inside a character.
      const long = await sessionWith(p, [{ role: 'user', content: `Ada: dark mode ${'😀'.repeat(6000)}` }], scope);
      const cut = await p.sessions.context(long.id, { maxTokens: 100_000, counter: QUARTERS, recall: { limit: 1 } });
      expect(cut.entries.map((entry) => entry.kind)).toEqual(['memory', 'turn']);
      // No user turn, no memories.
      const quiet = await sessionWith(p, [{ role: 'assistant', content: 'Ada prefers dark mode' }], scope);
      expect((await p.sessions.context(quiet.id, { maxTokens: 1000, counter: QUARTERS, recall: { limit: 2 } })).entries.map((entry) => entry.kind)).toEqual([
        'turn',
      ]);
    },
  ),

  'W5 the default counter is the o200k_base encoding over what a model receives for a turn; a special token in a turn counts as text': fresh(async (p) => {
    const session = await sessionWith(p, [
      { role: 'user', content: 'Hello there, what is the weather in Oslo? <|endoftext|>' },
      { role: 'assistant', parts: [{ type: 'tool-call', callId: 'c1', toolName: 'weather', input: { city: 'Oslo' }, metadata: { cache: 'hint' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', toolName: 'weather', output: { sky: 'clear' } }] },
    ]);
    const counter = await defaultTokenCounter();
    const window = await p.sessions.context(session.id, { maxTokens: 10_000 });
    expect(window.counter).toBe('o200k_base');
    expectWindow(await liveTurns(p, session.id), window, counter);
    expect(counter.count('hello world')).toBe(2);
    const [user, call] = window.entries.map((entry) => (entry.kind === 'turn' ? turnTokenText(entry.turn) : ''));
    expect(user).toBe('user\nHello there, what is the weather in Oslo? <|endoftext|>');
    expect(call).toBe('assistant\n{"callId":"c1","input":{"city":"Oslo"},"toolName":"weather","type":"tool-call"}');
  }),

  'W40 a data part counts no tokens: the window counts a turn as if it had none': fresh(async (p) => {
    const said = [
      { role: 'user' as const, parts: [{ type: 'text' as const, text: 'Weather in Oslo?' }] },
      { role: 'assistant' as const, parts: [{ type: 'text' as const, text: 'Clear skies.' }] },
    ];
    // The same turns, each with an adapter's bookkeeping beside what the model receives.
    const item = { type: 'data' as const, name: 'app.item', data: { id: 'item-1', status: 'completed' } };
    const kept = said.map((turn) => ({ ...turn, parts: [...turn.parts, item] }));
    const plain = await p.sessions.context((await sessionWith(p, said)).id, { maxTokens: 1000, counter: QUARTERS });
    const window = await p.sessions.context((await sessionWith(p, kept)).id, { maxTokens: 1000, counter: QUARTERS });
    const counted = window.entries.map((entry) => (entry.kind === 'turn' ? turnTokenText(entry.turn) : ''));
    expect(counted).toEqual(['user\nWeather in Oslo?', 'assistant\nClear skies.']);
    expect(window.tokens).toBe(plain.tokens);
  }),

  'W6 a view of an earlier point assembles the window the provider assembled at that point': freshLog(async (p) => {
    const scope = ['user:ada'];
    await p.memory.write({ content: 'Ada prefers dark mode', scope });
    const session = await sessionWith(p, [says('Which mode does Ada prefer?'), says('Dark mode.', 'assistant')], scope);
    const options = { maxTokens: 1000, counter: QUARTERS, recall: { limit: 3 } };
    const then = await p.sessions.context(session.id, options);
    const seq = await p.log.head(STATE_STREAM);
    await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'And which editor?' });
    await p.memory.write({ content: 'Ada uses a dark editor', scope });
    const view = await p.at({ seq });
    expect(await view.sessions.context(session.id, options)).toEqual(then);
  }),

  'W7 under a turn retention policy, the window holds the newest turns the policy leaves, also when the newest by seq have expired': needing(
    ['eventSourced', 'injectableClock'],
    async (env) => {
      const p = env.eventSourced(await env.open({ clock: new ManualClock(T0) }));
      const session = await p.sessions.create({ scope: ['org'] });
      const kept = transcript([
        { kind: 'text', role: 'user', words: 4 },
        { kind: 'tools', calls: 1, between: 60, oneResultTurn: true, words: 3 },
        ...Array.from({ length: 30 }, () => ({ kind: 'text' as const, role: 'assistant' as const, words: 5 })),
      ]);
      await p.sessions.appendTurns(session.id, kept);
      // Then 70 turns stamped two days back: a one-day policy hides the newest turns by seq.
      const stale = formatInstant(T0 - 48 * HOUR);
      await p.sessions.appendTurns(
        session.id,
        Array.from({ length: 70 }, (_, i) => ({ role: 'user' as const, content: `stale ${i}`, createdAt: stale })),
      );
      await p.retention.set({ record: 'turn', scope: ['org'], maxAge: '1d' });
      const live = await liveTurns(p, session.id);
      expect(live).toHaveLength(kept.length);
      expect((await p.sessions.turns(session.id, { last: 10 })).map((turn) => turn.id)).toEqual(live.slice(-10).map((turn) => turn.id));
      for (const maxTokens of [40, 200, 100_000]) expectWindow(live, await p.sessions.context(session.id, { maxTokens, counter: QUARTERS }), QUARTERS);
    },
  ),
});
