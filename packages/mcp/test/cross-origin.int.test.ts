/**
 * Another local program's page cannot call tools on the HTTP transport: a
 * page served from a second loopback server (another port, as a dev server
 * would be) posts a `remember` call to a server without a token, by a
 * `no-cors` fetch (with the headers a page may send without a preflight) and
 * by a `text/plain` form, in Chromium. The SDK's transport would refuse
 * both for their media types; the transport refuses them first, for their
 * origin, as it refuses a page's call that the SDK would take. A client that
 * is no page is still served.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPage, type ForeignPage, serveForeignPage, skipBrowser, submitForeignForm } from '../../ui/test/browser.js';
import { call, connectHttp, type HttpServerProcess, startHttp, tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let server: HttpServerProcess;

beforeAll(async () => {
  tmp = tempDir();
  server = await startHttp(['--db', tmp.db, '--embedder', 'none']);
});

afterAll(async () => {
  expect(await server?.stop()).toBe(0);
  tmp?.cleanup();
});

/** A JSON-RPC call of the `remember` tool. */
const remember = (content: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'remember', arguments: { content } } });

/** How many remembered items mention `word`, asked by a client that is no page. */
async function remembered(word: string): Promise<number> {
  const client = await connectHttp(server.url);
  try {
    return (await call(client, 'recall', { query: word, mode: 'lexical' })).hits.length;
  } finally {
    await client.close();
  }
}

describe.skipIf(skipBrowser)('a page of another local program, in Chromium', () => {
  const page = chromiumPage();
  let foreign: ForeignPage | undefined;
  afterAll(async () => {
    await foreign?.close();
  });

  it('cannot call a tool by a no-cors fetch, nor by a form post', async () => {
    // A text/plain form sends `name=value`: the name opens the JSON, the value closes it.
    const body = remember('planted by a form');
    const name = `${body.slice(0, -1)},"pad":"`;
    foreign = await serveForeignPage(`<!doctype html><form method="post" enctype="text/plain" action="${server.url}"><input name='${name}' value='"}'></form>`);
    await page().goto(foreign.url);
    // Accept and a text/plain Content-Type naming JSON are headers a page may send without a preflight.
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'text/plain; x=application/json' };
    const init = { method: 'POST', mode: 'no-cors', headers, body: remember('planted by a fetch') };
    const answered = page().waitForResponse(server.url);
    const sent = await page().evaluate(`fetch(${JSON.stringify(server.url)}, ${JSON.stringify(init)}).then((r) => r.type)`);
    expect(sent).toBe('opaque');
    expect((await answered).status()).toBe(403);
    await submitForeignForm(page(), foreign, /\/mcp$/);
    expect(await page().textContent('body')).toMatch(/Forbidden: without a token this server answers no web page but its own/);
    expect(await remembered('planted')).toBe(0);
  });
});

describe('without a token', () => {
  it("refuses a page's call even when the SDK would take it", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const headers = { origin: 'http://localhost:3000', accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
      request(server.url, { method: 'POST', headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end(remember('planted with JSON'));
    });
    expect(status).toBe(403);
    expect(await remembered('planted')).toBe(0);
  });

  it('still serves a client that is no page', async () => {
    const client = await connectHttp(server.url);
    try {
      await call(client, 'remember', { content: 'sent by a client, not a page' });
    } finally {
      await client.close();
    }
    expect(await remembered('client')).toBe(1);
  });
});
