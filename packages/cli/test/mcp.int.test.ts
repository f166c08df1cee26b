import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cli, tempDir } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('agentstate mcp', () => {
  it('serves the database given with the global --db to an MCP client over stdio', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const db = dir.path('state.db');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '--db', db, 'mcp', '--scope', 'project:atlas'],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    await client.callTool({ name: 'remember', arguments: { content: 'Atlas deploys on Fridays' } });
    const recalled = await client.callTool({ name: 'recall', arguments: { query: 'friday', mode: 'lexical' } });
    const { hits } = recalled.structuredContent as { hits: { content: string; scope: string[] }[] };
    expect(hits.map((h) => [h.content, h.scope])).toEqual([['Atlas deploys on Fridays', ['project:atlas']]]);
    await client.close();
    const listed = cli(['memory', 'recall', 'friday', '--mode', 'lexical', '--json', '--db', db]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('Atlas deploys on Fridays');
  });

  it('answers a bad flag with a one-line user error and exit code 1', () => {
    const r = cli(['mcp', '--no-such-flag']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^agentstate mcp: .*no-such-flag/);
  });

  it('is listed in the help', () => {
    expect(cli(['--help']).stdout).toMatch(/\bmcp\b/);
  });
});
