import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, failAll, fails, head, ok, okJson, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('agentstate sessions', () => {
  const db = tmp.path('sessions.db');
  let id = '';

  it('creates a session and prints its id', () => {
    id = ok(['sessions', 'create', '--title', 'Support chat', '--model', 'gpt-4.1', '--db', db]).trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const created = okJson(['sessions', 'create', '--title', 'Second', '--db', db]);
    expect(created).toMatchObject({ title: 'Second', model: '', syncVersion: 1, deleted: false });
  });

  it('appends turns from --content, --file and stdin', () => {
    expect(ok(['sessions', 'append', id, '--content', 'Deploy is failing', '--db', db])).toContain('appended turn #1 (user)');
    const turn = okJson(['sessions', 'append', id, '--role', 'assistant', '--file', '-', '--db', db], { input: 'Rolling back.\nDone.' });
    expect(turn).toMatchObject({ seq: 2, role: 'assistant', content: 'Rolling back.\nDone.', sessionId: id });
    ok(['sessions', 'append', id, '--role', 'tool', '--content', 'ok', '--db', db]);
  });

  it('lists live sessions, oldest first, as a table or JSON', () => {
    const table = ok(['sessions', 'list', '--db', db]);
    expect(table.split('\n')[0]).toMatch(/^ID\s+CREATED\s+UPDATED\s+SCOPE\s+MODEL\s+TITLE$/);
    expect(table).toContain('Support chat');
    const list = okJson<Array<{ id: string; title: string }>>(['sessions', 'list', '--db', db]);
    expect(list.map((s) => s.title)).toEqual(['Support chat', 'Second']);
    expect(okJson(['sessions', 'list', '--limit', '1', '--offset', '1', '--db', db])).toHaveLength(1);
  });

  it('shows a transcript in seq order, with --after-seq and --limit', () => {
    const text = ok(['sessions', 'show', id, '--db', db]);
    expect(text).toContain('title:');
    expect(text.indexOf('#1 user')).toBeLessThan(text.indexOf('#2 assistant'));
    expect(text).toContain('  Rolling back.\n  Done.');
    const page = okJson<{ session: { id: string }; turns: Array<{ seq: number }> }>(['sessions', 'show', id, '--after-seq', '1', '--limit', '1', '--db', db]);
    expect(page.session.id).toBe(id);
    expect(page.turns.map((t) => t.seq)).toEqual([2]);
  });

  it('deletes a session; a second delete is not found', () => {
    expect(ok(['sessions', 'delete', id, '--db', db])).toContain(`deleted session ${id}`);
    expect(fails(1, ['sessions', 'delete', id, '--db', db])).toBe(`agentstate: session not found: ${id}`);
    expect(fails(1, ['sessions', 'show', id, '--db', db])).toContain('not found');
    expect(okJson(['sessions', 'list', '--db', db])).toHaveLength(1);
  });

  it('refuses bad input with exit 1, one line, and no event', async () => {
    const before = head(db);
    const [live] = okJson<Array<{ id: string }>>(['sessions', 'list', '--db', db]);
    const id = live!.id;
    await failAll(1, [
      ['sessions', 'append', id, '--role', 'robot', '--content', 'x', '--db', db],
      ['sessions', 'append', id, '--db', db],
      ['sessions', 'append', id, '--content', 'a', '--file', '-', '--db', db],
      ['sessions', 'append', id, '--file', tmp.path('missing.txt'), '--db', db],
      ['sessions', 'append', 'no-such-session', '--content', 'x', '--db', db],
      ['sessions', 'show', id, '--limit', 'ten', '--db', db],
      ['sessions', 'show', id, '--after-seq', '-1', '--db', db],
      ['sessions', 'create', '--id', id, '--db', db],
      ['sessions', 'create', '--title', 'x'.repeat(1001), '--db', db],
    ]);
    expect(head(db)).toBe(before);
  });

  it('never creates a database to read from', () => {
    const missing = tmp.path('missing.db');
    expect(fails(1, ['sessions', 'list', '--db', missing])).toContain('no agentstate database at');
    expect(existsSync(missing)).toBe(false);
  });

  it('does not create a database for a refused write', () => {
    const fresh = tmp.path('fresh.db');
    fails(1, ['sessions', 'create', '--title', 'x'.repeat(1001), '--db', fresh]);
    expect(existsSync(fresh)).toBe(false);
    expect(cli(['sessions', 'create', '--db', fresh]).code).toBe(0);
  });
});
