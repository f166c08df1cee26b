/** B37, B43: reused ids, bad input and unknown keys are refused, and a refused call appends nothing. */
import type { AgentStateError, Provider } from '@agentstate/core';
import { ConflictError, LIMITS, skillId, STATE_STREAM, ValidationError } from '@agentstate/core';
import { expect } from 'vitest';
import type { ErrorClass } from '../suite/expect-error.js';
import { expectError } from '../suite/expect-error.js';
import { readModel, snapshotText } from '../suite/fixtures.js';
import type { CheckEnv, ProviderCheck } from '../suite/harness.js';
import { checks, fresh } from '../suite/harness.js';

/** Deliberately ill-typed input, as a JavaScript caller could pass it. */
// biome-ignore lint/suspicious/noExplicitAny: these checks pass what a JavaScript caller could, past the types.
type Loose = any;

const SESSION = 'sess-live';
const OTHER_SESSION = 'sess-other';
const DEAD_SESSION = 'sess-dead';
const TURN = 'turn-1';
/** The id the skill `deploy` of the global scope is created with: a caller may name it, and no other. */
const SKILL = skillId([], 'deploy');
const ITEM = 'mem-1';
const DEAD_ITEM = 'mem-dead';
const MAXED = 'maxed-out';
const NUL = 'a\u0000b';
const over = (limit: number): string => 'x'.repeat(limit + 1);

interface Case {
  label: string;
  call: (p: Provider) => Promise<unknown>;
  error: ErrorClass<AgentStateError>;
  /** The offending field's path (for B37 its first segment), when the input has one. */
  field: string | undefined;
}

const invalid = (label: string, field: string | undefined, call: (p: Provider) => Promise<unknown>): Case => ({ label, call, error: ValidationError, field });
const conflict = (label: string, call: (p: Provider) => Promise<unknown>): Case => ({ label, call, error: ConflictError, field: undefined });

const turn = (extra: Loose): Loose => ({ sessionId: SESSION, role: 'user', content: 'c', ...extra });
const skill = (extra: Loose): Loose => ({ slug: 'fresh', body: 'b', ...extra });
const item = (extra: Loose): Loose => ({ content: 'c', ...extra });

