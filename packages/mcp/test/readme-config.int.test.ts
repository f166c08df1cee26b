/**
 * Every host configuration in the README starts a working server exactly as
 * written, from a checkout: the installed-package entries through the
 * workspace's own node_modules/.bin, the checkout entries through the
 * launcher; and the HTTP server of the shell entry, as written. (The
 * packaging test of @agentstate/cli starts the JSON entries again in a
 * project that installed the packed packages.)
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpConfigs, startConfigured } from '../../../tools/mcp-config.js';
import { tempDir } from './helpers.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));
const checkout = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');
const tmp = tempDir();

/** Remembers a fact through `client` and expects to recall it. */
async function roundTrip(client: Client, content: string): Promise<void> {
  await client.callTool({ name: 'remember', arguments: { content } });
  const recalled = await client.callTool({ name: 'recall', arguments: { query: 'configured', mode: 'lexical' } });
  expect(recalled.isError).toBeFalsy();
  expect((recalled.structuredContent as { hits: Array<{ content: string }> }).hits.map((h) => h.content)).toContain(content);
}
afterAll(tmp.cleanup);

describe("the README's host configurations", () => {
  const configs = mcpConfigs(readme);

  it('are all there, and none downloads a package', () => {
    expect(configs.length).toBeGreaterThanOrEqual(3);
    for (const config of configs) expect([config.command, ...config.args]).not.toContain('-y');
  });

  it.each(configs.map((config, i) => [i + 1, config] as const))('entry %i starts a server that remembers and recalls', async (_, config) => {
    const paths = { '/path/to/agentstate': checkout, '/path/to/your-project': checkout, '/Users/you/.agentstate/state.db': tmp.db };
    const client = await startConfigured(config, paths, checkout);
    try {
      await roundTrip(client, `configured ${config.command}`);
    } finally {
      await client.close();
    }
  });

  it('include an HTTP server started as the shell entry says, answering the client its `claude mcp add` line configures', async () => {
    const block = [...readFileSync(readme, 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('--http'));
    const lines = block!.trim().split('\n');
    const claude = lines.find((line) => line.startsWith('claude '))!;
    const url = /--transport http (\S+)/.exec(claude)![1]!;
    const [name, value] = /--header "([^:]+): ([^"]+)"/.exec(claude)!.slice(1) as [string, string];
    // The lines before it, as written but for the database path; the shell then prints the token and waits.
    const serve = lines
      .filter((line) => line !== claude)
      .join('\n')
      .replaceAll('/Users/you/.agentstate/state.db', tmp.db);
    const shell = spawn('bash', ['-eu', '-c', `${serve}\necho "$AGENTSTATE_MCP_TOKEN"\nwait`], {
      cwd: checkout,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      detached: true, // its own process group, so the server it started stops with it
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      let stderr = '';
      shell.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      await new Promise<void>((resolve, reject) => {
        shell.stderr.setEncoding('utf8').on('data', (c: string) => {
          stderr += c;
          if (stderr.includes(` on ${url}`)) resolve();
        });
        shell.once('exit', (code) => reject(new Error(`the shell exited with ${code}: ${stderr}`)));
      });
      const token = stdout.trim();
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      const client = new Client({ name: 'readme-http', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { [name]: value.replace('$AGENTSTATE_MCP_TOKEN', token) } } }),
      );
      try {
        await roundTrip(client, 'configured over HTTP');
      } finally {
        await client.close();
      }
    } finally {
      process.kill(-shell.pid!, 'SIGTERM');
    }
  });
});
