/** `memory_history` for every server, and `purge` only on a server started with --allow-purge, inside its scope. */
import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { call, callError, connectStdio, tempDir } from './helpers.js';

const tmp = tempDir();
const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
  tmp.cleanup();
});

async function connect(args: string[]): Promise<Client> {
  const client = await connectStdio(['--db', tmp.db, '--embedder', 'none', ...args]);
  clients.push(client);
  return client;
}

describe('history and purge over MCP', () => {
  it('offers purge only when the operator allows it, and erases inside the scope', async () => {
    const plain = await connect(['--scope', 'acme', '--allow-subscopes']);
    expect((await plain.listTools()).tools.map((t) => t.name)).not.toContain('purge');
    const { item } = await call(plain, 'remember', { content: 'Ottoline-Quince owes 40', scope: ['user-9'] });
    await call(plain, 'update_memory', { id: item.id, content: 'Ottoline-Quince paid' });
    const { versions } = await call(plain, 'memory_history', { id: item.id });
    expect(versions.map((v: { type: string }) => v.type)).toEqual(['memory.written', 'memory.updated']);

    const admin = await connect(['--scope', 'acme', '--allow-subscopes', '--allow-purge']);
    const purge = (await admin.listTools()).tools.find((t) => t.name === 'purge');
    expect(purge?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(await callError(admin, 'purge', { reason: 'x' })).toMatch(/exactly one/);
    const other = await connect(['--scope', 'other', '--allow-purge']);
    expect(await callError(other, 'purge', { id: item.id, reason: 'x' })).toMatch(/scope|not_found|denied/i);
    const result = await call(admin, 'purge', { scope: ['user-9'], reason: 'user left' });
    expect(result.memory).toEqual([item.id]);
    expect(readFileSync(tmp.db).includes('Ottoline-Quince')).toBe(false);
  });
});
