/**
 * The README's tool table cannot drift from the server: it names exactly
 * the tools a server registers (with `allowPurge`, so `purge` too), once each.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createInMemoryProvider } from '@agentstate/core';
import { describe, expect, it } from 'vitest';
import { createAgentStateServer } from '../src/index.js';

/** The tool names of the first column of the README's "## Tools" table, in order. */
function readmeTools(): string[] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Tools\n'), readme.indexOf('\n## ', readme.indexOf('\n## Tools\n') + 1));
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!);
}

describe("the README's tool table", () => {
  it('lists every tool the server registers, once, and no other', async () => {
    const provider = createInMemoryProvider();
    const server = createAgentStateServer(provider, { allowPurge: true });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'readme-tools', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const registered = (await client.listTools()).tools.map((t) => t.name);
      const listed = readmeTools();
      expect(new Set(listed).size).toBe(listed.length);
      expect([...listed].sort()).toEqual([...registered].sort());
    } finally {
      await client.close();
      await server.close();
      await provider.close();
    }
  });
});
