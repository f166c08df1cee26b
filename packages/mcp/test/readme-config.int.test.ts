/**
 * Every host configuration in the README starts a working server exactly as
 * written, from a checkout: the installed-package entries through the
 * workspace's own node_modules/.bin, the checkout entries through the
 * launcher. (The packaging test of @agentstate/cli starts them again in a
 * project that installed the packed packages.)
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpConfigs, startConfigured } from '../../../tools/mcp-config.js';
import { tempDir } from './helpers.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));
const checkout = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');
const tmp = tempDir();
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
      await client.callTool({ name: 'remember', arguments: { content: `configured ${config.command}` } });
      const recalled = await client.callTool({ name: 'recall', arguments: { query: 'configured', mode: 'lexical' } });
      expect(recalled.isError).toBeFalsy();
      expect((recalled.structuredContent as { hits: Array<{ content: string }> }).hits.map((h) => h.content)).toContain(`configured ${config.command}`);
    } finally {
      await client.close();
    }
  });
});
