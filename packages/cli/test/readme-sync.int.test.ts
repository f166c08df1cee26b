/**
 * The repository README's "Sync" walkthrough, a laptop file and a PostgreSQL server, run as
 * written against a schema of the test server: its shell session through the built command
 * (each line it shows as printed is printed), and its code example.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReadmeExample, tsExamples } from '../../../tools/readme-example.js';
import { dropSchema, testServer } from '../../postgres/test/cluster.js';
import { tempDir } from './helpers.js';
import { runSession } from './session.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));
/** The server URL the README's session shows. */
const SHOWN = 'postgres://me@db.internal/agents?schema=team';
const tmp = tempDir();
let server: string;

beforeAll(async () => {
  server = (await testServer()).url;
  for (const schema of ['team', 'walkthrough']) await dropSchema(server, schema);
});

afterAll(async () => {
  for (const schema of ['team', 'walkthrough']) await dropSchema(server, schema);
  tmp.cleanup();
});

/** The README's ```sh block that syncs a laptop with `$SERVER`. */
function session(): string {
  const blocks = [...readFileSync(README, 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => b.includes('agentstate sync laptop.db "$SERVER"'));
  expect(block).toBeDefined();
  return block!;
}

describe("the repository README's sync walkthrough", () => {
  it('runs its shell session against a schema, printing what it shows', async () => {
    const lines = session().split('\n');
    const commands = lines.filter((line) => line.startsWith('$ ')).map((line) => line.slice(2));
    const shown = lines.filter((line) => line !== '' && !line.startsWith('$ '));
    expect(shown).toHaveLength(2);
    const url = `${server}?schema=walkthrough`;
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', SERVER: url };
    delete env.AGENTSTATE_DB;
    const out = await runSession(commands, tmp.dir, env);
    // Seconds differ from run to run; the server is the test's.
    const seconds = (text: string) => text.replace(/\(\d+\.\d\d s\)/g, '(… s)');
    const printed = seconds(out.split(url).join(SHOWN)).split('\n');
    for (const line of shown) expect(printed).toContain(seconds(line));
    // The laptop's own entry is its head, the event it received counted; the server's, how far the laptop holds its events.
    expect(out).toMatch(/^origin: +[0-9a-f]+ up to #3 \(this store\)\norigin: +[0-9a-f]+ up to #2$/m);
  });

  it('runs its code example against the server', () => {
    const index = tsExamples(README).findIndex((example) => example.includes('sync(laptop, server)'));
    expect(index).toBeGreaterThanOrEqual(0);
    const cwd = tmp.path('code');
    mkdirSync(cwd);
    const out = runReadmeExample(README, { DATABASE_URL: server }, cwd, index);
    expect(out.split('\n')).toEqual([
      '{ toA: 0, toB: 1, merged: 0, batches: 1 }',
      '{ toA: 1, toB: 1, merged: 0, batches: 2 }',
      'Release notes go in CHANGELOG.md; Staging runs in eu-west; The user deploys from main only',
      '',
    ]);
  });
});
