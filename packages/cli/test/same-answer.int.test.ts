/**
 * One question, one answer: the same recall asked through the library,
 * the `agentstate` command (run in the test's process) and the MCP server (`agentstate-mcp` and
 * `agentstate mcp`, driven by the SDK's client over stdio) on one SQLite
 * file returns the same items in the same order, because the database
 * path and the default embedder are decided once, in `@agentstate/open`
 * (which the library user opens with too), and recall's default mode and
 * order once, in core.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RecallOptions } from '@agentstate/core';
import { describeScope } from '@agentstate/core';
import { openDatabase } from '@agentstate/open';
import { openSqlite } from '@agentstate/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempDir } from './helpers.js';
import { fails, ok, okJson } from './in-process.js';

const MCP_BIN = fileURLToPath(new URL('../../mcp/dist/bin.js', import.meta.url));

const FACTS = [
  'The user prefers dark mode in every editor',
  'Deploy to production on Friday afternoons',
  'The staging theme uses light colours for the user',
  'The invoice total includes VAT',
];
const QUESTION = 'does the user like a dark theme';

const tmp = tempDir();
const db = tmp.path('state.db');
const clients: Client[] = [];

/** An MCP client of a server started as `argv` (after node), with no database named unless the arguments do. */
async function connect(argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: argv,
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...options.env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'same-answer', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function mcpIds(client: Client, options: RecallOptions): Promise<string[]> {
  const result = await client.callTool({ name: 'recall', arguments: { ...options } });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return (result.structuredContent as { hits: { id: string }[] }).hits.map((h) => h.id);
}

async function apiIds(options: RecallOptions): Promise<string[]> {
  const provider = await openDatabase(db, { readonly: true });
  try {
    return (await provider.memory.recall(options)).map((h) => h.id);
  } finally {
    await provider.close();
  }
}

async function idOf(content: string): Promise<string> {
  const provider = await openSqlite(db, { readonly: true });
  try {
    return (await provider.memory.recall({ query: content, mode: 'lexical' }))[0]!.id;
  } finally {
    await provider.close();
  }
}

function cliIds(options: RecallOptions, cwd?: string): string[] {
  const args = ['memory', 'recall', ...(options.query === undefined ? [] : [options.query]), ...(options.mode ? ['--mode', options.mode] : [])];
  return okJson<{ id: string }[]>(cwd === undefined ? [...args, '--db', db] : args, { cwd }).map((h) => h.id);
}

beforeAll(async () => {
  const provider = await openSqlite(db);
  try {
    for (const content of FACTS) await provider.memory.write({ content });
  } finally {
    await provider.close();
  }
});

afterAll(async () => {
  for (const client of clients) await client.close();
  tmp.cleanup();
});

describe('the same recall through the library, the CLI and the MCP server', () => {
  it('gets the same items in the same order, best first for a question and newest first for a listing', async () => {
    const question: RecallOptions = { query: QUESTION };
    const expected = await apiIds(question);
    // The question must tell relevance from recency, or the comparison proves nothing.
    expect(expected.length).toBeGreaterThan(1);
    expect(expected).not.toEqual(await apiIds({ ...question, order: 'recent' }));
    expect(expected[0]).toBe(await idOf(FACTS[0]!));

    const servers = [await connect([MCP_BIN, '--db', db]), await connect([BIN, '--db', db, 'mcp'])];
    const questions: RecallOptions[] = [question, {}, { query: QUESTION, mode: 'semantic' }];
    for (const options of questions) {
      const want = await apiIds(options);
      expect(cliIds(options), JSON.stringify(options)).toEqual(want);
      for (const server of servers) expect(await mcpIds(server, options), JSON.stringify(options)).toEqual(want);
    }
  });

  it('opens the same default file and the same AGENTSTATE_DB file', async () => {
    const cwd = tmp.path('project');
    mkdirSync(cwd);
    const written = okJson<{ id: string }>(['memory', 'write', 'written to the default database'], { cwd });
    expect(await mcpIds(await connect([MCP_BIN], { cwd }), {})).toEqual([written.id]);
    expect(cliIds({}, cwd)).toEqual([written.id]);

    const fromEnv = await connect([MCP_BIN], { cwd, env: { AGENTSTATE_DB: db } });
    expect(await mcpIds(fromEnv, {})).toEqual(await apiIds({}));
  });

  it("writes a scope the same way in the CLI, the server's instructions and its resources", async () => {
    const scope = ['project:a/b', 'workspace:x y'];
    const provider = await openSqlite(db);
    try {
      await provider.skills.upsert({ slug: 'deploy', body: 'run the pipeline', scope });
    } finally {
      await provider.close();
    }
    const text = describeScope(scope);
    expect(text).toBe('["project:a/b","workspace:x y"]');
    const shown = ok(['skills', 'show', 'deploy', '--scope', text, '--db', db]).split('\n');
    expect(shown.find((line) => line.startsWith('scope:'))?.replace(/^scope:\s+/, '')).toBe(text);
    const server = await connect([MCP_BIN, '--db', db, '--scope', text]);
    expect(server.getInstructions()).toContain(`bound to scope ${text}.`);
    const resource = await server.readResource({ uri: 'agentstate://skills/deploy' });
    expect((resource.contents[0] as { text: string }).text).toContain(`- scope: ${text}\n`);
  });
});

describe('one convention in both faces', () => {
  it('lists sessions in the API order, oldest first, in the CLI and over MCP', async () => {
    const provider = await openSqlite(db);
    let want: string[];
    try {
      for (const title of ['first', 'second', 'third']) await provider.sessions.create({ title });
      want = (await provider.sessions.list()).map((s) => s.id);
    } finally {
      await provider.close();
    }
    expect(want.length).toBe(3);
    expect(okJson<{ id: string }[]>(['sessions', 'list', '--db', db]).map((s) => s.id)).toEqual(want);
    for (const server of [await connect([MCP_BIN, '--db', db]), await connect([BIN, '--db', db, 'mcp'])]) {
      const result = await server.callTool({ name: 'session_list', arguments: {} });
      expect((result.structuredContent as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toEqual(want);
    }
  });

  it('takes a limit as a positive integer everywhere: 0 is the same usage error (exit 1) in every command and refused by every tool', async () => {
    const commands = [
      ['memory', 'recall', 'dark'],
      ['sessions', 'list'],
      ['sessions', 'search', 'dark'],
      ['skills', 'list'],
      ['skills', 'search', 'deploy'],
      ['namespaces'],
      ['log', 'show'],
    ];
    for (const command of commands) {
      expect(fails(1, [...command, '--limit', '0', '--db', db]), command.join(' ')).toBe(
        "agentstate: option '--limit <n>' argument '0' is invalid. expected a positive integer.",
      );
    }
    const server = await connect([MCP_BIN, '--db', db]);
    for (const [name, args] of [
      ['recall', { query: 'dark' }],
      ['session_list', {}],
      ['search_sessions', { query: 'dark' }],
      ['skill_search', { query: 'deploy' }],
      ['namespaces', {}],
    ] as const) {
      const result = await server.callTool({ name, arguments: { ...args, limit: 0 } });
      expect(result.isError, name).toBe(true);
      expect(JSON.stringify(result.content), name).toMatch(/limit/);
    }
  });
});
