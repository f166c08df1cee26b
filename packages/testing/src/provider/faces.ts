/** X21–X26: what the faces and adapters rely on, `sessions.update`, and scopes passed as an option (docs/contract.md §2–§7). */
import { ConflictError, EventTypes, NotFoundError, OperationConflictError, type Provider, STATE_STREAM, ValidationError } from '@agentstate/core';
import { expect } from 'vitest';
import { conceptEmbedder } from '../suite/concept-embedder.js';
import { expectError } from '../suite/expect-error.js';
import { readExport } from '../suite/log-cut.js';
import { checks, embedding, fresh, freshLog, type ProviderCheck } from '../suite/harness.js';

/** A tool result as the AI SDK and OpenAI shape it: no `isError`. */
const RESULT = { type: 'tool-result', callId: 'call_1', toolName: 'weather', output: { temperature: 21 } } as const;

/** Texts of the recall and search checks: one per concept of the concept embedder, and one of none. */
const TEXTS = ['my car makes a noise', 'the kitten sleeps all day', 'deploy on friday', 'zyzzyva'] as const;

/**
 * What each mode must find for each query, as indexes into {@link TEXTS}: `vehicle` shares a
 * concept with the car text only, `car` a word, and `feline car` a concept with the kitten text and
 * both with the car text. Every other text is at right angles to the query, so it is no match.
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
      const fixed = [{ ...RESULT, isError: false }];
      const turn = await p.sessions.appendTurn({ sessionId: session.id, role: 'tool', parts: [RESULT], operationId: 'op-result' });
      expect([turn.parts, (await p.sessions.turns(session.id))[0]!.parts]).toEqual([fixed, fixed]);
      expect(await p.sessions.appendTurn({ sessionId: session.id, role: 'tool', parts: fixed, operationId: 'op-result' })).toEqual(turn);
      const [batched] = await p.sessions.appendTurns(session.id, [{ role: 'tool', parts: [RESULT] }]);
      const [replaced] = await p.sessions.replaceSuffix(session.id, { expected: [batched!.id], turns: [{ role: 'tool', parts: [RESULT] }] });
      expect([batched!.parts, replaced!.parts]).toEqual([fixed, fixed]);
      const failed = await p.sessions.appendTurn({ sessionId: session.id, role: 'tool', parts: [{ ...RESULT, isError: true }] });
      expect(failed.parts[0]).toMatchObject({ isError: true });
    },
  'X22 an operationId reused with another input is an OperationConflictError, a ConflictError with retryable false; a stale syncVersion stays retryable': fresh(
    async (p) => {
      const item = await p.memory.write({ content: 'one', operationId: 'op' });
      const reused = await expectError(() => p.memory.write({ content: 'two', operationId: 'op' }), OperationConflictError, 'other input');
      const otherMethod = await expectError(() => p.sessions.create({ operationId: 'op' }), ConflictError, 'other method');
      expect([reused instanceof ConflictError, reused.retryable, otherMethod.retryable]).toEqual([true, false, false]);
      await p.memory.update(item.id, { content: 'three' });
      const stale = await expectError(() => p.memory.update(item.id, { content: 'four', syncVersion: 1 }), ConflictError, 'stale syncVersion');
      expect([stale instanceof OperationConflictError, stale.retryable]).toEqual([false, true]);
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
  'X25 sessions.update changes title, metadata and scope in one session.updated event; refused updates append none': freshLog(async (p, env) => {
    const session = await p.sessions.create({ title: 'draft', model: 'm', metadata: { a: 1 }, scope: ['users', 'u1'] });
    await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'hello' });
    const stored = await p.sessions.get(session.id);
    const changes = { title: 'Trip to Lisbon', metadata: { b: 2 }, scope: ['users', 'u2'] };
    const updated = await p.sessions.update(session.id, { ...changes, syncVersion: stored.syncVersion });
    expect(updated).toMatchObject({ id: session.id, ...changes, model: 'm', createdAt: session.createdAt, syncVersion: stored.syncVersion + 1 });
    expect([updated.updatedAt >= stored.updatedAt, await p.sessions.get(session.id)]).toEqual([true, updated]);
    // Omitted fields stay; the session is listed in its new scope only, its transcript kept.
    const renamed = await p.sessions.update(session.id, { title: 'Lisbon' });
    expect(renamed).toMatchObject({ title: 'Lisbon', metadata: { b: 2 }, scope: ['users', 'u2'], syncVersion: updated.syncVersion + 1 });
    expect((await p.sessions.list({ scope: ['users', 'u2'] })).map((s) => s.id)).toEqual([session.id]);
    expect([await p.sessions.list({ scope: ['users', 'u1'] }), (await p.sessions.turns(session.id)).map((t) => t.content)]).toEqual([[], ['hello']]);

    const head = await p.log.head(STATE_STREAM);
    await expectError(() => p.sessions.update(session.id, { title: 'stale', syncVersion: stored.syncVersion }), ConflictError);
    await expectError(() => p.sessions.update(session.id, { model: 'other' } as never), ValidationError);
    await expectError(() => p.sessions.update(session.id, { title: 'x'.repeat(100_000) }), ValidationError);
    await expectError(() => p.sessions.update('missing', { title: 'x' }), NotFoundError);
    expect(await p.log.head(STATE_STREAM)).toBe(head);

    const events = await p.log.read({ stream: STATE_STREAM });
    expect(events.filter((e) => e.type === EventTypes.SessionUpdated).map((e) => e.payload)).toEqual([{ session: updated }, { session: renamed }]);
    const types = (await p.history(session.id)).map((v) => v.type);
    expect(types).toEqual([EventTypes.SessionCreated, EventTypes.TurnAppended, EventTypes.SessionUpdated, EventTypes.SessionUpdated]);
    expect(await (await env.replay(p.log, { fromScratch: true })).sessions.get(session.id)).toEqual(renamed);
    // An export carries the updates: read back, the session is the updated one.
    expect((await readExport(p.log)).sessions).toEqual([renamed]);
    // A retry under the same operation id answers with the first result; a deleted session is not updated.
    const once = await p.sessions.update(session.id, { title: 'once', operationId: 'op-update-session' });
    expect(await p.sessions.update(session.id, { title: 'once', operationId: 'op-update-session' })).toEqual(once);
    await p.sessions.delete(session.id);
    await expectError(() => p.sessions.update(session.id, { title: 'gone' }), NotFoundError);
    // A purge erases the titles every update event carried.
    await p.purge({ id: session.id, reason: 'test' });
    expect((await p.log.read({ stream: STATE_STREAM })).map((e) => JSON.stringify(e.payload)).join('\n')).not.toContain('Lisbon');
  }),
  'X26 a scope is passed as an option; a scope passed positionally is a ValidationError and writes nothing': fresh(async (p) => {
    const web = await p.skills.upsert({ slug: 'deploy', body: 'web', scope: ['web'] });
    await p.skills.upsert({ slug: 'deploy', body: 'global' });
    await p.skills.upsert({ slug: 'lint', body: 'api', scope: ['web', 'api'] });
    const item = await p.memory.write({ content: 'dark mode', key: 'theme', scope: ['users', 'u1'] });
    const global = await p.memory.write({ content: 'light mode', key: 'theme' });

    expect((await p.skills.list({ scope: ['web'] })).map((s) => s.body)).toEqual(['web']);
    expect((await p.skills.list({ scope: ['web'], includeDescendants: true })).map((s) => s.body)).toEqual(['web', 'api']);
    expect((await p.skills.list()).map((s) => s.body)).toEqual(['global']);
    expect([await p.skills.get('deploy', { scope: ['web'] }), await p.skills.get('deploy', { scope: ['web', 'api'] })]).toEqual([web, web]);
    expect((await p.skills.getAny('deploy', { scope: ['web'] })).id).toBe(web.id);
    expect([await p.memory.getByKey('theme', { scope: ['users', 'u1'] }), await p.memory.getByKey('theme')]).toEqual([item, global]);
    await expectError(() => p.memory.getByKey('theme', { scope: ['users'] }), NotFoundError);
    await expectError(() => p.skills.list({ scope: 'web' as never }), ValidationError);
    // A scope as an argument of its own is refused, never read as options.
    await expectError(() => p.skills.list(['web'] as never), ValidationError);
    await expectError(() => p.skills.get('deploy', ['web'] as never), ValidationError);
    await expectError(() => p.skills.getAny('deploy', ['web'] as never), ValidationError);
    await expectError(() => p.memory.getByKey(['users', 'u1'] as never, 'theme' as never), ValidationError);
    await expectError(() => p.skills.delete('lint', ['web', 'api'] as never), ValidationError);
    expect((await p.skills.get('lint', { scope: ['web', 'api'] })).deleted).toBe(false);

    expect(await p.skills.delete('deploy', { scope: ['web'] })).toMatchObject({ id: web.id, deleted: true });
    expect(await p.skills.delete('lint', { scope: ['web', 'api'] })).toMatchObject({ body: 'api', deleted: true });
    expect(await p.skills.delete('deploy')).toMatchObject({ body: 'global', deleted: true });
  }),
});
