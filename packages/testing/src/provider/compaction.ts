/** W8–W15: compaction, and the context window that uses its summary (docs/contract.md §4, "Compaction"). */
import type { CompactionPolicy, ContextWindow, NamedTokenCounter, SessionSummary, SummarizeInput, Turn } from '@agentstate/core';
import { compactWhenOver, ERASED, EventTypes, LIMITS, NotFoundError, STATE_STREAM, sync, turnTokenText } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { expectError, expectInvalid } from '../suite/expect-error.js';
import { footprint, ids, says } from '../suite/fixtures.js';
import { checks, fresh, freshLog, property, type ProviderCheck } from '../suite/harness.js';
import { arbStep, expectWindow, liveTurns, QUARTERS, sessionWith, type Step, transcript } from './context.js';
import { expectReplayEqualsTables, storedText } from './erasure.js';
import { clockedPairs, expectConverged } from './sync.js';

/**
 * The first index of the longest suffix of `after` (the live turns after a summary's turn) that fits
 * `budget` and holds every result's call: the newest call of its id up to it, among `after` alone.
 */
function referenceCut(after: readonly Turn[], budget: number, counter: NamedTokenCounter): number {
  const closed = (k: number) =>
    after.every((turn, j) =>
      turn.parts.every((part) => {
        if (j < k || part.type !== 'tool-result') return true;
        const call = after.slice(0, j + 1).findLastIndex((t) => t.parts.some((p) => p.type === 'tool-call' && p.callId === part.callId));
        return call >= k;
      }),
    );
  let cut = after.length;
  let sum = 0;
  for (let k = after.length - 1; k >= 0; k -= 1) {
    sum += counter.count(turnTokenText(after[k]!));
    if (sum > budget) break;
    if (closed(k)) cut = k;
  }
  return cut;
}

/**
 * `window` of a session whose live transcript is `live` and whose summary is `summary`: the summary
 * first, then the newest turns after its turn that fit, when its turn is live and it fits the budget;
 * otherwise the window without it.
 */
function expectCompactedWindow(live: readonly Turn[], summary: SessionSummary | undefined, window: ContextWindow, counter: NamedTokenCounter): void {
  expect(window.tokens, 'within the budget').toBeLessThanOrEqual(window.maxTokens);
  expect(window.tokens).toBe(window.entries.reduce((sum, entry) => sum + entry.tokens, 0));
  const at = summary === undefined ? -1 : live.findIndex((turn) => turn.id === summary.through);
  const tokens = summary === undefined ? 0 : counter.count(summary.text);
  if (summary === undefined || summary.stale || at < 0 || tokens > window.maxTokens) {
    const kinds = window.entries.map((entry) => entry.kind);
    expect(kinds, 'no summary that is stale, whose turn is gone or that does not fit').not.toContain('summary');
    expectWindow(live, window, counter);
    return;
  }
  expect(window.entries[0], 'the summary first').toEqual({ kind: 'summary', tokens, summary });
  const after = live.slice(at + 1);
  const cut = referenceCut(after, window.maxTokens - tokens, counter);
  const shown = window.entries.slice(1).map((entry) => (entry.kind === 'turn' ? entry.turn.id : entry.kind));
  expect(shown, 'the newest turns after the summary that fit').toEqual(ids(after.slice(cut)));
}

/** One step of W14 on its session. */
type Op =
  | { kind: 'append'; step: Step }
  | { kind: 'compact'; pick: number; words: number; bySeq: boolean }
  | { kind: 'remove' }
  | { kind: 'purge'; pick: number };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), step: arbStep }),
  fc.record({ kind: fc.constant('compact' as const), pick: fc.nat(), words: fc.integer({ min: 1, max: 40 }), bySeq: fc.boolean() }),
  fc.record({ kind: fc.constant('remove' as const) }),
  fc.record({ kind: fc.constant('purge' as const), pick: fc.nat() }),
);

/** A summary's text. */
const words = (n: number, what: string) => `${what} `.repeat(n).trim();