const CASES: Case[] = [
  invalid('create: title of the wrong type', 'title', (p) => p.sessions.create({ title: 42 } as Loose)),
  invalid('create: model of the wrong type', 'model', (p) => p.sessions.create({ model: {} } as Loose)),
  invalid('create: input that is not an object', undefined, (p) => p.sessions.create('title' as Loose)),
  invalid('create: empty id', 'id', (p) => p.sessions.create({ id: '' })),
  invalid('create: NUL in title', 'title', (p) => p.sessions.create({ title: NUL })),
  invalid('create: NUL in model', 'model', (p) => p.sessions.create({ model: NUL })),
  invalid('create: NUL in id', 'id', (p) => p.sessions.create({ id: NUL })),
  invalid('create: oversized title', 'title', (p) => p.sessions.create({ title: over(LIMITS.shortText) })),
  invalid('create: oversized model', 'model', (p) => p.sessions.create({ model: over(LIMITS.shortText) })),
  invalid('create: oversized id', 'id', (p) => p.sessions.create({ id: over(LIMITS.id) })),
  invalid('create: createdAt that is not an instant', 'createdAt', (p) => p.sessions.create({ createdAt: 'yesterday' })),
  invalid('create: createdAt of the wrong type', 'createdAt', (p) => p.sessions.create({ createdAt: 42 } as Loose)),
  conflict('create: reused session id', (p) => p.sessions.create({ id: SESSION })),
  conflict('create: id of a deleted session', (p) => p.sessions.create({ id: DEAD_SESSION })),
  invalid('appendTurn: unknown role', 'role', (p) => p.sessions.appendTurn(turn({ role: 'robot' }))),
  invalid('appendTurn: role in the wrong case', 'role', (p) => p.sessions.appendTurn(turn({ role: 'USER' }))),
  invalid('appendTurn: missing role', 'role', (p) => p.sessions.appendTurn(turn({ role: undefined }))),
  invalid('appendTurn: content of the wrong type', 'content', (p) => p.sessions.appendTurn(turn({ content: 42 }))),
  invalid('appendTurn: missing content', 'content', (p) => p.sessions.appendTurn(turn({ content: undefined }))),
  invalid('appendTurn: NUL in content', 'content', (p) => p.sessions.appendTurn(turn({ content: NUL }))),
  invalid('appendTurn: oversized content', 'content', (p) => p.sessions.appendTurn(turn({ content: over(LIMITS.longText) }))),
  invalid('appendTurn: empty sessionId', 'sessionId', (p) => p.sessions.appendTurn(turn({ sessionId: '' }))),
  invalid('appendTurn: sessionId of the wrong type', 'sessionId', (p) => p.sessions.appendTurn(turn({ sessionId: 42 }))),
  invalid('appendTurn: NUL in sessionId', 'sessionId', (p) => p.sessions.appendTurn(turn({ sessionId: NUL }))),
  invalid('appendTurn: NUL in id', 'id', (p) => p.sessions.appendTurn(turn({ id: NUL }))),
  invalid('appendTurn: createdAt that is not an instant', 'createdAt', (p) => p.sessions.appendTurn(turn({ createdAt: 'soon' }))),
  conflict('appendTurn: reused turn id', (p) => p.sessions.appendTurn(turn({ id: TURN }))),
  conflict("appendTurn: another session's turn id", (p) => p.sessions.appendTurn(turn({ sessionId: OTHER_SESSION, id: TURN }))),
  invalid('upsert: empty slug', 'slug', (p) => p.skills.upsert(skill({ slug: '' }))),
  invalid('upsert: missing slug', 'slug', (p) => p.skills.upsert(skill({ slug: undefined }))),
  invalid('upsert: slug of the wrong type', 'slug', (p) => p.skills.upsert(skill({ slug: 42 }))),
  invalid('upsert: NUL in slug', 'slug', (p) => p.skills.upsert(skill({ slug: NUL }))),
  invalid('upsert: oversized slug', 'slug', (p) => p.skills.upsert(skill({ slug: over(LIMITS.slug) }))),
  invalid('upsert: name of the wrong type', 'name', (p) => p.skills.upsert(skill({ name: 7 }))),
  invalid('upsert: NUL in name', 'name', (p) => p.skills.upsert(skill({ name: NUL }))),
  invalid('upsert: oversized name', 'name', (p) => p.skills.upsert(skill({ name: over(LIMITS.shortText) }))),
  invalid('upsert: body of the wrong type', 'body', (p) => p.skills.upsert(skill({ body: [] }))),
  invalid('upsert: NUL in body', 'body', (p) => p.skills.upsert(skill({ body: NUL }))),
  invalid('upsert: oversized body', 'body', (p) => p.skills.upsert(skill({ body: over(LIMITS.longText) }))),
  invalid('upsert: tags that are not an array', 'tags', (p) => p.skills.upsert(skill({ tags: 'ops' }))),
  invalid('upsert: a tag of the wrong type', 'tags', (p) => p.skills.upsert(skill({ tags: [1] }))),
  invalid('upsert: NUL in a tag', 'tags', (p) => p.skills.upsert(skill({ tags: ['ok', NUL] }))),
  invalid('upsert: oversized tag', 'tags', (p) => p.skills.upsert(skill({ tags: [over(LIMITS.shortText)] }))),
  invalid('upsert: too many tags', 'tags', (p) => p.skills.upsert(skill({ tags: Array.from({ length: LIMITS.tags + 1 }, (_, i) => `t${i}`) }))),
  invalid('upsert: NUL in check', 'check', (p) => p.skills.upsert(skill({ check: NUL }))),
  invalid('upsert: oversized check', 'check', (p) => p.skills.upsert(skill({ check: over(LIMITS.check) }))),
  invalid('upsert: negative uses', 'uses', (p) => p.skills.upsert(skill({ uses: -1 }))),
  invalid('upsert: fractional uses', 'uses', (p) => p.skills.upsert(skill({ uses: 1.5 }))),
  invalid('upsert: wins of the wrong type', 'wins', (p) => p.skills.upsert(skill({ wins: 'x' }))),
  invalid('upsert: negative syncVersion', 'syncVersion', (p) => p.skills.upsert(skill({ syncVersion: -1 }))),
  invalid('upsert: scope that is not a path', 'scope', (p) => p.skills.upsert(skill({ scope: 'global' }))),
  invalid('upsert: scope that is an object, not a path', 'scope', (p) => p.skills.upsert(skill({ scope: { project: 'web' } }))),
  invalid('upsert: scope label of the wrong type', 'scope', (p) => p.skills.upsert(skill({ scope: [42] }))),
  invalid('upsert: NUL in a scope label', 'scope', (p) => p.skills.upsert(skill({ scope: ['web', NUL] }))),
  invalid('write: NUL in a scope label', 'scope', (p) => p.memory.write(item({ scope: [NUL] }))),
  invalid('recall: NUL in a scope label', 'scope', (p) => p.memory.recall({ scope: [NUL] })),
  invalid('upsert: oversized scope label', 'scope', (p) => p.skills.upsert(skill({ scope: [over(LIMITS.shortText)] }))),
  invalid('upsert: NUL in id', 'id', (p) => p.skills.upsert(skill({ id: NUL }))),
  conflict("upsert: a new slug with another skill's id", (p) => p.skills.upsert(skill({ id: SKILL }))),
  invalid("upsert: a new skill with an id other than its scope and slug's", 'id', (p) => p.skills.upsert(skill({ id: 'skill-1' }))),
  invalid('recordOutcome: success of the wrong type', 'success', (p) => p.skills.recordOutcome('deploy', { success: 'yes' } as Loose)),
  invalid('recordOutcome: missing success', 'success', (p) => p.skills.recordOutcome('deploy', {} as Loose)),
  invalid('recordOutcome: empty slug', undefined, (p) => p.skills.recordOutcome('', { success: true })),
  invalid('skills.delete: empty slug', undefined, (p) => p.skills.delete('')),
  invalid('write: missing content', 'content', (p) => p.memory.write(item({ content: undefined }))),
  invalid('write: content of the wrong type', 'content', (p) => p.memory.write(item({ content: 42 }))),
  invalid('write: NUL in content', 'content', (p) => p.memory.write(item({ content: NUL }))),
  invalid('write: oversized content', 'content', (p) => p.memory.write(item({ content: over(LIMITS.longText) }))),
  invalid('write: kind of the wrong type', 'kind', (p) => p.memory.write(item({ kind: 7 }))),
  invalid('write: NUL in kind', 'kind', (p) => p.memory.write(item({ kind: NUL }))),
  invalid('write: oversized kind', 'kind', (p) => p.memory.write(item({ kind: over(LIMITS.shortText) }))),
  invalid('write: source of the wrong type', 'source', (p) => p.memory.write(item({ source: {} }))),
  invalid('write: NUL in source', 'source', (p) => p.memory.write(item({ source: NUL }))),
  invalid('write: oversized source', 'source', (p) => p.memory.write(item({ source: over(LIMITS.shortText) }))),
  invalid('write: oversized scope label', 'scope', (p) => p.memory.write(item({ scope: [over(LIMITS.shortText)] }))),
  invalid('write: empty id', 'id', (p) => p.memory.write(item({ id: '' }))),
  invalid('write: NUL in id', 'id', (p) => p.memory.write(item({ id: NUL }))),
  invalid('write: createdAt that is not an instant', 'createdAt', (p) => p.memory.write(item({ createdAt: 'soon' }))),
  conflict('write: reused item id', (p) => p.memory.write(item({ id: ITEM }))),
  conflict('write: id of a deleted item', (p) => p.memory.write(item({ id: DEAD_ITEM }))),
  // Reads refuse bad input the same way (and append nothing either).
  invalid('recall: query of the wrong type', 'query', (p) => p.memory.recall({ query: 42 } as Loose)),
  invalid('recall: NUL in query', 'query', (p) => p.memory.recall({ query: NUL })),
  invalid('recall: oversized query', 'query', (p) => p.memory.recall({ query: over(LIMITS.query) })),
  invalid('recall: negative limit', 'limit', (p) => p.memory.recall({ limit: -1 })),
  invalid('recall: kinds that are not an array', 'kinds', (p) => p.memory.recall({ kinds: 'fact' } as Loose)),
  invalid('recall: unknown mode', 'mode', (p) => p.memory.recall({ mode: 'telepathic' } as Loose)),
  invalid('recall: unknown order', 'order', (p) => p.memory.recall({ order: 'random' } as Loose)),
  invalid('recall: minScore above 1', 'minScore', (p) => p.memory.recall({ minScore: 2 })),
  invalid('search: query of the wrong type', undefined, (p) => p.skills.search(42 as Loose, 0)),
  invalid('search: NUL in query', undefined, (p) => p.skills.search(NUL, 0)),
  invalid('search: oversized query', undefined, (p) => p.skills.search(over(LIMITS.query), 0)),
  invalid('search: negative limit', 'limit', (p) => p.skills.search('x', -1)),
  invalid('turns: negative afterSeq', 'afterSeq', (p) => p.sessions.turns(SESSION, { afterSeq: -1 })),
  invalid('turns: limit of the wrong type', 'limit', (p) => p.sessions.turns(SESSION, { limit: 'x' } as Loose)),
  invalid('list: negative limit', 'limit', (p) => p.sessions.list({ limit: -1 })),
  // Numbers given as strings, and numbers past the safe integers, are refused rather than coerced.
  invalid('list: limit as a string', 'limit', (p) => p.sessions.list({ limit: '2' } as Loose)),
  invalid('list: fractional offset', 'offset', (p) => p.sessions.list({ offset: 1.5 })),
  invalid('list: options that are not an object', undefined, (p) => p.sessions.list('all' as Loose)),
  invalid('turns: afterSeq as a string', 'afterSeq', (p) => p.sessions.turns(SESSION, { afterSeq: '1' } as Loose)),
  invalid('turns: afterSeq past the safe integers', 'afterSeq', (p) => p.sessions.turns(SESSION, { afterSeq: 2 ** 53 })),
  invalid('search: limit as a string', 'limit', (p) => p.skills.search('x', { limit: '2' } as Loose)),
  invalid('recall: limit as a string', 'limit', (p) => p.memory.recall({ limit: '2' } as Loose)),
  invalid('recall: options that are not an object', undefined, (p) => p.memory.recall('deploys' as Loose)),
  invalid('sessions.get: id that is not a string', undefined, (p) => p.sessions.get(42 as Loose)),
  invalid('sessions.delete: id that is not a string', undefined, (p) => p.sessions.delete({} as Loose)),
  invalid('skills.get: key that is not a string', undefined, (p) => p.skills.get(42 as Loose)),
  invalid('skills.list: scope that is not an object', undefined, (p) => p.skills.list('alpha' as Loose)),
  invalid('memory.get: id that is not a string', undefined, (p) => p.memory.get(42 as Loose)),
  invalid('memory.delete: id that is not a string', undefined, (p) => p.memory.delete(null as Loose)),
  // Instants must exist and have a zone; no date is rolled over into the next month.
  invalid('create: createdAt on 30 February', 'createdAt', (p) => p.sessions.create({ createdAt: '2026-02-30' })),
  invalid('create: createdAt on 31 April, with a time', 'createdAt', (p) => p.sessions.create({ createdAt: '2026-04-31T10:00:00+02:00' })),
  invalid('appendTurn: createdAt at hour 24', 'createdAt', (p) => p.sessions.appendTurn(turn({ createdAt: '2026-01-01T24:00:00Z' }))),
  invalid('write: createdAt without a zone', 'createdAt', (p) => p.memory.write(item({ createdAt: '2026-01-01T10:00:00' }))),
  invalid('upsert: createdAt on 29 February of a common year', 'createdAt', (p) => p.skills.upsert(skill({ createdAt: '2027-02-29T00:00:00Z' }))),
  // Counters stay safe integers, and wins never exceed uses.
  invalid('upsert: uses past the safe integers', 'uses', (p) => p.skills.upsert(skill({ uses: 2 ** 53 }))),
  invalid('upsert: more wins than uses', 'wins', (p) => p.skills.upsert(skill({ uses: 1, wins: 2 }))),
  invalid('upsert: more wins than the stored uses', 'wins', (p) => p.skills.upsert({ slug: 'deploy', wins: 1 })),
  invalid('upsert: syncVersion past the safe integers', 'syncVersion', (p) => p.skills.upsert(skill({ syncVersion: 2 ** 53 }))),
  invalid('recordOutcome: uses already at the largest safe integer', 'uses', (p) => p.skills.recordOutcome(MAXED, { success: true })),
  invalid('recordOutcome: a failure with uses at the largest safe integer', 'uses', (p) => p.skills.recordOutcome(MAXED, { success: false })),
];

