/**
 * Browsing over MCP: `namespaces`, `session_list` with descendants and
 * cursors, and `search_sessions`, against servers (in-process, over the
 * SDK's in-memory transport) sharing one database file: one bound to `team` that allows
 * subscopes, one bound to `team` that does not, one bound to `team/a`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callError, connectInMemory, tempDir } from './helpers.js';

let open: Client;
let closed: Client;
let inner: Client;
let tmp: ReturnType<typeof tempDir>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  tmp = tempDir();
  const base = ['--db', tmp.db, '--embedder', 'none'];
  open = await connectInMemory([...base, '--scope', 'team', '--allow-subscopes']);
  closed = await connectInMemory([...base, '--scope', 'team']);
  inner = await connectInMemory([...base, '--scope', 'team/a']);
  for (const [name, scope] of [
    ['top', []],
    ['a', ['a']],
    ['ab', ['a', 'b']],
    ['c', ['c']],
  ] as const) {
    const { session } = await call(open, 'session_create', { title: name, scope });
    ids[name] = session.id;
    for (let i = 0; i < 3; i += 1) {
      await call(open, 'session_append_turn', { sessionId: session.id, role: i % 2 === 0 ? 'user' : 'assistant', content: `deploy ${name} step ${i}` });
    }
  }
  await call(inner, 'remember', { content: 'inner only' });
});

afterAll(async () => {
  await Promise.all([open?.close(), closed?.close(), inner?.close()]);
  tmp?.cleanup();
});

/** Calls a tool page by page, following `nextCursor`, and returns every item of `field`. */
// biome-ignore lint/suspicious/noExplicitAny: the items are compared whole with an unpaged answer.
async function follow(client: Client, name: string, field: string, args: Record<string, unknown>): Promise<any[]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages += 1) {
    const answer = await call(client, name, cursor === undefined ? args : { ...args, cursor });
    out.push(...answer[field]);
    cursor = answer.nextCursor;
    if (cursor === undefined) return out;
  }
  return expect.fail('paging did not end');
}

describe('namespaces', () => {
  it('lists the scopes under the server scope, relative to it, paged by cursor', async () => {
    const all = await call(open, 'namespaces');
    expect(all).toEqual({ scopes: [[], ['a'], ['a', 'b'], ['c']] });
    expect(await follow(open, 'namespaces', 'scopes', { limit: 1 })).toEqual(all.scopes);
    expect((await call(open, 'namespaces', { maxDepth: 1 })).scopes).toEqual([[], ['a'], ['c']]);
    expect((await call(open, 'namespaces', { prefix: ['a'] })).scopes).toEqual([['a'], ['a', 'b']]);
    expect((await call(inner, 'namespaces')).scopes).toEqual([[]]);
    const cursor = (await call(open, 'namespaces', { limit: 1 })).nextCursor;
    expect(await callError(open, 'namespaces', { prefix: ['a'], cursor })).toMatch(/^invalid: invalid cursor: cursor of another query/);
  });

  it('stays within the operator scope policy', async () => {
    // Without subscopes the server sees only its own scope.
    expect((await call(closed, 'namespaces')).scopes).toEqual([[]]);
    expect((await call(closed, 'namespaces', { maxDepth: 3 })).scopes).toEqual([[]]);
    expect(await callError(closed, 'namespaces', { prefix: ['a'] })).toMatch(/^scope_denied: .*did not allow subscopes$/);
  });
});

