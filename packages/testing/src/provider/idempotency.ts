/** I1–I8: idempotent writes by `operationId` and outcome evidence as its own event (docs/contract.md §4 and §7, docs/conformance.md). */
import type { EventSourcedProvider, LogEvent, Provider } from '@agentstate/core';
import { ConflictError, CorruptionError, EventTypes, NotFoundError, operationInputHash, STATE_STREAM, ValidationError } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError, expectInvalid } from '../suite/expect-error.js';
import { says, stateHead } from '../suite/fixtures.js';
import { checks, fresh, freshLog, type ProviderCheck } from '../suite/harness.js';

/** Every event of the `state` stream so far. */
const stateEvents = (p: EventSourcedProvider): Promise<LogEvent[]> => p.log.read({ stream: STATE_STREAM });

/** How many sessions, turns, skills and memory items are live: a retry must change none of it. */
async function census(p: Provider, sessionId: string): Promise<string> {
  const sessions = await p.sessions.list();
  const turns = await p.sessions.turns(sessionId).catch(() => []);
  const skills = await p.skills.list();
  return JSON.stringify([sessions, turns, skills, (await p.memory.recall({ limit: 100 })).map(({ score: _s, ...m }) => m)]);
}

/** One call of each write with an operation id, in turn, returning what each returned; run twice it must return the same. */
async function everyWrite(p: Provider, sessionId: string): Promise<unknown[]> {
  const results: unknown[] = [
    await p.sessions.create({ title: 'idem', operationId: 'op-create' }),
    await p.sessions.appendTurn({ sessionId, role: 'user', content: 'hello', operationId: 'op-turn' }),
    await p.skills.upsert({ slug: 'deploy', body: 'ship it', operationId: 'op-upsert' }),
    await p.skills.recordOutcome('deploy', { success: true, operationId: 'op-outcome' }),
    await p.memory.write({ content: 'the user prefers tea', operationId: 'op-write' }),
    await p.sessions.delete(sessionId, { operationId: 'op-delete-session' }),
  ];
  const item = results[4] as { id: string };
  results.push(await p.memory.delete(item.id, { operationId: 'op-delete-memory' }), await p.skills.delete('deploy', { operationId: 'op-delete-skill' }));
  return results;
}

/** The first calls, then the retries: equal results, and the stores as they were. */
async function retryEverything(first: Provider, again: (p: Provider) => Promise<Provider>): Promise<void> {
  const session = await first.sessions.create({ title: 'target' });
  const results = await everyWrite(first, session.id);
  const before = await census(first, session.id);
  const head = await stateHead(first);
  const p = await again(first);
  expect([await everyWrite(p, session.id), await census(p, session.id), await stateHead(p)]).toEqual([results, before, head]);
}

