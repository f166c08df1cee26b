/**
 * `--cursor` on every listing command (namespaces and transcript search included): the table ends with the cursor of
 * the next page, `--json` keeps stdout an array and names the cursor on
 * stderr, and following cursors reads everything once; a foreign cursor is
 * refused naming `cursor`.
 */
import { openSqlite } from '@agentstate/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { cli, fails, ok } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

const NEXT = /next page: --cursor ([A-Za-z0-9_-]+)/;

/** Runs a listing with --json page by page, following the cursor printed on stderr. */
// biome-ignore lint/suspicious/noExplicitAny: the items are compared whole with an unpaged listing.
function follow(args: readonly string[]): any[] {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages += 1) {
    const r = cli([...args, '--json', ...(cursor ? ['--cursor', cursor] : [])]);
    expect(r.code, r.stderr).toBe(0);
    out.push(...(JSON.parse(r.stdout) as unknown[]));
    cursor = NEXT.exec(r.stderr)?.[1];
    if (cursor === undefined) return out;
  }
  return expect.fail('paging did not end');
}

describe('agentstate pages', () => {
  const db = tmp.path('pages.db');

  it('pages sessions, skills, search and recall with --cursor', async () => {
    // Seeded through the library: the commands under test are the readers.
    const p = await openSqlite(db);
    for (let i = 0; i < 5; i += 1) {
      await p.sessions.create({ title: `chat ${i}` });
      await p.skills.upsert({ slug: `deploy-${i}`, body: 'ship it' });
      await p.memory.write({ content: `deploy fact ${i}` });
    }
    await p.close();
    const table = ok(['sessions', 'list', '--limit', '2', '--db', db]);
    const cursor = NEXT.exec(table)?.[1];
    expect(cursor).toBeDefined();
    expect(ok(['sessions', 'list', '--limit', '2', '--cursor', cursor!, '--db', db])).toContain('chat 2');

    const all = (args: string[]) => JSON.parse(ok([...args, '--json', '--db', db])) as Array<{ id: string }>;
    expect(follow(['sessions', 'list', '--limit', '3', '--db', db])).toEqual(all(['sessions', 'list']));
    expect(follow(['skills', 'list', '--limit', '3', '--db', db])).toEqual(all(['skills', 'list']));
    expect(follow(['skills', 'search', 'deploy', '--limit', '3', '--db', db])).toEqual(all(['skills', 'search', 'deploy']));
    const recalled = follow(['memory', 'recall', 'deploy', '--mode', 'lexical', '--limit', '3', '--db', db]);
    expect(recalled.map((h) => h.id)).toEqual(all(['memory', 'recall', 'deploy', '--mode', 'lexical']).map((h) => h.id));
    expect(recalled).toHaveLength(5);
  });

  it('pages a transcript; --json carries nextCursor beside the turns', async () => {
    const p = await openSqlite(db);
    const { id } = await p.sessions.create();
    for (let i = 0; i < 3; i += 1) await p.sessions.appendTurn({ sessionId: id, role: 'user', content: `turn ${i}` });
    await p.close();
    const page = JSON.parse(ok(['sessions', 'show', id, '--limit', '2', '--json', '--db', db])) as { turns: Array<{ seq: number }>; nextCursor: string };
    expect(page.turns.map((t) => t.seq)).toEqual([1, 2]);
    const rest = JSON.parse(ok(['sessions', 'show', id, '--limit', '2', '--cursor', page.nextCursor, '--json', '--db', db])) as {
      turns: Array<{ seq: number }>;
      nextCursor?: string;
    };
    expect(rest.turns.map((t) => t.seq)).toEqual([3]);
    expect(rest.nextCursor).toBeUndefined();
  });

  it('pages namespaces and a scoped transcript search with --cursor', async () => {
    const searched = tmp.path('search.db');
    const p = await openSqlite(searched);
    for (const scope of [['team'], ['team', 'a'], ['team', 'b'], ['other']]) {
      const { id } = await p.sessions.create({ scope });
      for (let i = 0; i < 2; i += 1) await p.sessions.appendTurn({ sessionId: id, role: 'user', content: `deploy ${scope.join(' ')} ${i}` });
    }
    await p.close();
    const table = ok(['namespaces', '--limit', '2', '--db', searched]);
    expect(table.split('\n').slice(0, 2)).toEqual(['other', 'team']);
    expect(NEXT.exec(table)?.[1]).toBeDefined();
    const scopes = JSON.parse(ok(['namespaces', '--json', '--db', searched]));
    expect(scopes).toEqual([['other'], ['team'], ['team', 'a'], ['team', 'b']]);
    expect(follow(['namespaces', '--limit', '3', '--db', searched])).toEqual(scopes);

    const search = ['sessions', 'search', 'deploy', '--mode', 'lexical', '--scope', 'team', '--descendants', '--context', '0', '--db', searched];
    const hits = JSON.parse(ok([...search, '--json']));
    expect(hits).toHaveLength(6);
    expect(follow([...search, '--limit', '4'])).toEqual(hits);
    const printed = ok([...search, '--limit', '2']);
    const cursor = NEXT.exec(printed)?.[1];
    expect(cursor).toBeDefined();
    // The cursor resumes only the search that printed it: without --descendants it is another query.
    expect(fails(1, ['sessions', 'search', 'deploy', '--mode', 'lexical', '--scope', 'team', '--cursor', cursor!, '--db', searched])).toMatch(
      /cursor of another query/,
    );
  });

  it('refuses a cursor of another listing, naming cursor', () => {
    const cursor = NEXT.exec(ok(['skills', 'list', '--limit', '1', '--db', db]))?.[1];
    expect(fails(1, ['sessions', 'list', '--cursor', cursor!, '--db', db])).toMatch(/cursor/);
    expect(fails(1, ['memory', 'recall', 'deploy', '--cursor', 'garbage!', '--db', db])).toMatch(/invalid cursor/);
  });
});