const THREAD = 'thread-1';

/** Every call of the provider that takes an options or input object, each given a key it does not know. */
const UNKNOWN_KEYS: Case[] = [
  invalid('sessions.create', 'titel', (p) => p.sessions.create({ title: 't', titel: 't' } as Loose)),
  invalid('sessions.list', 'projct', (p) => p.sessions.list({ projct: 'x' } as Loose)),
  invalid('sessions.update', 'model', (p) => p.sessions.update(SESSION, { title: 't', model: 'm' } as Loose)),
  invalid('sessions.appendTurn', 'contnet', (p) => p.sessions.appendTurn(turn({ contnet: 'c' }))),
  invalid('sessions.appendTurns: a turn', 'turns.0.sessionId', (p) => p.sessions.appendTurns(SESSION, [turn({})])),
  invalid('sessions.appendTurns: options', 'scope', (p) => p.sessions.appendTurns(SESSION, [{ role: 'user', content: 'c' }], { scope: [] } as Loose)),
  invalid('sessions.turns', 'after', (p) => p.sessions.turns(SESSION, { after: 0 } as Loose)),
  invalid('sessions.removeLastTurn', 'operationID', (p) => p.sessions.removeLastTurn(SESSION, { operationID: 'op' } as Loose)),
  invalid('sessions.clear', 'force', (p) => p.sessions.clear(SESSION, { force: true } as Loose)),
  invalid('sessions.replaceSuffix', 'append', (p) => p.sessions.replaceSuffix(SESSION, { expected: [], turns: [], append: true } as Loose)),
  invalid('sessions.replaceSuffix: a turn', 'turns.0.seq', (p) =>
    p.sessions.replaceSuffix(SESSION, { expected: [], turns: [{ role: 'user', content: 'c', seq: 9 } as Loose] }),
  ),
  invalid('sessions.delete', 'hard', (p) => p.sessions.delete(SESSION, { hard: true } as Loose)),
  invalid('sessions.search', 'sessionID', (p) => p.sessions.search({ query: 'hello', sessionID: SESSION } as Loose)),
  invalid('skills.get', 'project', (p) => p.skills.get('deploy', { project: 'web' } as Loose)),
  invalid('skills.getAny', 'project', (p) => p.skills.getAny('deploy', { project: 'web' } as Loose)),
  invalid('skills.list', 'project', (p) => p.skills.list({ project: 'web' } as Loose)),
  invalid('skills.search', 'project', (p) => p.skills.search('deploy', { project: 'web' } as Loose)),
  invalid('skills.recordOutcome', 'project', (p) => p.skills.recordOutcome('deploy', { success: true, project: 'web' } as Loose)),
  invalid('skills.delete', 'project', (p) => p.skills.delete('deploy', { project: 'web' } as Loose)),
  invalid('memory.write', 'tags', (p) => p.memory.write(item({ tags: ['t'] }))),
  invalid('memory.writeMany: an input', 'inputs.0.project', (p) => p.memory.writeMany([item({ project: 'web' })])),
  invalid('memory.writeMany: options', 'scope', (p) => p.memory.writeMany([item({})], { scope: ['web'] } as Loose)),
  invalid('memory.update', 'tags', (p) => p.memory.update(ITEM, { content: 'c', tags: [] } as Loose)),
  invalid('memory.getByKey', 'project', (p) => p.memory.getByKey('theme', { project: 'web' } as Loose)),
  invalid('memory.recall', 'project', (p) => p.memory.recall({ query: 'fact', project: 'web' } as Loose)),
  invalid('memory.delete', 'hard', (p) => p.memory.delete(ITEM, { hard: true } as Loose)),
  invalid('checkpoints.put', 'parent', (p) => p.checkpoints.put({ threadId: THREAD, checkpointId: '02', checkpoint: {}, parent: '01' } as Loose)),
  invalid('checkpoints.putWrites', 'ns', (p) => p.checkpoints.putWrites({ threadId: THREAD, checkpointId: '01', taskId: 'k', writes: [], ns: '' } as Loose)),
  invalid('checkpoints.putWrites: a write', 'writes.0.task', (p) =>
    p.checkpoints.putWrites({ threadId: THREAD, checkpointId: '01', taskId: 'k', writes: [{ idx: 0, channel: 'c', value: 1, task: 'k' } as Loose] }),
  ),
  invalid('checkpoints.get', 'checkpoint_id', (p) => p.checkpoints.get({ threadId: THREAD, checkpoint_id: '01' } as Loose)),
  invalid('checkpoints.list', 'thread_id', (p) => p.checkpoints.list({ thread_id: THREAD } as Loose)),
  invalid('checkpoints.deleteThread', 'hard', (p) => p.checkpoints.deleteThread(THREAD, { hard: true } as Loose)),
  invalid('namespaces', 'depth', (p) => p.namespaces({ depth: 1 } as Loose)),
];

