/**
 * The `operationId` argument of the writing tools, against the built server
 * in child processes: a retry, from the same server or from another server
 * process on the same database, answers the first result and writes nothing;
 * other arguments under the id are refused as a conflict.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '@agentstate/sqlite';
import { call, callError, connectStdio, tempDir } from './helpers.js';

let first: Client;
let second: Client;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir();
  const args = ['--db', tmp.db, '--scope', 'project:web', '--embedder', 'none'];
  first = await connectStdio(args);
  second = await connectStdio(args);
});

afterAll(async () => {
  await first?.close();
  await second?.close();
  tmp?.cleanup();
});

async function head(): Promise<number> {
  const p = await openSqlite(tmp.db, { readonly: true });
  try {
    return await p.log.head('state');
  } finally {
    await p.close();
  }
}

describe('operationId', () => {
  it('answers a retry of every writing tool with the first result, from either server process, appending nothing', async () => {
    const twice = async (name: string, args: Record<string, unknown>) => {
      const answer = await call(first, name, args);
      const events = await head();
      expect(await call(second, name, args)).toEqual(answer);
      expect(await call(first, name, args)).toEqual(answer);
      expect(await head()).toBe(events);
      return answer;
    };
    const { session } = await twice('session_create', { title: 'retried', operationId: 'op-1' });
    expect(session.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await twice('session_append_turn', { sessionId: session.id, role: 'user', content: 'hello', operationId: 'op-2' });
    await twice('skill_save', { slug: 'deploy', body: 'ship', operationId: 'op-3' });
    expect((await twice('skill_record_outcome', { skill: 'deploy', success: true, operationId: 'op-4' })).skill).toMatchObject({ uses: 1, wins: 1 });
    const { item } = await twice('remember', { content: 'the user prefers tea', operationId: 'op-5' });
    expect((await twice('forget', { id: item.id, operationId: 'op-6', full: true })).item).toMatchObject({ id: item.id, deleted: true });
    expect((await twice('session_delete', { sessionId: session.id, operationId: 'op-7', full: true })).session).toMatchObject({ deleted: true });
    expect(await head()).toBe(7);

    expect(await callError(second, 'remember', { content: 'the user prefers coffee', operationId: 'op-5' })).toContain('operation id "op-5" was already used');
    expect(await callError(first, 'forget', { id: 'never-written', operationId: 'op-8' })).toMatch(/not found/i);
    expect(await head()).toBe(7);
  });
});