export const idempotencyChecks: ProviderCheck[] = checks([], {
  'I1 a write with an operationId carries operation { id, inputHash } in its event, the hash of the method and the validated input; one without carries none':
    freshLog(async (p) => {
      const session = await p.sessions.create({ title: 'plain' });
      await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'hi', operationId: 'op-1' });
      await p.skills.upsert({ slug: 'deploy', operationId: 'op-2' });
      await p.skills.recordOutcome('deploy', { success: false, operationId: 'op-3' });
      await p.skills.delete('deploy', { operationId: 'op-4' });
      const events = await stateEvents(p);
      expect(events[0]!.payload).not.toHaveProperty('operation');
      expect(events.slice(1).map((e) => (e.payload as { operation: unknown }).operation)).toEqual([
        { id: 'op-1', inputHash: operationInputHash('sessions.appendTurn', { sessionId: session.id, role: 'user', content: 'hi' }) },
        { id: 'op-2', inputHash: operationInputHash('skills.upsert', { slug: 'deploy' }) },
        { id: 'op-3', inputHash: operationInputHash('skills.recordOutcome', { success: false, idOrSlug: 'deploy' }) },
        { id: 'op-4', inputHash: operationInputHash('skills.delete', { idOrSlug: 'deploy' }) },
      ]);
      for (const bad of ['', 'x'.repeat(10_000)]) {
        await expectInvalid(() => p.memory.write({ content: 'c', operationId: bad }), 'operationId', JSON.stringify(bad).slice(0, 10));
        await expectError(() => p.sessions.delete(session.id, { operationId: bad }), ValidationError);
      }
      expect(await p.log.head(STATE_STREAM)).toBe(events.length);
    }),
  'I2 a retry with the same operationId and input returns the original result, even after the record changed, and appends nothing': fresh((p) =>
    retryEverything(p, async (q) => q),
  ),
  'I3 the same operationId with another input, or for another method, is a ConflictError and writes nothing': fresh(async (p) => {
    const first = await p.memory.write({ content: 'one', kind: 'fact', operationId: 'op' });
    const head = await stateHead(p);
    await expectError(() => p.memory.write({ content: 'two', kind: 'fact', operationId: 'op' }), ConflictError, 'other input');
    await expectError(() => p.memory.write({ content: 'one', kind: 'note', operationId: 'op' }), ConflictError, 'other field');
    await expectError(() => p.sessions.create({ operationId: 'op' }), ConflictError, 'other method');
    await expectError(() => p.memory.delete(first.id, { operationId: 'op' }), ConflictError, 'other method, same record');
    expect([(await p.memory.recall()).map((m) => m.content), await p.sessions.list(), await stateHead(p)]).toEqual([['one'], [], head]);
    // Key order and omitted optional fields do not change the input.
    expect(await p.memory.write({ kind: 'fact', content: 'one', operationId: 'op' })).toEqual(first);
  }),
  'I4 a retry is recognised after a restart, and by another provider on the same storage (as another process)': async (env) => {
    // Like B39, each phase runs when the factory has what it needs.
    if (env.caps.durable) await retryEverything(await env.open(), (p) => env.reopen(p));
    if (env.caps.sharedStorage) await retryEverything(await env.open(), (p) => env.openShared(p));
    if (!env.caps.durable && !env.caps.sharedStorage) await retryEverything(await env.open(), async (p) => p);
  },
  'I5 a write that fails records no operation: its retry runs again': fresh(async (p) => {
    const call = () => p.sessions.appendTurn({ sessionId: 'later', role: 'user', content: 'hi', operationId: 'op' });
    await expectError(call, NotFoundError);
    await p.sessions.create({ id: 'later' });
    const turn = await call();
    expect(turn).toMatchObject({ sessionId: 'later', seq: 1 });
    expect([await call(), await p.sessions.turns('later')]).toEqual([turn, [turn]]);
  }),
  'I6 recordOutcome appends skill.outcome_recorded { skill, increment }: one use, one win on success; replay gives the same skill': freshLog(async (p, env) => {
    const skill = await p.skills.upsert({ slug: 'deploy', body: 'ship' });
    const won = await p.skills.recordOutcome('deploy', { success: true });
    const lost = await p.skills.recordOutcome('deploy', { success: false });
    expect(won).toMatchObject({ uses: 1, wins: 1, version: skill.version, body: 'ship', syncVersion: 2 });
    expect(lost).toMatchObject({ uses: 2, wins: 1, version: skill.version, syncVersion: 3 });
    const events = (await stateEvents(p)).slice(1);
    expect(events.map((e) => e.type)).toEqual([EventTypes.SkillOutcomeRecorded, EventTypes.SkillOutcomeRecorded]);
    expect(events.map((e) => e.payload)).toEqual([
      { skill: won, increment: { uses: 1, wins: 1 } },
      { skill: lost, increment: { uses: 1, wins: 0 } },
    ]);
    expect(await (await env.replay(p.log)).skills.get('deploy')).toEqual(lost);
  }),
  'I7 operations survive snapshots, and a log that reuses an operation id does not fold (CorruptionError naming its seq)': freshLog(async (p, env) => {
    const item = await p.memory.write({ content: 'kept', operationId: 'op' });
    await p.saveSnapshot();
    const fromSnapshot = await env.replay(p.log);
    expect([await fromSnapshot.memory.write({ content: 'kept', operationId: 'op' }), await fromSnapshot.log.head(STATE_STREAM)]).toEqual([item, 1]);
    const [event] = await stateEvents(p);
    const forged = { ...(event!.payload as { item: { id: string } }) };
    forged.item = { ...forged.item, id: 'another-item' };
    const input = { stream: STATE_STREAM, type: EventTypes.MemoryWritten, schemaVersion: event!.schemaVersion, payload: forged };
    // A log that projects a bare append in its own transaction (PostgreSQL's) refuses what the fold refuses.
    const refused = await p.log.append(input).catch((error: unknown) => error);
    if (refused instanceof Error) {
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as Error).message).toContain('operation id "op" was already used');
      expect(await p.log.head(STATE_STREAM)).toBe(1);
      return;
    }
    for (const fromScratch of [true, false]) {
      const error = await expectError(() => env.replay(p.log, { fromScratch }), CorruptionError, `fromScratch ${fromScratch}`);
      expect(error.seq).toBe(2);
      expect(error.message).toContain('operation id "op" was already used');
    }
  }),
  'I8 the transcript operations (replaceSuffix, removeLastTurn, clear) with an operationId: a retry returns the first result even after the transcript changed; the same id with another suffix, other turns or another session is a ConflictError, even where the other input would apply':
    fresh(async (p) => {
      const { id } = await p.sessions.create({ id: 'chat' });
      const other = await p.sessions.create({ id: 'other' });
      const [a, b] = await p.sessions.appendTurns(id, [says('a'), says('b')]);
      const replaced = await p.sessions.replaceSuffix(id, { operationId: 'op-replace', expected: [b!.id], turns: [{ role: 'user', content: 'c' }] });
      const removed = await p.sessions.removeLastTurn(id, { operationId: 'op-remove' });
      await p.sessions.appendTurn({ sessionId: other.id, role: 'user', content: 'x' });
      const cleared = await p.sessions.clear(other.id, { operationId: 'op-clear' });
      const head = await stateHead(p);
      // Retries: the suffix `b` and the turn removed are gone, yet each answers as it first did.
      expect(await p.sessions.replaceSuffix(id, { operationId: 'op-replace', expected: [b!.id], turns: [{ role: 'user', content: 'c' }] })).toEqual(replaced);
      expect(await p.sessions.removeLastTurn(id, { operationId: 'op-remove' })).toEqual(removed);
      expect(await p.sessions.clear(other.id, { operationId: 'op-clear' })).toEqual(cleared);
      // All but `other turns` (whose suffix is gone) would apply to the transcripts as they are:
      // only the reused id refuses them.
      const reuses: [string, () => Promise<unknown>][] = [
        ['another suffix', () => p.sessions.replaceSuffix(id, { operationId: 'op-replace', expected: [a!.id], turns: [{ role: 'user', content: 'c' }] })],
        ['other turns', () => p.sessions.replaceSuffix(id, { operationId: 'op-replace', expected: [b!.id], turns: [{ role: 'user', content: 'd' }] })],
        ['nothing expected', () => p.sessions.replaceSuffix(id, { operationId: 'op-replace', expected: [], turns: [{ role: 'user', content: 'c' }] })],
        ['another session', () => p.sessions.removeLastTurn(other.id, { operationId: 'op-remove' })],
        ['another method', () => p.sessions.clear(id, { operationId: 'op-remove' })],
      ];
      await p.sessions.appendTurn({ sessionId: other.id, role: 'user', content: 'y' });
      const after = await stateHead(p);
      for (const [label, call] of reuses) await expectError(call, ConflictError, label);
      expect([(await p.sessions.turns(id)).map((t) => t.content), (await p.sessions.turns(other.id)).map((t) => t.content)]).toEqual([['a'], ['y']]);
      if (head !== undefined) expect(after).toBe(head + 1);
      expect(await stateHead(p)).toBe(after);
    }),
});
