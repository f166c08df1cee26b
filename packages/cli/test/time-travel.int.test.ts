/** `--at` on read commands, `agentstate diff` and `agentstate retention` against a real SQLite file. */
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { fails, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('agentstate time travel, diff and retention', () => {
  const db = tmp.path('lifecycle.db');
  let factId = '';
  let sessionId = '';

  it('reads every read command at a seq or an instant with --at', () => {
    factId = okJson(['memory', 'write', 'the first version', '--kind', 'scratch', '--db', db]).id;
    ok(['memory', 'update', factId, '--content', 'the second version', '--db', db]);
    sessionId = okJson(['sessions', 'create', '--title', 'chat', '--db', db]).id;
    ok(['sessions', 'append', sessionId, '--role', 'user', '--content', 'hello', '--db', db]);
    ok(['skills', 'upsert', 'deploy', '--body', 'ship it', '--db', db]);

    expect(okJson(['memory', 'show', factId, '--at', '1', '--db', db]).content).toBe('the first version');
    expect(okJson(['memory', 'show', factId, '--db', db]).content).toBe('the second version');
    expect(okJson(['memory', 'recall', '--at', '0', '--db', db])).toEqual([]);
    expect(okJson(['sessions', 'list', '--at', '2', '--db', db])).toEqual([]);
    expect(okJson(['sessions', 'show', sessionId, '--at', '3', '--db', db]).turns).toEqual([]);
    expect(okJson(['sessions', 'show', sessionId, '--at', '4', '--db', db]).turns).toHaveLength(1);
    expect(okJson(['sessions', 'context', sessionId, '--max-tokens', '100', '--at', '3', '--db', db]).entries).toEqual([]);
    expect(okJson(['sessions', 'context', sessionId, '--max-tokens', '100', '--at', '4', '--db', db]).entries).toHaveLength(1);
    expect(okJson(['sessions', 'search', 'hello', '--mode', 'lexical', '--at', '3', '--db', db])).toEqual([]);
    expect(okJson(['skills', 'list', '--at', '4', '--db', db])).toEqual([]);
    expect(okJson(['skills', 'search', 'ship', '--at', '5', '--db', db])).toHaveLength(1);
    expect(fails(1, ['skills', 'show', 'deploy', '--at', '4', '--db', db])).toMatch(/not found/);
    expect(okJson(['namespaces', '--at', '0', '--db', db])).toEqual([]);
    // An instant far ahead is the head; one before everything is the empty state.
    expect(okJson(['memory', 'show', factId, '--at', '2999-01-01T00:00:00Z', '--db', db]).content).toBe('the second version');
    expect(okJson(['memory', 'recall', '--at', '2000-01-01', '--db', db])).toEqual([]);
  });

  it('refuses a point beyond the head or not an instant, with exit code 1', () => {
    expect(fails(1, ['memory', 'recall', '--at', '99', '--db', db])).toMatch(/beyond the head/);
    expect(fails(1, ['memory', 'recall', '--at', 'yesterday', '--db', db])).toMatch(/time/);
  });

  it('prints the diff of two points, as lines or JSON', () => {
    const diff = okJson(['diff', '--from', '1', '--to', '5', '--db', db]);
    expect(diff.memory.changed.map((c: { before: { content: string }; after: { content: string } }) => [c.before.content, c.after.content])).toEqual([
      ['the first version', 'the second version'],
    ]);
    expect([diff.sessions.created.length, diff.turns.created.length, diff.skills.created.length]).toEqual([1, 1, 1]);
    const text = ok(['diff', '--from', '0', '--db', db]);
    expect(text).toMatch(/^from seq 0 .* to seq 5 /);
    expect(text).toContain(`+ memory ${factId} the second version`);
    expect(text).toContain('+ skills ');
    expect(ok(['diff', '--from', '5', '--to', '5', '--db', db])).toContain('(no changes)');
  });

  it('sets, lists, applies and removes retention policies', () => {
    expect(okJson(['retention', 'set', '--record', 'memory', '--kind', 'scratch', '--max-age', '1ms', '--db', db]).id).toBe('memory:scratch@*');
    expect(okJson(['retention', 'list', '--db', db]).map((p: { id: string }) => p.id)).toEqual(['memory:scratch@*']);
    expect(okJson(['retention', 'list', '--at', '1', '--db', db])).toEqual([]);
    // Expired before any sweep: invisible to reads.
    expect(fails(1, ['memory', 'show', factId, '--db', db])).toMatch(/retention/);
    expect(okJson(['retention', 'apply', '--db', db])).toEqual({ sessions: 0, turns: 0, skills: 0, memory: 1 });
    expect(ok(['retention', 'apply', '--db', db])).toBe('swept 0 sessions, 0 turns, 0 skills, 0 memory items\n');
    expect(ok(['retention', 'list', '--db', db])).toContain('memory:scratch@*');
    expect(ok(['retention', 'remove', 'memory:scratch@*', '--db', db])).toBe('removed retention policy memory:scratch@*\n');
    expect(ok(['retention', 'list', '--db', db])).toBe('(no retention policies)\n');
    expect(fails(1, ['retention', 'set', '--record', 'memory', '--max-age', '1 day', '--db', db])).toMatch(/max-?[aA]ge/);
    expect(okJson(['retention', 'set', '--record', 'turn', '--max-age', '1d', '--action', 'purge', '--db', db])).toMatchObject({
      id: 'turn@*',
      action: 'purge',
    });
    expect(okJson(['retention', 'apply', '--db', db])).toEqual({ sessions: 0, turns: 0, skills: 0, memory: 0 });
    expect(okJson(['verify', '--db', db]).ok).toBe(true);
  });
});
