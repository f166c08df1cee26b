/**
 * Pages over MCP: `recall`, `skill_search` and `session_read` answer with a
 * `nextCursor` when more matched, take it back as `cursor`, and refuse a
 * cursor of another call.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callError, connectInMemory, tempDir } from './helpers.js';

let client: Client;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir();
  client = await connectInMemory(['--db', tmp.db, '--scope', 'project:web', '--embedder', 'none']);
});

afterAll(async () => {
  await client?.close();
  tmp?.cleanup();
});

/** Calls a tool page by page, following `nextCursor`, and returns every item of `field`. */
async function follow(name: string, field: string, args: Record<string, unknown>): Promise<Array<{ id: string }>> {
  const out: Array<{ id: string }> = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages += 1) {
    const answer = await call(client, name, cursor === undefined ? args : { ...args, cursor });
    out.push(...answer[field]);
    cursor = answer.nextCursor;
    if (cursor === undefined) return out;
  }
  return expect.fail('paging did not end');
}

describe('pages over MCP', () => {
  it('recall, skill_search and session_read page with cursor and nextCursor', async () => {
    for (let i = 0; i < 5; i += 1) {
      await call(client, 'remember', { content: `deploy fact ${i}` });
      await call(client, 'skill_save', { slug: `deploy-${i}`, body: 'ship it' });
    }
    const { session } = await call(client, 'session_create', { title: 'paged' });
    for (let i = 0; i < 5; i += 1) await call(client, 'session_append_turn', { sessionId: session.id, role: 'user', content: `turn ${i}` });

    const all = await call(client, 'recall', { query: 'deploy', limit: 100 });
    expect(all.nextCursor).toBeUndefined();
    expect((await follow('recall', 'hits', { query: 'deploy', limit: 2 })).map((h) => h.id)).toEqual(all.hits.map((h: { id: string }) => h.id));
    const skills = await call(client, 'skill_search', { query: 'deploy', limit: 100 });
    expect((await follow('skill_search', 'skills', { query: 'deploy', limit: 2 })).map((s) => s.id)).toEqual(skills.skills.map((s: { id: string }) => s.id));
    const turns = await follow('session_read', 'turns', { sessionId: session.id, limit: 2 });
    expect(turns.map((t) => (t as unknown as { seq: number }).seq)).toEqual([1, 2, 3, 4, 5]);

    const cursor = (await call(client, 'recall', { query: 'deploy', limit: 1 })).nextCursor;
    expect(await callError(client, 'skill_search', { query: 'deploy', cursor })).toMatch(/cursor/);
    expect(await callError(client, 'recall', { query: 'fact', cursor })).toMatch(/cursor/);
  });
});
