import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ok as okProcess, okJson as okJsonProcess, tempDir } from './helpers.js';
import { cli, failAll, fails, head, ok, okJson } from './in-process.js';

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

  it('searches turns with the turns around each hit, as text or JSON, and refuses bad flags', () => {
    const text = ok(['sessions', 'search', 'rolling', '--mode', 'lexical', '--db', db]);
    expect(text).toContain(`session ${id} (Support chat)`);
    expect(text.indexOf('#1 user')).toBeLessThan(text.indexOf('> #2 assistant'));
    const hits = okJson<Array<{ turn: { seq: number }; before: unknown[]; after: Array<{ seq: number }> }>>([
      'sessions',
      'search',
      'deploy',
      '--mode',
      'lexical',
      '--role',
      'user',
      '--context',
      '2',
      '--db',
      db,
    ]);
    expect(hits.map((h) => h.turn.seq)).toEqual([1]);
    expect(hits[0]!.after.map((t) => t.seq)).toEqual([2, 3]);
    expect(okJson(['sessions', 'search', 'deploy', '--mode', 'lexical', '--role', 'tool', '--db', db])).toEqual([]);
    expect(fails(1, ['sessions', 'search', 'x', '--role', 'narrator', '--db', db])).toContain('roles');
  });

  it('assembles the context for the next model call within --max-tokens, as text or JSON, and refuses a bad budget', () => {
    type Window = { tokens: number; maxTokens: number; counter: string; entries: Array<{ kind: string; tokens: number; turn?: { seq: number } }> };
    const whole = okJson<Window>(['sessions', 'context', id, '--max-tokens', '1000', '--db', db]);
    expect(whole).toMatchObject({ maxTokens: 1000, counter: 'o200k_base' });
    expect(whole.entries.map((e) => [e.kind, e.turn?.seq])).toEqual([
      ['turn', 1],
      ['turn', 2],
      ['turn', 3],
    ]);
    expect(whole.tokens).toBe(whole.entries.reduce((sum, e) => sum + e.tokens, 0));
    const newest = whole.entries[2]!.tokens + whole.entries[1]!.tokens;
    const tight = okJson<Window>(['sessions', 'context', id, '--max-tokens', String(newest), '--db', db]);
    expect(tight.entries.map((e) => e.turn?.seq)).toEqual([2, 3]);
    const text = ok(['sessions', 'context', id, '--max-tokens', '1000', '--db', db]);
    expect(text).toContain(`${whole.tokens} of 1000 tokens (o200k_base)`);
    expect(text).toContain(`[${whole.entries[0]!.tokens}] #1 user`);
    ok(['memory', 'write', 'Deploys fail when the staging database is full', '--db', db]);
    const recalled = okJson<Window>(['sessions', 'context', id, '--max-tokens', '1000', '--recall', '2', '--db', db]);
    expect(recalled.entries.map((e) => e.kind)).toEqual(['memory', 'turn', 'turn', 'turn']);
    expect(fails(1, ['sessions', 'context', id, '--max-tokens', '0', '--db', db])).toContain('--max-tokens');
    expect(fails(1, ['sessions', 'context', id, '--db', db])).toContain('--max-tokens');
    expect(fails(1, ['sessions', 'context', 'nope', '--max-tokens', '10', '--db', db])).toContain('not found');
  });

  it('compacts a session through a turn named by seq or id, the summary inline or from stdin, and the context sends it in place of the turns it covers', () => {
    const own = tmp.path('compact.db');
    const session = ok(['sessions', 'create', '--db', own]).trim();
    for (const content of ['first question', 'first answer', 'second question']) ok(['sessions', 'append', session, '--content', content, '--db', own]);
    type Window = { entries: Array<{ kind: string; summary?: { text: string; through: string }; turn?: { id: string; seq: number } }> };
    const [, second] = okJson<Window>(['sessions', 'context', session, '--max-tokens', '1000', '--db', own]).entries;
    expect(ok(['sessions', 'compact', session, '--through', '2', '--summary', 'One question answered.', '--db', own])).toContain(
      `compacted session ${session} through turn ${second!.turn!.id}`,
    );
    const window = okJson<Window>(['sessions', 'context', session, '--max-tokens', '1000', '--db', own]);
    expect(window.entries.map((e) => [e.kind, e.summary?.text ?? e.turn?.seq])).toEqual([
      ['summary', 'One question answered.'],
      ['turn', 3],
    ]);
    expect(ok(['sessions', 'context', session, '--max-tokens', '1000', '--db', own])).toContain(
      `summary through turn ${second!.turn!.id}\n  One question answered.`,
    );
    const doc = okJson<{ id: string }>(['memory', 'working', '--set', 'Open question: none.', '--json', '--db', own]);
    expect(ok(['sessions', 'context', session, '--max-tokens', '1000', '--db', own])).toContain(`working memory ${doc.id}\n  Open question: none.`);
    const fromStdin = okJson<{ summary: { text: string; through: string; model: string } }>(
      ['sessions', 'compact', session, '--through', second!.turn!.id, '--file', '-', '--model', 'writer', '--db', own],
      { input: 'Said again.' },
    );
    expect(fromStdin.summary).toMatchObject({ text: 'Said again.', through: second!.turn!.id, model: 'writer' });
    expect(fails(1, ['sessions', 'compact', session, '--through', '9', '--summary', 'x', '--db', own])).toContain('not found');
    expect(fails(1, ['sessions', 'compact', session, '--through', '1', '--summary', '', '--db', own])).toContain('summary');
    expect(fails(1, ['sessions', 'compact', session, '--through', '1', '--db', own])).toContain('summary');
  });

  it('lists live sessions, oldest first, as a table or JSON', () => {
    const table = ok(['sessions', 'list', '--db', db]);
    expect(table.split('\n')[0]).toMatch(/^ID\s+CREATED\s+UPDATED\s+SCOPE\s+MODEL\s+TITLE$/);
    expect(table).toContain('Support chat');
    const list = okJson<Array<{ id: string; title: string }>>(['sessions', 'list', '--db', db]);
    expect(list.map((s) => s.title)).toEqual(['Support chat', 'Second']);
    expect(okJson(['sessions', 'list', '--limit', '1', '--offset', '1', '--db', db])).toHaveLength(1);
  });

  it('labels times as UTC, and prints them in the local zone with --local-time', () => {
    const [first] = okJson<Array<{ createdAt: string }>>(['sessions', 'list', '--db', db]);
    const utc = `${first!.createdAt.slice(0, 19).replace('T', ' ')}Z`;
    // Node reads TZ when the process starts: these runs are processes of their own.
    expect(okProcess(['sessions', 'list', '--db', db], { env: { TZ: 'Asia/Tokyo' } }).split('\n')[1]).toContain(`  ${utc}  `);
    const local = okProcess(['sessions', 'list', '--local-time', '--db', db], { env: { TZ: 'Asia/Tokyo' } }).split('\n')[1]!;
    const shown = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+09:00/.exec(local)?.[0];
    expect(shown).toBeDefined();
    expect(Date.parse(shown!.replace(' ', 'T'))).toBe(Date.parse(`${first!.createdAt.slice(0, 19)}Z`));
    // JSON keeps its ISO instants whatever the flag.
    expect(okJsonProcess(['sessions', 'list', '--local-time', '--db', db], { env: { TZ: 'Asia/Tokyo' } })[0].createdAt).toBe(first!.createdAt);
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
      ['sessions', 'create', '--metadata', '[1]', '--db', db],
      ['sessions', 'append', id, '--parts', '{not json', '--db', db],
      ['sessions', 'append', id, '--parts', '[{"type":"file","mediaType":"a/b"}]', '--db', db],
      ['sessions', 'show', id, '--last', '2', '--limit', '1', '--db', db],
      ['sessions', 'replace-suffix', id, '--turns', '[{"role":"robot","content":"x"}]', '--db', db],
      ['sessions', 'replace-suffix', id, '--expected', 'nope', '--turns', '[]', '--db', db],
    ]);
    expect(head(db)).toBe(before);
  });

  it('appends structured turns with --parts and --metadata, and shows tool calls, results, reasoning and files', () => {
    const chat = ok(['sessions', 'create', '--metadata', '{"app":"cli-test"}', '--db', db]).trim();
    const parts = [
      { type: 'reasoning', text: 'need the weather' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', callId: 'call_1', toolName: 'weather', input: { city: 'Oslo' } },
    ];
    const turn = okJson<{ content: string; parts: unknown[]; metadata: unknown }>([
      'sessions',
      'append',
      chat,
      '--role',
      'assistant',
      '--parts',
      JSON.stringify(parts),
      '--metadata',
      '{"model":"m1"}',
      '--db',
      db,
    ]);
    expect(turn).toMatchObject({ content: 'Checking.', parts, metadata: { model: 'm1' } });
    const results = [
      { type: 'tool-result', callId: 'call_1', toolName: 'weather', output: { sky: 'clear' }, isError: false },
      { type: 'file', mediaType: 'image/png', filename: 'map.png', data: 'iVBORw0K' },
    ];
    ok(['sessions', 'append', chat, '--role', 'tool', '--parts', JSON.stringify(results), '--db', db]);
    const text = ok(['sessions', 'show', chat, '--db', db]);
    expect(text).toContain('metadata:');
    expect(text).toContain('[reasoning]\n  | need the weather');
    expect(text).toContain('[tool call weather · call_1] {"city":"Oslo"}');
    expect(text).toContain('[tool result weather · call_1] {"sky":"clear"}');
    expect(text).toContain('[file image/png map.png] 8 base64 characters inline');
    const shown = okJson<{ session: { metadata: unknown }; turns: Array<{ parts: unknown[] }> }>(['sessions', 'show', chat, '--last', '1', '--db', db]);
    expect(shown.session.metadata).toEqual({ app: 'cli-test' });
    expect(shown.turns.map((t) => t.parts)).toEqual([results]);
  });

  it('removes the last turn, replaces the suffix and clears, each as one event', () => {
    const chat = ok(['sessions', 'create', '--db', db]).trim();
    for (const content of ['one', 'two', 'three']) ok(['sessions', 'append', chat, '--content', content, '--db', db]);
    const before = head(db);
    expect(ok(['sessions', 'remove-last', chat, '--db', db])).toBe(`removed #3 of session ${chat}\n`);
    const [two] = okJson<{ turns: Array<{ id: string }> }>(['sessions', 'show', chat, '--last', '1', '--db', db]).turns;
    const turns = JSON.stringify([
      { role: 'assistant', content: 'TWO' },
      { role: 'user', content: 'four' },
    ]);
    expect(ok(['sessions', 'replace-suffix', chat, '--expected', two!.id, '--turns', turns, '--db', db])).toBe(`added #4, #5 of session ${chat}\n`);
    expect(fails(1, ['sessions', 'replace-suffix', chat, '--expected', two!.id, '--turns', '[]', '--db', db])).toContain('ends with');
    const shown = okJson<{ turns: Array<{ content: string }> }>(['sessions', 'show', chat, '--db', db]);
    expect(shown.turns.map((t) => t.content)).toEqual(['one', 'TWO', 'four']);
    expect(okJson<unknown[]>(['sessions', 'clear', chat, '--db', db])).toHaveLength(3);
    expect(ok(['sessions', 'clear', chat, '--db', db])).toBe(`removed no turns of session ${chat}\n`);
    expect(head(db)).toBe(before + 3);
    expect(fails(1, ['sessions', 'remove-last', chat, '--db', db])).toContain('not found');
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
