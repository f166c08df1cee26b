/**
 * Test helpers: start the built `agentstate-mcp` as a child process and
 * drive it with the SDK's own client, over stdio or Streamable HTTP; or,
 * for the tests of the tools themselves, serve the same database with the
 * same options inside the test's process over the SDK's in-memory transport;
 * or run its entry inside the test's process for a start it refuses.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { createAgentStateServer, mcpMain } from '@agentstate/mcp';
import { parseMcpArgs } from '../src/args.js';
import { openDatabase } from '@agentstate/open';

/** The built server. */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** The only environment the server gets: the stdio client passes none by itself. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...extra };
}

/** A fresh folder; removed by the returned cleanup. */
export function tempDir(): { dir: string; db: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-mcp-'));
  return { dir, db: join(dir, 'state.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A client connected to a server started over stdio with `args`. */
export async function connectStdio(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...args], env: childEnv(env), stderr: 'pipe' });
  const client = new Client({ name: 'agentstate-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/**
 * A client connected in this process to a server with the options of the
 * command line `args`, over the SDK's in-memory transport: the database
 * opened and the tools served as `agentstate-mcp` does, without a process
 * and its stdio. Closing the client closes the server and its database.
 */
export async function connectInMemory(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const command = parseMcpArgs(args, childEnv(env));
  if (command.kind !== 'run') throw new Error(`agentstate-mcp ${args.join(' ')} serves nothing`);
  const { options } = command;
  const provider = await openDatabase(options.db, { embedder: options.embedder, env: childEnv(env) });
  const server = createAgentStateServer(provider, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  server.server.onclose = () => void provider.close();
  await server.connect(serverSide);
  const client = new Client({ name: 'agentstate-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** A server process started with `--http`, and where it listens. */
export interface HttpServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Starts the server with `--http --port 0 …args` and waits until it listens. */
export function startHttp(args: string[], env: Record<string, string> = {}): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [BIN, '--http', '--port', '0', ...args], { env: childEnv(env), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const m = / on (http:\/\/\S+),/.exec(stderr);
      if (m) {
        resolve({
          url: m[1]!,
          child,
          stderr: () => stderr,
          stop: async () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    child.once('exit', (code) => {
      reject(new Error(`the server exited with ${code}: ${stderr}`));
    });
  });
}

/** A stream that keeps what is written to it. */
function collector(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, text: () => text };
}

/**
 * Runs the program's entry, `mcpMain`, to completion in this process with
 * streams of its own (for refused starts, whose process adds nothing to
 * check); resolves to its exit code and what it printed.
 */
export async function runMain(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string; stdout: string }> {
  const [stdout, stderr] = [collector(), collector()];
  const code = await mcpMain(args, { env: childEnv(env), stdout: stdout.stream, stderr: stderr.stream });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** A client connected over Streamable HTTP, sending `token` when given. */
export async function connectHttp(url: string, token?: string): Promise<Client> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'agentstate-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Calls a tool that must succeed; returns its structured content. */
// biome-ignore lint/suspicious/noExplicitAny: tests read the structured content freely and their assertions check its shape.
export async function call<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  expect(result.structuredContent).toBeDefined();
  const text = result.content[0];
  expect(text?.type === 'text' && JSON.parse(text.text)).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

/** Calls a tool that must fail with an error result; returns its one-line message. */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name} should fail, got ${JSON.stringify(result.structuredContent)}`).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const text = result.content[0];
  if (text?.type !== 'text') throw new Error('an error result without text');
  return text.text;
}