/** Everything observable: the log head and snapshot bytes, or the read model. */
export async function observe(env: CheckEnv, p: Provider): Promise<string> {
  if (env.caps.eventSourced) {
    const es = env.eventSourced(p);
    return JSON.stringify({ head: await es.log.head(STATE_STREAM), snapshot: await snapshotText(es) });
  }
  return JSON.stringify(await readModel(p, [[]]));
}

export const validationChecks: ProviderCheck[] = checks([], {
  'B37 reused ids are ConflictError, bad input is ValidationError, and no failing call appends an event': fresh(async (p, env) => {
    await p.sessions.create({ id: SESSION, title: 'live' });
    await p.sessions.create({ id: OTHER_SESSION, title: 'other' });
    await p.sessions.create({ id: DEAD_SESSION, title: 'dead' });
    await p.sessions.delete(DEAD_SESSION);
    await p.sessions.appendTurn({ sessionId: SESSION, role: 'user', content: 'hello', id: TURN });
    await p.skills.upsert({ slug: 'deploy', body: 'ship it', id: SKILL });
    await p.skills.upsert({ slug: MAXED, uses: Number.MAX_SAFE_INTEGER, wins: Number.MAX_SAFE_INTEGER });
    await p.memory.write({ content: 'a fact', id: ITEM });
    await p.memory.write({ content: 'gone', id: DEAD_ITEM });
    await p.memory.delete(DEAD_ITEM);

    const before = await observe(env, p);
    for (const c of CASES) {
      const error = await expectError(() => c.call(p), c.error, c.label);
      if (c.field !== undefined) expect((error as ValidationError).field.split('.')[0], c.label).toBe(c.field);
      expect(await observe(env, p), `${c.label}: state changed`).toBe(before);
    }

    // Text exactly at a limit is accepted, and so are dates that exist.
    await p.sessions.create({ title: 'x'.repeat(LIMITS.shortText), id: 'i'.repeat(LIMITS.id) });
    expect((await p.sessions.create({ createdAt: '2024-02-29' })).createdAt).toBe('2024-02-29T00:00:00.000Z');
    expect((await p.sessions.create({ createdAt: '2026-03-01T00:30:00+01:00' })).createdAt).toBe('2026-02-28T23:30:00.000Z');
    await p.skills.upsert({ slug: 's'.repeat(LIMITS.slug), tags: Array.from({ length: LIMITS.tags }, (_, i) => `t${i}`) });
  }),
  'B43 an options or input object with an unknown key is a ValidationError naming the key and writes nothing; skills.upsert ignores unknown keys': fresh(
    async (p, env) => {
      await p.sessions.create({ id: SESSION, title: 'live' });
      await p.sessions.appendTurn({ sessionId: SESSION, role: 'user', content: 'hello', id: TURN });
      await p.skills.upsert({ slug: 'deploy', body: 'ship it' });
      await p.memory.write({ content: 'a fact', id: ITEM });
      await p.checkpoints.put({ threadId: THREAD, checkpointId: '01', checkpoint: {} });
      const cases = [...UNKNOWN_KEYS];
      if (env.caps.eventSourced) {
        const es = env.eventSourced(p);
        cases.push(invalid('purge', 'dryRun', () => es.purge({ id: ITEM, reason: 'r', dryRun: true } as Loose)));
        cases.push(invalid('retention.set', 'kind', () => es.retention.set({ record: 'memory', maxAge: '1d', kind: 'fact' } as Loose)));
        cases.push(invalid('at', 'sq', () => es.at({ seq: 1, sq: 5 } as Loose)));
        cases.push(invalid('diff', 'form', () => es.diff({ from: { seq: 0 }, to: { seq: 1 }, form: 1 } as Loose)));
        cases.push(invalid('diff: a point', 'to.sq', () => es.diff({ from: { seq: 0 }, to: { time: '2026-01-01', sq: 5 } } as Loose)));
      }

      const before = await observe(env, p);
      for (const c of cases) {
        expect((await expectError(() => c.call(p), ValidationError, c.label)).field, c.label).toBe(c.field);
        expect(await observe(env, p), `${c.label}: state changed`).toBe(before);
      }
      expect([(await p.skills.get('deploy')).deleted, await p.checkpoints.get({ threadId: THREAD, checkpointId: '02' })]).toEqual([false, undefined]);

      // A whole stored skill, unknown keys included, is an upsert input (docs/contract.md §4, "Skills").
      const skill = await p.skills.get('deploy');
      expect(await p.skills.upsert({ ...skill, body: 'ship it again', project: 'web' } as Loose)).toMatchObject({ id: skill.id, version: 2 });
    },
  ),
});
