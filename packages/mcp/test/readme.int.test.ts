import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqlite } from '@agentstate/sqlite';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReadmeExamples, tsExamples } from '../../../tools/readme-example.js';
import { childEnv, tempDir } from './helpers.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));
const tmp = tempDir();
afterAll(tmp.cleanup);

/** What the first example and the HTTP sync example printed: both run in one process, so the packages load once. */
let printed: string[];

beforeAll(() => {
  const http = tsExamples(readme).findIndex((e) => e.includes('httpPeer('));
  expect(http).toBeGreaterThan(0);
  printed = runReadmeExamples(readme, [{ index: 0 }, { index: http, env: { AGENTSTATE_MCP_TOKEN: 'a-token-of-32-characters-or-more' }, cwd: tmp.dir }]);
});

describe('the README example', () => {
  it('runs as written against the built server', () => {
    const out = printed[0];
    expect(out).toContain("[ 'The user prefers dark themes (1)' ]");
    expect(out).toMatch(/uses: 1,\s+wins: 1/);
    expect(out).toContain('# Release');
    expect(out).toContain(
      "true scope_denied: scope: project:my-app/workspace:api is under this server's scope (project:my-app), but the operator did not allow subscopes",
    );
  });

  it("syncs a laptop file with a server over HTTP as written, only the server's subtree, and run again sends nothing", () => {
    expect(printed[1]).toContain('{ toA: 0, toB: 1, merged: 0, batches: 1 }\n{ toA: 0, toB: 0, merged: 0, batches: 0 }\n403');
  });

  it('embeds the server as written: a client of the program it makes writes to ./state.db', async () => {
    const example = tsExamples(readme).find((e) => e.includes('createAgentStateServer('));
    expect(example).toBeDefined();
    // Written into the package, so its imports resolve as for a user; run in a scratch folder for ./state.db.
    const file = fileURLToPath(new URL(`../.readme-embedding-${process.pid}.mts`, import.meta.url));
    writeFileSync(file, example!);
    try {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['--import', import.meta.resolve('tsx'), file],
        env: childEnv(),
        cwd: tmp.dir,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'readme', version: '1.0.0' });
      await client.connect(transport);
      const written = await client.callTool({ name: 'remember', arguments: { content: 'Embedded servers write here' } });
      expect(written.isError).toBeFalsy();
      await client.close();
    } finally {
      rmSync(file, { force: true });
    }
    const state = await openSqlite(join(tmp.dir, 'state.db'));
    try {
      const items = await state.memory.recall({ query: 'embedded', scope: ['project:my-app'] });
      expect(items.map((i) => i.content)).toEqual(['Embedded servers write here']);
    } finally {
      await state.close();
    }
  });
});
