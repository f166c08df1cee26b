/**
 * Sync over the HTTP transport (docs/contract.md §12): a local SQLite file syncs with the store a
 * server in this process serves, through `httpPeer` over real HTTP on loopback, behind the
 * transport's guard (token, `Host` and `Origin`, scope); refused requests write nothing, and a
 * sync cut in the middle resumes.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type EventSourcedProvider, httpPeer, sync, SyncConflictError, syncDigest, SyncHttpError, ValidationError } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HttpHandle, serveHttp } from '../src/transports/http.js';
import { tempDir } from './helpers.js';

const TOKEN = 'a-token-of-32-characters-or-more';
const tmp = tempDir();
afterAll(tmp.cleanup);

let n = 0;
let local: EventSourcedProvider;
let served: EventSourcedProvider;
let server: HttpHandle;
const serve = (options: { token?: string; scope?: string[] } = {}) =>
  serveHttp(
    served,
    { allowSubscopes: true, ...(options.scope ? { scope: options.scope } : {}) },
    { port: 0, ...(options.token ? { token: options.token } : {}) },
  );

beforeEach(async () => {
  n += 1;
  local = await openSqlite(join(tmp.dir, `laptop-${n}.db`));
  served = await openSqlite(join(tmp.dir, `server-${n}.db`));
  server = await serve({ token: TOKEN });
});

afterEach(async () => {
  await server.close();
  await Promise.all([local.close(), served.close()]);
});

/** A `memory.written` payload with its item's content changed. */
const withContent = (payload: unknown, content: string) => {
  const { item } = payload as { item: object };
  return { ...(payload as object), item: { ...item, content } };
};

