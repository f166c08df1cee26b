/** X21–X24: what the faces and adapters rely on (docs/contract.md §2, §3, §4, §6). */
import { ConflictError, OperationConflictError, type Provider } from '@agentstate/core';
import { expect } from 'vitest';
import { conceptEmbedder } from '../suite/concept-embedder.js';
import { expectError } from '../suite/expect-error.js';
import { checks, embedding, fresh, type ProviderCheck } from '../suite/harness.js';

/** A tool result as the AI SDK and OpenAI shape it: no `isError`. */
const RESULT = { type: 'tool-result', callId: 'call_1', toolName: 'weather', output: { temperature: 21 } } as const;

/** Texts of the recall and search checks: one per concept of the concept embedder, and one of none. */
const TEXTS = ['my car makes a noise', 'the kitten sleeps all day', 'deploy on friday', 'zyzzyva'] as const;

/**
 * What each mode must find for each query, as indexes into {@link TEXTS}: `vehicle` shares a concept with the car text only, `car` a word, and `feline car` a
 * concept with the kitten text and both with the car text. Every other text is at right angles to the query, so it is no match.
 */
const EXPECTED: ReadonlyArray<{ query: string; mode: 'lexical' | 'semantic' | 'hybrid'; found: number[] }> = [
  { query: 'car', mode: 'lexical', found: [0] },
  { query: 'vehicle', mode: 'lexical', found: [] },
  { query: 'vehicle', mode: 'semantic', found: [0] },
  { query: 'vehicle', mode: 'hybrid', found: [0] },
  { query: 'feline car', mode: 'semantic', found: [0, 1] },
  { query: 'feline car', mode: 'hybrid', found: [0, 1] },
  { query: 'kitten', mode: 'hybrid', found: [1] },
  { query: 'release', mode: 'semantic', found: [2] },
  { query: 'database', mode: 'semantic', found: [] },
  { query: 'database', mode: 'hybrid', found: [] },
];

/** Checks one search's hits against {@link EXPECTED}: the same texts, each scoring above 0. */
function expectMatches(hits: ReadonlyArray<{ content: string; score: number }>, found: readonly number[], label: string): void {
  expect(hits.map((h) => h.content).sort(), label).toEqual(found.map((i) => TEXTS[i]).sort());
  for (const hit of hits) expect(hit.score, label).toBeGreaterThan(0);
}

export const faceChecks: ProviderCheck[] = checks([], {
  'X21 a tool-result part without isError is written with isError false, by appendTurn, appendTurns and replaceSuffix, and an operation retried with isError false is the same input':
    async (env) => {
      const p: Provider = await env.open();
      const session = await p.sessions.create({});
      const turn = await p.sessions.appendTurn({ sessionId: session.id, role: 'tool', parts: [RESULT], operationId: 'op-result' });
      expect(turn.parts).toEqual([{ ...RESULT, isError: false }]);
      expect((await p.sessions.turns(session.id))[0]!.parts).toEqual([{ ...RESULT, isError: false }]);
      const retried = await p.sessions.appendTurn({ sessionId: session.id, role: 'tool', parts: [{ ...RESULT, isError: false }], operationId: 'op-result' });
      expect(retried).toEqual(turn);
      const [batched] = await p.sessions.appendTurns(session.id, [{ role: 'tool', parts: [RESULT] }]);
      expect(batched!.parts).toEqual([{ ...RESULT, isError: false }]);
      const [replaced] = await p.sessions.replaceSuffix(session.id, { expected: [batched!.id], turns: [{ role: 'tool', parts: [RESULT] }] });
      expect(replaced!.parts).toEqual([{ ...RESULT, isError: false }]);
      const failed = await p.sessions.appendTurn({ sessionId: session.id, role: 'tool', parts: [{ ...RESULT, isError: true }] });
      expect(failed.parts[0]).toMatchObject({ isError: true });
    },
  'X22 an operationId reused with another input is an OperationConflictError, a ConflictError with retryable false; a stale syncVersion stays retryable': fresh(
    async (p) => {
      const item = await p.memory.write({ content: 'one', operationId: 'op' });
      const reused = await expectError(() => p.memory.write({ content: 'two', operationId: 'op' }), OperationConflictError, 'other input');
      expect(reused).toBeInstanceOf(ConflictError);
      expect(reused.retryable).toBe(false);
      const otherMethod = await expectError(() => p.sessions.create({ operationId: 'op' }), ConflictError, 'other method');
      expect(otherMethod.retryable).toBe(false);
      await p.memory.update(item.id, { content: 'three' });
      const stale = await expectError(() => p.memory.update(item.id, { content: 'four', syncVersion: 1 }), ConflictError, 'stale syncVersion');
      expect(stale).not.toBeInstanceOf(OperationConflictError);
      expect(stale.retryable).toBe(true);
    },
  ),
  'X23 memory recall returns only items that match, in every mode: a lexical match, or a semantic similarity above 0; no hit scores 0': embedding(
    conceptEmbedder,
    async (p) => {
      for (const content of TEXTS) await p.memory.write({ content });
      for (const { query, mode, found } of EXPECTED) {
        for (const order of ['relevance', 'recent'] as const) {
          expectMatches(await p.memory.recall({ query, mode, order, limit: 50 }), found, `${mode} ${order} ${query}`);
        }
      }
    },
  ),
  'X24 transcript search returns only turns that match, in every mode, as recall does; no hit scores 0': embedding(conceptEmbedder, async (p) => {
    const session = await p.sessions.create({});
    for (const content of TEXTS) await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content });
    for (const { query, mode, found } of EXPECTED) {
      for (const order of ['relevance', 'recent'] as const) {
        const hits = (await p.sessions.search({ query, mode, order, limit: 50, context: 0 })).map((h) => ({ content: h.turn.content, score: h.score }));
        expectMatches(hits, found, `${mode} ${order} ${query}`);
      }
    }
  }),
});
