/**
 * Streamable HTTP against the built server: the tools work for a client
 * with the bearer token; requests without it, or with a wrong one, get 401;
 * loopback servers refuse foreign Host and Origin headers; and the server
 * refuses to start on a non-loopback address without a token.
 */
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askTwiceAcrossIdle } from '../../../tools/keep-alive.js';
import { call, callError, connectHttp, runMain, startHttp, tempDir, type HttpServerProcess } from './helpers.js';

const TOKEN = 'test-token-0123456789abcdef';
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

let tmp: ReturnType<typeof tempDir>;
let server: HttpServerProcess;

beforeAll(async () => {
  tmp = tempDir();
  server = await startHttp(['--db', tmp.db, '--scope', 'project:web', '--embedder', 'none'], { AGENTSTATE_MCP_TOKEN: TOKEN });
});

afterAll(async () => {
  expect(await server?.stop()).toBe(0);
  tmp?.cleanup();
});

/** A raw POST of the initialize request, with the given headers; resolves to the status and body. */
function post(url: string, headers: Record<string, string>, method = 'POST'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? JSON.stringify(INIT) : undefined);
  });
}

describe('with the token', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectHttp(server.url, TOKEN);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('listens on loopback at /mcp', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('serves every tool group', async () => {
    expect((await client.listTools()).tools).toHaveLength(25);
    await call(client, 'remember', { content: 'Served over HTTP' });
    expect((await call(client, 'recall', { query: 'http' })).hits[0].content).toBe('Served over HTTP');
    const { skill } = await call(client, 'skill_save', { slug: 'ping', body: 'curl the health check' });
    expect((await call(client, 'skill_record_outcome', { skill: 'ping', success: true })).skill.wins).toBe(1);
    expect((await call(client, 'skill_search', { query: 'health' })).skills[0].id).toBe(skill.id);
    const { session } = await call(client, 'session_create', { title: 'over http' });
    await call(client, 'session_append_turn', { sessionId: session.id, role: 'user', content: 'hello' });
    expect((await call(client, 'session_read', { sessionId: session.id })).turns).toHaveLength(1);
    const text = (await client.readResource({ uri: `agentstate://sessions/${encodeURIComponent(session.id)}` })).contents[0] as { text: string };
    expect(text.text).toContain('hello');
  });

  it('answers bad arguments and scope violations with error results', async () => {
    expect(await callError(client, 'remember', { content: '' })).toMatch(/must not be empty at content/);
    expect(await callError(client, 'recall', { scope: ['other'] })).toMatch(/^scope_denied: scope: .*other is under .* did not allow subscopes$/);
  });

  it('handles concurrent clients', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call(client, 'remember', { content: `parallel ${i}`, kind: 'parallel' })));
    expect(new Set(results.map((r) => r.item.id)).size).toBe(20);
    expect((await call(client, 'recall', { kinds: ['parallel'], limit: 100 })).hits).toHaveLength(20);
  });
});

describe('keep-alive', () => {
  it('keeps an idle connection open past the window in which clients reuse one', async () => {
    const { port } = new URL(server.url);
    const ask = `GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 0\r\n\r\n`;
    expect(await askTwiceAcrossIdle(Number(port), ask)).toEqual(['HTTP/1.1 404 Not Found', 'HTTP/1.1 404 Not Found']);
  });
});

describe('without the token', () => {
  it('refuses a client with no token', async () => {
    await expect(connectHttp(server.url)).rejects.toThrow(/401|Unauthorized/);
  });

  it('refuses a client with a wrong token', async () => {
    await expect(connectHttp(server.url, `${TOKEN}x`)).rejects.toThrow(/401|Unauthorized/);
  });

  it('answers 401 with a Bearer challenge to raw requests, whatever the path or method', async () => {
    const cases: Array<[Record<string, string>, string?]> = [
      [{}],
      [{ authorization: `Bearer wrong-token-0123456789` }],
      [{ authorization: TOKEN }],
      [{ authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` }],
      [{}, 'GET'],
    ];
    for (const [headers, method] of cases) {
      const res = await post(server.url, headers, method);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    expect((await post(server.url.replace('/mcp', '/other'), {})).status).toBe(401);
  });

  it('lets the token through, and still guards path, method and host', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await post(server.url, auth)).status).toBe(200);
    expect((await post(server.url.replace('/mcp', '/other'), auth)).status).toBe(404);
    expect((await post(server.url, auth, 'GET')).status).toBe(405);
    expect((await post(server.url, { ...auth, host: 'evil.example:80' })).status).toBe(403);
    expect((await post(server.url, { ...auth, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(server.url, { ...auth, host: 'localhost', origin: 'http://localhost:3000' })).status).toBe(200);
  });
});

describe('starting', () => {
  it('serves loopback without a token when none is set', async () => {
    const open = await startHttp(['--db', tmp.db, '--scope', 'project:web', '--embedder', 'none']);
    try {
      const client = await connectHttp(open.url);
      expect((await call(client, 'recall', { query: 'served' })).hits[0].content).toBe('Served over HTTP');
      await client.close();
    } finally {
      expect(await open.stop()).toBe(0);
    }
  });

  it('refuses to listen beyond loopback without a token', async () => {
    const { code, stderr } = await runMain(['--db', tmp.db, '--http', '--host', '0.0.0.0', '--port', '0']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without a bearer token/);
  });

  it('refuses a short token and flags that need --http', async () => {
    const short = await runMain(['--db', tmp.db, '--http', '--port', '0', '--token', 'short']);
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/at least 16 characters/);
    const stray = await runMain(['--db', tmp.db, '--token', TOKEN]);
    expect(stray.code).toBe(1);
    expect(stray.stderr).toMatch(/--token only applies with --http/);
  });

  it('exits 2 with the reason when the file is not an agentstate database', async () => {
    const notes = join(tmp.dir, 'notes.txt');
    writeFileSync(notes, 'not a database\n');
    const { code, stderr } = await runMain(['--db', notes, '--http', '--port', '0']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/notes\.txt: is not a SQLite database/);
  });
});