const post = (route: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.syncUrl}/${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** A loopback proxy in front of the sync endpoint `target`: the routes of the requests it forwarded, and the connections it took. */
async function countingProxy(target: string) {
  const routes: string[] = [];
  let connections = 0;
  const proxy = createServer((req, res) => {
    routes.push(req.url!.slice('/sync/'.length));
    const forwarded = request(`${target}${req.url!.slice('/sync'.length)}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forwarded);
  });
  proxy.on('connection', () => (connections += 1));
  await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/sync`,
    routes,
    connections: () => connections,
    close: () => new Promise<void>((closed) => proxy.close(() => closed()) && proxy.closeAllConnections()),
  };
}

describe('sync over HTTP', () => {
  it('syncs one new event in one request a direction, and nothing in one, on one connection kept open between syncs', async () => {
    const proxy = await countingProxy(server.syncUrl);
    try {
      const peer = httpPeer(proxy.url, { token: TOKEN });
      await served.memory.write({ content: 'written on the server' });
      expect(await sync(local, peer)).toEqual({ toA: 1, toB: 0, merged: 0, batches: 1 });
      await local.memory.write({ content: 'written on the laptop' });
      expect(await sync(local, peer)).toEqual({ toA: 0, toB: 1, merged: 0, batches: 1 });
      expect(await sync(local, peer)).toEqual({ toA: 0, toB: 0, merged: 0, batches: 0 });
      // Each sync starts with one request (the policies, the server's vector and id, the first batch); a push adds its batch.
      expect(proxy.routes).toEqual(['start', 'start', 'receive', 'start']);
      expect(proxy.connections()).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('brings a file and a server together both ways, and run again sends nothing', async () => {
    const mine = await local.memory.write({ content: 'written on the laptop' });
    const theirs = await served.memory.write({ content: 'written on the server' });
    const peer = httpPeer(server.syncUrl, { token: TOKEN });
    expect(await sync(local, peer)).toEqual({ toA: 1, toB: 1, merged: 0, batches: 2 });
    expect((await local.memory.get(theirs.id)).content).toBe('written on the server');
    expect((await served.memory.get(mine.id)).content).toBe('written on the laptop');
    expect(await sync(local, peer)).toEqual({ toA: 0, toB: 0, merged: 0, batches: 0 });
    expect(await peer.vector()).toEqual(await served.vector());
  });

  it('carries retention policies both ways, and answers a malformed change with the field it names', async () => {
    const mine = await local.retention.set({ record: 'memory', maxAge: '30d' });
    const theirs = await served.retention.set({ record: 'turn', maxAge: '7d' });
    const peer = httpPeer(server.syncUrl, { token: TOKEN });
    expect(await sync(local, peer)).toEqual({ toA: 1, toB: 1, merged: 0, batches: 0 });
    expect(await served.retention.list()).toEqual([mine, theirs]);
    expect(await local.retention.list()).toEqual([mine, theirs]);
    const refused = await peer.retention.merge([{ type: 'retention.policy_removed', payload: { id: mine.id } } as never]).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'invalid', field: '0.payload.hlc' });
    expect(refused).toBeInstanceOf(ValidationError);
    expect(await served.retention.list()).toEqual([mine, theirs]);
  });

  it('answers a wrong or missing token with 401 and writes nothing', async () => {
    await local.memory.write({ content: 'never sent' });
    const events = await local.changes({});
    const before = await served.vector();
    expect((await post('receive', { events }, { authorization: 'Bearer not-the-token-at-all' })).status).toBe(401);
    expect((await post('receive', { events })).status).toBe(401);
    const refused = await sync(local, httpPeer(server.syncUrl)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SyncHttpError);
    expect(refused).toMatchObject({ code: 'http', status: 401 });
    expect(await served.vector()).toEqual(before);
  });

  it('refuses a foreign Origin, token or not, and writes nothing', async () => {
    await local.memory.write({ content: 'from a page' });
    const events = await local.changes({});
    const before = await served.vector();
    const answer = await post('receive', { events }, { authorization: `Bearer ${TOKEN}`, origin: 'https://pages.example' });
    expect(answer.status).toBe(403);
    await server.close();
    server = await serve();
    expect((await post('receive', { events }, { origin: 'http://localhost:3000' })).status).toBe(403);
    expect(await served.vector()).toEqual(before);
    // A program, which sends no Origin, is served by a loopback server without a token.
    expect(await sync(local, httpPeer(server.syncUrl))).toMatchObject({ toB: 1 });
  });

  it('refuses a forged batch whole, as the typed error the store raised', async () => {
    await local.memory.write({ content: 'first' });
    await local.memory.write({ content: 'second' });
    const peer = httpPeer(server.syncUrl, { token: TOKEN });
    const before = await served.vector();
    const [first, second] = await local.changes({});
    const forged = { ...second!, payload: withContent(second!.payload, 'forged') };
    const refused = await peer.receive([first!, forged]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({ field: '1.digest' });
    expect((await post('receive', { events: [first, forged] }, { authorization: `Bearer ${TOKEN}` })).status).toBe(400);
    expect(await served.vector()).toEqual(before);

    await peer.receive([first!]);
    // Another event at a place the server holds, well formed and digested: a diverged replica.
    const replaced = { ...first!, time: '2020-01-01T00:00:00.000Z' };
    const conflict = await peer.receive([{ ...replaced, digest: syncDigest(replaced) }]).catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(SyncConflictError);
    expect(conflict).toMatchObject({ reason: 'replaced', origin: first!.origin, originSeq: first!.originSeq });
    expect((await post('receive', { events: [{ ...replaced, digest: syncDigest(replaced) }] }, { authorization: `Bearer ${TOKEN}` })).status).toBe(409);
  });

  it("refuses a copy of the served store (its replica id) with a 409 before it merges the copy's policies", async () => {
    await local.memory.write({ content: 'written on the copy' });
    await local.retention.set({ record: 'session', maxAge: '30d' });
    // The laptop's store under the server's replica id: a byte copy of the server's file that went on writing.
    const copy = {
      vector: local.vector,
      changes: local.changes,
      receive: local.receive,
      retention: local.retention,
      replicaId: () => served.replicaId(),
    };
    const before = await Promise.all([served.vector(), served.retention.list()]);
    const refused = await sync(copy, httpPeer(server.syncUrl, { token: TOKEN })).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SyncConflictError);
    expect(refused).toMatchObject({ reason: 'copy', origin: await served.replicaId() });
    expect(String(refused)).toContain('the same store, or a byte copy of it');
    expect(await Promise.all([served.vector(), served.retention.list()])).toEqual(before);
  });

  it('refuses a batch that comes ahead of an earlier one of its origin (order) with a 409, and takes both in order', async () => {
    await local.memory.write({ content: 'first' });
    await local.memory.write({ content: 'second' });
    const peer = httpPeer(server.syncUrl, { token: TOKEN });
    const before = await served.vector();
    const [first, second] = await local.changes({});
    const from = { [first!.origin]: first!.originSeq };
    const refused = await peer.receive([second!], { from }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SyncConflictError);
    expect(refused).toMatchObject({ reason: 'order', origin: second!.origin, originSeq: second!.originSeq });
    const answer = await post('receive', { events: [second], from }, { authorization: `Bearer ${TOKEN}` });
    expect(answer.status).toBe(409);
    expect(((await answer.json()) as { error: unknown }).error).toMatchObject({
      code: 'diverged',
      reason: 'order',
      message: expect.stringMatching(/nothing was received$/),
    });
    expect(await served.vector()).toEqual(before);
    expect(await peer.receive([first!], { from: { [first!.origin]: 0 } })).toEqual({ received: 1, skipped: 0, merged: 0 });
    expect(await peer.receive([second!], { from })).toEqual({ received: 1, skipped: 0, merged: 0 });
  });

  it('bounds the request body: 413 over the bound, 400 for one that is not a request, nothing written', async () => {
    const answer = await post('receive', { events: [], pad: 'x'.repeat(8 * 1024 * 1024) }, { authorization: `Bearer ${TOKEN}` });
    expect(answer.status).toBe(413);
    expect((await post('changes', { vector: {} }, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await post('receive', { events: 'none' }, { authorization: `Bearer ${TOKEN}` })).status).toBe(400);
    expect((await post('changes', { vector: { a: -1 } }, { authorization: `Bearer ${TOKEN}` })).status).toBe(400);
    const notJson = await fetch(`${server.syncUrl}/receive`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{"events": [' });
    expect(await notJson.json()).toEqual({ error: { code: 'invalid', field: '', message: 'invalid input: the request body is not JSON' } });
    expect(await served.vector()).toEqual({ [await served.replicaId()]: 0 });
  });

  it('loses nothing when the connection is cut in the middle, and a second run finishes', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await local.memory.write({ content: `item ${i}` })).id);
    const cut = await sync(local, httpPeer(server.syncUrl, { token: TOKEN }), {
      batchSize: 1,
      // The server goes away after the second batch: the third request finds no one.
      onProgress: (progress) => void (progress.batches === 2 && server.close()),
    }).catch((error: unknown) => error);
    expect(cut).toMatchObject({ code: 'network' });
    expect((await served.vector())[await local.replicaId()]).toBe(2);
    server = await serve({ token: TOKEN });
    expect(await sync(local, httpPeer(server.syncUrl, { token: TOKEN }))).toEqual({ toA: 0, toB: 3, merged: 0, batches: 1 });
    expect((await served.vector())[await local.replicaId()]).toBe(5);
    expect(await Promise.all(ids.map(async (id) => (await served.memory.get(id)).content))).toEqual([0, 1, 2, 3, 4].map((i) => `item ${i}`));
  });

  it("syncs only the subtree of a server bound to a scope: never another tenant's event, and a wider request is refused", async () => {
    await server.close();
    server = await serve({ token: TOKEN, scope: ['acme'] });
    const [acme, team] = [
      await served.memory.write({ content: 'acme plan', scope: ['acme'] }),
      await served.memory.write({ content: 'team plan', scope: ['acme', 'team'] }),
    ];
    await served.memory.write({ content: 'globex secret', scope: ['globex'] });
    await served.checkpoints.put({ threadId: 'thread', checkpointId: '01', checkpoint: {} });
    const mine = await local.memory.write({ content: 'laptop note', scope: ['acme'] });
    const peer = httpPeer(server.syncUrl, { token: TOKEN });
    expect(await sync(local, peer, { scope: ['acme'] })).toEqual({ toA: 2, toB: 1, merged: 0, batches: 2 });
    expect((await local.snapshot()).memory.map((item) => item.id).sort()).toEqual([acme.id, team.id, mine.id].sort());
    expect((await local.snapshot()).checkpoints).toEqual([]);
    expect((await served.memory.get(mine.id)).content).toBe('laptop note');
    // A request without a scope is limited to the server's; a narrower one is answered.
    expect(await peer.changes({})).toHaveLength(3);
    expect(await peer.changes({}, { scope: ['acme', 'team'] })).toHaveLength(1);
    expect(await sync(local, peer, { scope: ['acme'] })).toEqual({ toA: 0, toB: 0, merged: 0, batches: 0 });
    // Wider, or beside: refused before anything is read or written.
    const before = await served.log.head('state');
    const other = await local.memory.write({ content: 'globex note', scope: ['globex'] });
    // A sync of the whole store exchanges retention policies first, which a server bound to a subtree refuses.
    const whole = await sync(local, peer).catch((error: unknown) => error);
    expect(whole).toMatchObject({ code: 'http', status: 403 });
    expect(String(whole)).toContain('this server syncs the subtree at acme, not the whole store with its retention policies: sync with the scope acme');
    for (const scope of [[], ['globex']]) {
      const refused = await sync(local, peer, { scope }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'http', status: 403 });
      expect(String(refused)).toContain('this server syncs the subtree at acme');
    }
    const sneaked = await post('receive', { events: await local.changes({}, { scope: ['globex'] }) }, { authorization: `Bearer ${TOKEN}` });
    expect([sneaked.status, ((await sneaked.json()) as { error: { field: string } }).error.field]).toEqual([400, '0']);
    expect(await served.log.head('state')).toBe(before);
    await expect(served.memory.get(other.id)).rejects.toThrow();
  });

  it('reports a sync request that fails for no typed reason to the log it was given, and answers 500', async () => {
    const lines: string[] = [];
    // The store fails the way a bug would: with an error that is none of agentstate's.
    const broken = new Proxy(served, {
      get: (target, key) => (key === 'vector' ? () => Promise.reject(new TypeError('a bug in the store')) : Reflect.get(target, key)),
    });
    const handle = await serveHttp(broken, {}, { port: 0 }, (line) => lines.push(line));
    try {
      const answer = await fetch(`${handle.syncUrl}/vector`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"vector":{}}' });
      expect(answer.status).toBe(500);
      expect(lines).toEqual([expect.stringContaining('a sync request failed: TypeError: a bug in the store')]);
    } finally {
      await handle.close();
    }
  });
});