describe('session_list', () => {
  it('includes descendants on request and pages by cursor, offset on the first page only', async () => {
    const own = await call(open, 'session_list');
    expect(own.sessions.map((s: { id: string }) => s.id)).toEqual([ids.top]);
    const all = await call(open, 'session_list', { includeDescendants: true });
    expect(all.sessions.map((s: { id: string }) => s.id)).toEqual([ids.top, ids.a, ids.ab, ids.c]);
    expect(all.nextCursor).toBeUndefined();
    for (const order of ['newest', 'oldest']) {
      const whole = (await call(open, 'session_list', { includeDescendants: true, order })).sessions;
      expect(await follow(open, 'session_list', 'sessions', { includeDescendants: true, order, limit: 1 })).toEqual(whole);
      expect(await follow(open, 'session_list', 'sessions', { includeDescendants: true, order, limit: 2, offset: 1 })).toEqual(whole.slice(1));
    }
    const cursor = (await call(open, 'session_list', { includeDescendants: true, limit: 1 })).nextCursor;
    expect(await callError(open, 'session_list', { limit: 1, cursor })).toMatch(/^invalid: invalid cursor: cursor of another query/);
    expect(await callError(closed, 'session_list', { includeDescendants: true })).toMatch(/^scope_denied: includeDescendants: /);
  });
});

describe('search_sessions', () => {
  it('finds turns with their session and context, in scope, paged by cursor', async () => {
    const own = await call(open, 'search_sessions', { query: 'deploy' });
    expect(new Set(own.hits.map((h: { session: { id: string } }) => h.session.id))).toEqual(new Set([ids.top]));
    expect(own.hits[0]).toMatchObject({ score: expect.any(Number), before: expect.any(Array), after: expect.any(Array) });
    const all = await call(open, 'search_sessions', { query: 'deploy', includeDescendants: true, context: 0 });
    expect(all.hits).toHaveLength(12);
    expect(all.hits.every((h: { before: unknown[]; after: unknown[] }) => h.before.length === 0 && h.after.length === 0)).toBe(true);
    for (const order of ['recent', 'relevance']) {
      const whole = (await call(open, 'search_sessions', { query: 'deploy step', includeDescendants: true, order })).hits;
      expect(await follow(open, 'search_sessions', 'hits', { query: 'deploy step', includeDescendants: true, order, limit: 5 })).toEqual(whole);
    }
    const users = await call(open, 'search_sessions', { query: 'deploy', scope: ['a'], includeDescendants: true, roles: ['user'] });
    expect(users.hits.map((h: { turn: { role: string } }) => h.turn.role)).toEqual(['user', 'user', 'user', 'user']);
    // Every query word must match by default; with match any, one is enough.
    expect((await call(open, 'search_sessions', { query: 'deploy nowhere', includeDescendants: true })).hits).toEqual([]);
    expect((await call(open, 'search_sessions', { query: 'deploy nowhere', includeDescendants: true, context: 0, match: 'any' })).hits).toEqual(all.hits);
    const one = await call(open, 'search_sessions', { query: 'deploy', sessionId: ids.ab });
    expect(one.hits.map((h: { session: { id: string } }) => h.session.id)).toEqual([ids.ab, ids.ab, ids.ab]);
    const cursor = (await call(open, 'search_sessions', { query: 'deploy', limit: 1 })).nextCursor;
    expect(await callError(open, 'search_sessions', { query: 'step', limit: 1, cursor })).toMatch(/^invalid: invalid cursor: cursor of another query/);
  });

  it('stays within the operator scope policy', async () => {
    expect(await callError(closed, 'search_sessions', { query: 'deploy', includeDescendants: true })).toMatch(/^scope_denied: includeDescendants: /);
    expect(await callError(closed, 'search_sessions', { query: 'deploy', scope: ['a'] })).toMatch(/^scope_denied: /);
    // A session outside the server's reach is not found, as session_read says.
    expect(await callError(closed, 'search_sessions', { query: 'deploy', sessionId: ids.a })).toMatch(/^not_found: /);
    expect(await callError(inner, 'search_sessions', { query: 'deploy', sessionId: ids.top })).toMatch(/^not_found: /);
    expect((await call(inner, 'search_sessions', { query: 'deploy' })).hits.map((h: { session: { id: string } }) => h.session.id)).toEqual([
      ids.a,
      ids.a,
      ids.a,
    ]);
  });
});
