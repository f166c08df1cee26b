/**
 * `agentstate-mcp --db postgres://…` (and AGENTSTATE_DB) serves a schema of
 * a PostgreSQL server (the test cluster of packages/postgres) to a real SDK
 * client; two servers on the same schema share one state.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '@agentstate/postgres';
import { dropSchema, freshSchema, testServer } from '../../postgres/test/cluster.js';
import { call, connectStdio, runMain } from './helpers.js';

let server: string;
const schema = freshSchema('mcp');
const clients: Client[] = [];

beforeAll(async () => {
  server = (await testServer()).url;
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await dropSchema(server, schema);
});

describe('agentstate-mcp on PostgreSQL', () => {
  it('serves a schema by --db or AGENTSTATE_DB: what one server writes, another recalls, and the provider sees', async () => {
    const url = `${server}?schema=${schema}`;
    const byFlag = await connectStdio(['--db', url, '--embedder', 'none']);
    clients.push(byFlag);
    const byEnv = await connectStdio(['--embedder', 'none'], { AGENTSTATE_DB: url });
    clients.push(byEnv);
    const { item } = await call(byFlag, 'remember', { content: 'The user prefers dark themes', kind: 'preference' });
    const { session } = await call(byEnv, 'session_create', { title: 'Shared' });
    await call(byFlag, 'session_append_turn', { sessionId: session.id, role: 'user', content: 'Deploy is failing' });
    const { hits } = await call(byEnv, 'recall', { query: 'DARK' });
    expect(hits.map((h: { id: string }) => h.id)).toEqual([item.id]);
    const read = await call(byEnv, 'session_read', { sessionId: session.id });
    expect(read.turns.map((t: { content: string }) => t.content)).toEqual(['Deploy is failing']);

    const provider = await openPostgres(server, { schema });
    try {
      expect((await provider.memory.get(item.id))?.content).toBe('The user prefers dark themes');
      expect(await provider.log.head('state')).toBe(3);
    } finally {
      await provider.close();
    }
  });

  it('fails to start with one typed line when the server cannot be reached', async () => {
    const r = await runMain(['--db', 'postgres://postgres:s3cret@127.0.0.1:1/postgres', '--embedder', 'none']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^agentstate-mcp: /);
    expect(r.stderr).not.toContain('s3cret');
  });
});
