import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { failAll, fails, head, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

interface Hit {
  id: string;
  kind: string;
  content: string;
  score: number;
  scope: string[];
}

describe('agentstate memory', () => {
  const db = tmp.path('memory.db');
  const ids: string[] = [];

  it('writes facts from an argument or stdin and prints their ids', () => {
    ids.push(ok(['memory', 'write', 'The user prefers dark mode in every editor', '--kind', 'preference', '--source', 'chat', '--db', db]).trim());
    ids.push(
      ok(['memory', 'write', '--file', '-', '--kind', 'fact', '--scope', 'project:web', '--db', db], { input: 'Deploys go to Cloudflare Workers' }).trim(),
    );
    const item = okJson(['memory', 'write', 'Releases happen on Tuesdays', '--kind', 'decision', '--db', db]);
    ids.push(item.id);
    expect(item).toMatchObject({ kind: 'decision', source: '', syncVersion: 1 });
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('recalls lexically with scores, newest first, filtered by kind and scope', () => {
    const all = okJson<Hit[]>(['memory', 'recall', '--mode', 'lexical', '--db', db]);
    expect(all.map((h) => h.id)).toEqual([...ids].reverse());
    expect(all.every((h) => h.score === 1)).toBe(true);
    expect(okJson<Hit[]>(['memory', 'recall', 'DEPLOY', '--mode', 'lexical', '--db', db]).map((h) => h.id)).toEqual([ids[1]]);
    expect(okJson<Hit[]>(['memory', 'recall', '--mode', 'lexical', '--kind', 'preference', '--kind', 'decision', '--db', db])).toHaveLength(2);
    expect(okJson<Hit[]>(['memory', 'recall', '--mode', 'lexical', '--scope', 'project:web', '--db', db]).map((h) => h.id)).toEqual([ids[1]]);
    expect(okJson<Hit[]>(['memory', 'recall', '--mode', 'lexical', '--limit', '1', '--db', db])).toHaveLength(1);
    const any = okJson<Hit[]>(['memory', 'recall', 'dark editor tuesdays', '--mode', 'lexical', '--match', 'any', '--order', 'relevance', '--db', db]);
    expect(any.map((h) => h.id).sort()).toEqual([ids[0], ids[2]].sort());
    expect(any.every((h) => h.score >= 0 && h.score <= 1)).toBe(true);
    const table = ok(['memory', 'recall', 'dark', '--mode', 'lexical', '--db', db]);
    expect(table).toMatch(/^SCORE\s+KIND\s+CREATED\s+CONTENT\s+ID\n1\.000\s+preference/);
    expect(table).toContain('(1 hit, lexical recall)');
  });

  it('lists facts newest first, as sessions list and skills list list theirs', () => {
    expect(okJson<Hit[]>(['memory', 'list', '--db', db]).map((h) => h.id)).toEqual([...ids].reverse());
    expect(okJson<Hit[]>(['memory', 'list', '--kind', 'preference', '--db', db]).map((h) => h.id)).toEqual([ids[0]]);
    expect(okJson<Hit[]>(['memory', 'list', '--scope', 'project:web', '--db', db]).map((h) => h.id)).toEqual([ids[1]]);
    const table = ok(['memory', 'list', '--limit', '2', '--db', db]).split('\n');
    expect(table[0]).toMatch(/^KIND +CREATED +CONTENT +ID$/);
    expect(table[1]).toContain('Releases happen on Tuesdays');
    expect(table[3]).toMatch(/^next page: --cursor \S+$/);
  });

  it('recalls by meaning with the offline embedder: hybrid by default for a query, best first', () => {
    const question = 'which color theme does the user like';
    expect(okJson<Hit[]>(['memory', 'recall', question, '--mode', 'lexical', '--db', db])).toEqual([]);
    const hybrid = okJson<Hit[]>(['memory', 'recall', question, '--mode', 'hybrid', '--limit', '2', '--db', db]);
    expect(hybrid[0]!.id).toBe(ids[0]);
    expect(hybrid.every((h) => h.score > 0 && h.score <= 1)).toBe(true);
    expect(hybrid[0]!.score).toBeGreaterThanOrEqual(hybrid[hybrid.length - 1]!.score);
    const table = ok(['memory', 'recall', question, '--db', db]);
    expect(table.split('\n')[1]).toContain('The user prefers dark mode in every editor');
    expect(table).toMatch(/\(\d hits?, hybrid recall\)/);
    const semantic = okJson<Hit[]>(['memory', 'recall', 'user likes a dark theme', '--mode', 'semantic', '--db', db]);
    expect(semantic[0]?.id).toBe(ids[0]);
  });

  it('shows and deletes a fact', () => {
    expect(ok(['memory', 'show', ids[2]!, '--db', db])).toContain('Releases happen on Tuesdays');
    expect(ok(['memory', 'delete', ids[2]!, '--db', db])).toBe(`deleted memory item ${ids[2]}\n`);
    expect(okJson<Hit[]>(['memory', 'recall', 'tuesdays', '--mode', 'lexical', '--db', db])).toEqual([]);
    expect(fails(1, ['memory', 'delete', ids[2]!, '--db', db])).toContain('not found');
    fails(1, ['memory', 'show', ids[2]!, '--db', db]);
  });

  it("shows and changes a scope's working memory: set, append, find and replace, a stale version refused, an earlier state read with --at", async () => {
    expect(ok(['memory', 'working', '--scope', 'user:ada', '--db', db])).toBe('(no working memory)\n');
    expect(okJson(['memory', 'working', '--scope', 'user:ada', '--db', db])).toBeNull();
    expect(ok(['memory', 'working', '--scope', 'user:ada', '--set', '# Ada\n- prefers tea', '--expected-version', '0', '--db', db])).toBe(
      'working memory user:ada at syncVersion 1\n',
    );
    const seq = head(db);
    ok(['memory', 'working', '--scope', 'user:ada', '--file', '-', '--db', db], { input: '# Ada\n- prefers coffee' });
    ok(['memory', 'working', '--scope', 'user:ada', '--append', '- lives in Oslo', '--db', db]);
    const doc = okJson<Hit & { syncVersion: number }>(['memory', 'working', '--scope', 'user:ada', '--find', 'coffee', '--replace', 'green tea', '--db', db]);
    expect(doc).toMatchObject({ content: '# Ada\n- prefers green tea\n- lives in Oslo', syncVersion: 4, kind: 'working-memory' });
    expect(ok(['memory', 'working', '--scope', 'user:ada', '--db', db])).toContain('- prefers green tea\n- lives in Oslo');
    expect(okJson<Hit>(['memory', 'working', '--scope', 'user:ada', '--at', String(seq), '--db', db]).content).toBe('# Ada\n- prefers tea');
    expect(okJson<Hit[]>(['memory', 'list', '--scope', 'user:ada', '--db', db])).toEqual([]);
    const before = head(db);
    expect(fails(1, ['memory', 'working', '--scope', 'user:ada', '--append', 'x', '--expected-version', '3', '--db', db])).toContain('version 4, not 3');
    expect(fails(1, ['memory', 'working', '--scope', 'user:ada', '--set', 'x'.repeat(100), '--max-tokens', '5', '--db', db])).toContain('over the limit of 5');
    await failAll(1, [
      ['memory', 'working', '--scope', 'user:ada', '--find', 'nowhere', '--replace', 'x', '--db', db],
      ['memory', 'working', '--scope', 'user:ada', '--set', 'a', '--append', 'b', '--db', db],
      ['memory', 'working', '--scope', 'user:ada', '--append', 'b', '--at', '1', '--db', db],
      ['memory', 'working', '--scope', 'user:ada', '--max-tokens', '5', '--db', db],
    ]);
    expect(head(db)).toBe(before);
  });

  it('refuses bad input with exit 1 and no event', async () => {
    const before = head(db);
    await failAll(1, [
      ['memory', 'write', '', '--db', db],
      ['memory', 'write', '--db', db],
      ['memory', 'write', 'a', '--file', '-', '--db', db],
      ['memory', 'recall', 'x', '--mode', 'telepathic', '--db', db],
      ['memory', 'recall', 'x', '--min-score', '2', '--db', db],
      ['memory', 'recall', 'x', '--limit', '0', '--db', db],
      ['memory', 'recall', 'x', '--limit', '10001', '--mode', 'lexical', '--db', db],
    ]);
    expect(head(db)).toBe(before);
  });
});