export const compactionChecks: ProviderCheck[] = checks([], {
  'W8 compact writes one session.compacted event: the session carries the summary through the turn named by id or seq, a later one replaces it, the transcript stays whole, and replay, snapshots and time travel fold it':
    freshLog(async (p) => {
      const session = await sessionWith(p, [says('the launch code is blue'), says('noted', 'assistant'), says('and the date?')]);
      const live = await liveTurns(p, session.id);
      const before = await p.log.head(STATE_STREAM);
      const first = await p.sessions.compact(session.id, { through: live[1]!.id, summary: 'The user gave a launch code.', model: 'writer', tokens: 7 });
      expect(first.summary).toEqual({
        text: 'The user gave a launch code.',
        through: live[1]!.id,
        model: 'writer',
        tokens: 7,
        createdAt: first.updatedAt,
        updatedHlc: first.updatedHlc,
        lastWriterId: first.lastWriterId,
      });
      const held = await (await p.at({ seq: before })).sessions.get(session.id);
      expect(first.syncVersion).toBe(held.syncVersion + 1);
      const events = await p.log.read({ stream: STATE_STREAM, afterSeq: before });
      expect(events.map((event) => [event.type, event.payload])).toEqual([[EventTypes.SessionCompacted, { session: first }]]);
      expect(await p.sessions.get(session.id)).toEqual(first);
      expect(await liveTurns(p, session.id), 'the transcript stays whole').toEqual(live);
      const hits = await p.sessions.search({ query: 'launch code', sessionId: session.id });
      expect(hits.map((hit) => hit.turn.id)).toEqual([live[0]!.id]);
      const middle = await p.log.head(STATE_STREAM);
      await p.saveSnapshot();
      const second = await p.sessions.compact(session.id, { through: live[2]!.seq, summary: 'A code, then a question of dates.' });
      expect(second.summary).toEqual({
        text: 'A code, then a question of dates.',
        through: live[2]!.id,
        createdAt: second.updatedAt,
        updatedHlc: second.updatedHlc,
        lastWriterId: second.lastWriterId,
      });
      expect(await p.sessions.get(session.id)).toEqual(second);
      expect((await (await p.at({ seq: before })).sessions.get(session.id)).summary).toBeUndefined();
      expect(await (await p.at({ seq: middle })).sessions.get(session.id)).toEqual(first);
      await expectReplayEqualsTables(p);
    }),

  'W9 context sends the summary in place of the turns it covers, then the newest turns after it that fit; a result whose call it covers is left out with the turns before it; a summary that alone overflows the budget is left out':
    fresh(async (p) => {
      const session = await sessionWith(
        p,
        Array.from({ length: 10 }, (_, i) => says(`turn number ${i}`, i % 2 === 0 ? 'user' : 'assistant')),
      );
      const live = await liveTurns(p, session.id);
      const { summary } = await p.sessions.compact(session.id, { through: live[5]!.id, summary: words(12, 'summary') });
      const whole = await p.sessions.context(session.id, { maxTokens: 1000, counter: QUARTERS });
      expect(whole.entries.map((entry) => entry.kind)).toEqual(['summary', 'turn', 'turn', 'turn', 'turn']);
      expectCompactedWindow(live, summary, whole, QUARTERS);
      const own = QUARTERS.count(summary!.text);
      const last = QUARTERS.count(turnTokenText(live[9]!));
      for (const maxTokens of [own, own + last, own + last + 1, own - 1, 3])
        expectCompactedWindow(live, summary, await p.sessions.context(session.id, { maxTokens, counter: QUARTERS }), QUARTERS);
      const tools = await sessionWith(p, [
        { role: 'user', content: 'look it up' },
        { role: 'assistant', parts: [{ type: 'tool-call', callId: 'c1', toolName: 'look', input: {} }] },
        { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', toolName: 'look', output: 'found' }] },
        { role: 'assistant', content: 'done' },
      ]);
      const toolTurns = await liveTurns(p, tools.id);
      const compacted = await p.sessions.compact(tools.id, { through: toolTurns[1]!.id, summary: 'asked and called' });
      const window = await p.sessions.context(tools.id, { maxTokens: 1000, counter: QUARTERS });
      expect(window.entries.map((entry) => (entry.kind === 'turn' ? entry.turn.id : entry.kind))).toEqual(['summary', toolTurns[3]!.id]);
      expectCompactedWindow(toolTurns, compacted.summary, window, QUARTERS);
    }),

  'W10 compact refuses bad input with a typed error and writes nothing: an unknown or deleted session, a turn not live in it, an empty or too long summary, bad options':
    fresh(async (p) => {
      const session = await sessionWith(p, [says('a'), says('b', 'assistant')]);
      const other = await sessionWith(p, [says('c')]);
      const [a] = await liveTurns(p, session.id);
      const removed = await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'gone' });
      await p.sessions.removeLastTurn(session.id);
      const before = await footprint(p, session.id);
      for (const [input, field] of [
        [{ through: a!.id, summary: '' }, 'summary'],
        [{ through: a!.id, summary: 'x'.repeat(LIMITS.summary + 1) }, 'summary'],
        [{ through: a!.id }, 'summary'],
        [{ summary: 's' }, 'through'],
        [{ through: 0, summary: 's' }, 'through'],
        [{ through: 1.5, summary: 's' }, 'through'],
        [{ through: '', summary: 's' }, 'through'],
        [{ through: a!.id, summary: 's', tokens: -1 }, 'tokens'],
        [{ through: a!.id, summary: 's', model: 'm'.repeat(LIMITS.shortText + 1) }, 'model'],
        [{ through: a!.id, summary: 's', extra: true }, 'extra'],
      ] as const)
        await expectInvalid(
          () => p.sessions.compact(session.id, input as unknown as { through: string; summary: string }),
          field,
          JSON.stringify(input).slice(0, 80),
        );
      const otherTurn = (await liveTurns(p, other.id))[0]!;
      for (const through of [otherTurn.id, otherTurn.seq + 10, removed.id, removed.seq, 'no-such-turn'])
        await expectError(() => p.sessions.compact(session.id, { through, summary: 's' }), NotFoundError, String(through));
      await expectError(() => p.sessions.compact('no-such-session', { through: a!.id, summary: 's' }), NotFoundError);
      expect(await footprint(p, session.id)).toEqual(before);
      await p.sessions.delete(session.id);
      await expectError(() => p.sessions.compact(session.id, { through: a!.id, summary: 's' }), NotFoundError);
    }),

  'W11 a summary whose turn was removed since is no longer used, and a purge of a turn it covers marks it stale in the same write: context falls back to the turns':
    freshLog(async (p) => {
      const session = await sessionWith(
        p,
        Array.from({ length: 5 }, (_, i) => says(`turn ${i}`)),
      );
      let live = await liveTurns(p, session.id);
      const last = await p.sessions.compact(session.id, { through: live[4]!.id, summary: 'all five' });
      const options = { maxTokens: 1000, counter: QUARTERS };
      const kinds = async () => (await p.sessions.context(session.id, options)).entries.map((entry) => entry.kind);
      expect(await kinds()).toEqual(['summary']);
      await p.sessions.removeLastTurn(session.id);
      live = await liveTurns(p, session.id);
      expectCompactedWindow(live, last.summary, await p.sessions.context(session.id, options), QUARTERS);
      const middle = await p.sessions.compact(session.id, { through: live[2]!.id, summary: 'three of them' });
      expect(await kinds()).toEqual(['summary', 'turn']);
      // A turn after the summary's: the summary stays in use.
      const head = await p.log.head(STATE_STREAM);
      await p.purge({ id: live[3]!.id, reason: 'erase a later turn' });
      expect(await p.log.head(STATE_STREAM), 'one event').toBe(head + 1);
      expect(await p.sessions.get(session.id)).toMatchObject({ summary: middle.summary });
      expect(await kinds()).toEqual(['summary']);
      // A turn it covers: the purge marks it stale, in a session.compacted after the purge's event.
      await p.purge({ id: live[0]!.id, reason: 'erase a covered turn' });
      const events = await p.log.read({ stream: STATE_STREAM, afterSeq: head + 1 });
      expect(events.map((event) => event.type)).toEqual([EventTypes.RecordsPurged, EventTypes.SessionCompacted]);
      const marked = await p.sessions.get(session.id);
      expect(marked.summary).toEqual({ ...middle.summary, stale: true, updatedHlc: marked.updatedHlc, lastWriterId: marked.lastWriterId });
      const window = await p.sessions.context(session.id, options);
      expect(window.entries.map((entry) => entry.kind)).toEqual(['turn', 'turn']);
      expectCompactedWindow(await liveTurns(p, session.id), marked.summary, window, QUARTERS);
      // A new summary is used again; a purge of its own turn marks it stale too.
      live = await liveTurns(p, session.id);
      await p.sessions.compact(session.id, { through: live[0]!.id, summary: 'one of them' });
      expect(await kinds()).toEqual(['summary', 'turn']);
      await p.purge({ id: live[0]!.id, reason: 'erase its own turn' });
      expect((await p.sessions.get(session.id)).summary?.stale).toBe(true);
      expect(await kinds()).toEqual(['turn']);
      await expectReplayEqualsTables(p);
    }),

  'W12 a purge by text that a summary holds erases the session with it: the text is left in no stored event, and replay folds the same': freshLog(async (p) => {
    const session = await sessionWith(p, [says('plain words'), says('more plain words', 'assistant')]);
    const [turn] = await liveTurns(p, session.id);
    await p.sessions.compact(session.id, { through: turn!.id, summary: 'the password is swordfish' });
    await p.sessions.compact(session.id, { through: turn!.id, summary: 'still swordfish, said again' });
    const purged = await p.purge({ matching: 'swordfish', reason: 'a secret in a summary' });
    expect(purged.sessions).toEqual([session.id]);
    await expectError(() => p.sessions.get(session.id), NotFoundError);
    expect((await p.sessions.getAny(session.id)).summary?.text).toBe(ERASED);
    expect(await storedText(p)).not.toContain('swordfish');
    await expectReplayEqualsTables(p);
  }),

  'W13 a compaction syncs as a session change; of two written apart, the later by (HLC, writer) stands on both stores, with the turns appended apart':
    clockedPairs(async (a, b, [onA, onB]) => {
      const session = await a.sessions.create({});
      const turns = await a.sessions.appendTurns(session.id, [says('question'), says('answer', 'assistant')]);
      await sync(a, b);
      const first = await a.sessions.compact(session.id, { through: turns[0]!.id, summary: 'asked' });
      await sync(a, b);
      expect(await b.sessions.get(session.id)).toEqual(first);
      onA.advance(1_000);
      onB.advance(2_000);
      await a.sessions.compact(session.id, { through: turns[1]!.id, summary: 'from a' });
      await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'appended on a' });
      await b.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'appended on b' });
      const later = await b.sessions.compact(session.id, { through: turns[0]!.id, summary: 'from b' });
      await sync(a, b);
      for (const p of [a, b]) expect((await p.sessions.get(session.id)).summary, 'the later summary').toEqual(later.summary);
      await expectConverged([a, b]);
    }),

  'W14 property: for random appends, compactions, removals and purges, context never passes its budget, never uses a stale summary nor one whose turn is gone, and sends it in place of exactly the turns through that turn':
    freshLog(async (p, env) => {
      await property(env, fc.record({ ops: fc.array(arbOp, { maxLength: 10 }), maxTokens: fc.integer({ min: 1, max: 300 }) }), async ({ ops, maxTokens }) => {
        const session = await sessionWith(p, [{ role: 'user', content: 'start' }]);
        let summary: SessionSummary | undefined;
        for (const op of ops) {
          const live = await liveTurns(p, session.id);
          if (op.kind === 'append') await p.sessions.appendTurns(session.id, transcript([op.step]));
          else if (op.kind === 'remove' && live.length > 0) await p.sessions.removeLastTurn(session.id);
          else if (op.kind === 'purge' && live.length > 0) {
            const at = live.findIndex((turn) => turn.id === summary?.through);
            await p.purge({ id: live[op.pick % live.length]!.id, reason: 'random purge' });
            // A summary whose turn is live covers the turns up to it: a purge of one of them makes it stale.
            if (summary !== undefined && !summary.stale && op.pick % live.length <= at) summary = { ...summary, stale: true };
          } else if (op.kind === 'compact' && live.length > 0) {
            const turn = live[op.pick % live.length]!;
            ({ summary } = await p.sessions.compact(session.id, { through: op.bySeq ? turn.seq : turn.id, summary: words(op.words, 'gist') }));
            expect(summary?.through).toBe(turn.id);
          }
          const held = (await p.sessions.get(session.id)).summary;
          expect(held?.stale, 'stale once a purge took a turn it covers').toBe(summary?.stale);
          summary = held;
          const window = await p.sessions.context(session.id, { maxTokens, counter: QUARTERS });
          expectCompactedWindow(await liveTurns(p, session.id), summary, window, QUARTERS);
          expect(await p.sessions.context(session.id, { maxTokens, counter: QUARTERS }), 'deterministic').toEqual(window);
        }
      });
    }),

  'W15 compactWhenOver calls summarize only once the turns no summary covers pass the threshold, and compacts through the newest it folds, keeping the newest that fit keepTokens':
    fresh(async (p) => {
      const session = await sessionWith(
        p,
        Array.from({ length: 6 }, (_, i) => ({ role: 'user' as const, content: `turn number ${i}` })),
      );
      const live = await liveTurns(p, session.id);
      const calls: SummarizeInput[] = [];
      const summarize: CompactionPolicy['summarize'] = async (input) => {
        calls.push(input);
        return { text: `gist of ${input.turns.length}`, model: 'writer' };
      };
      const per = QUARTERS.count(turnTokenText(live[0]!));
      const policy = { summarize, counter: QUARTERS };
      expect(await compactWhenOver(p.sessions, session.id, { ...policy, thresholdTokens: 6 * per })).toBeUndefined();
      expect(calls, 'no summarize under the threshold').toEqual([]);
      const first = await compactWhenOver(p.sessions, session.id, { ...policy, thresholdTokens: 6 * per - 1, keepTokens: 2 * per });
      expect(calls).toEqual([{ summary: undefined, turns: live.slice(0, 4) }]);
      expect(first?.summary).toMatchObject({ text: 'gist of 4', through: live[3]!.id, model: 'writer' });
      expect(await compactWhenOver(p.sessions, session.id, { ...policy, thresholdTokens: 2 * per }), 'the two kept turns are under it').toBeUndefined();
      const added = await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'turn number 6' });
      const second = await compactWhenOver(p.sessions, session.id, { ...policy, thresholdTokens: 2 * per });
      expect(calls[1]).toEqual({ summary: first!.summary, turns: [live[4], live[5], added] });
      expect(second?.summary).toMatchObject({ text: 'gist of 3', through: added.id });
      expect((await p.sessions.context(session.id, { maxTokens: 1000, counter: QUARTERS })).entries.map((entry) => entry.kind)).toEqual(['summary']);
      await expectInvalid(() => compactWhenOver(p.sessions, session.id, { ...policy, thresholdTokens: -1 }), 'thresholdTokens');
      await expectInvalid(
        () => compactWhenOver(p.sessions, session.id, { thresholdTokens: 1, summarize: 'no' as unknown as CompactionPolicy['summarize'] }),
        'summarize',
      );
      expect(calls).toHaveLength(2);
    }),
});
