/**
 * Sync under faults (docs/contract.md §12), across real processes: `agentstate sync` killed
 * with SIGKILL in the middle of a run between two files and between a file and a PostgreSQL
 * schema (there inside a batch's open transaction), stopped by Ctrl-C, an MCP HTTP server and its client each
 * killed in the middle of a sync, and a connection cut in the middle of a batch's request or
 * answer. Each time the batches committed stay, the cut one left nothing behind, and a second
 * run finishes: both sides then hold every event exactly once, read the same and verify.
 * A test pauses a run by holding a lock the run needs, so it kills it at a known point, never
 * after a sleep.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeSnapshot, httpPeer, type Snapshot, SyncHttpError, sync } from '@agentstate/core';
import { runMcpServer } from '@agentstate/mcp';
import { openDatabase } from '@agentstate/open';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';
import { dropSchema, freshSchema, testServer } from '../../postgres/test/cluster.js';
import { BIN, environment, type Result, tempDir } from './helpers.js';
import { okJson } from './in-process.js';

const TOKEN = 'a-token-of-32-characters-or-more';
const tmp = tempDir();
let cluster: string;
const schemas: string[] = [];
const processes = new Set<ChildProcessWithoutNullStreams>();

beforeAll(async () => {
  cluster = (await testServer()).url;
});

afterAll(async () => {
  // A test that failed half-way leaves no process behind.
  for (const child of processes) child.kill('SIGKILL');
  for (const schema of schemas) await dropSchema(cluster, schema);
  tmp.cleanup();
});

/** A store the checks open: a SQLite file or a PostgreSQL schema's URL. */
type Store = Awaited<ReturnType<typeof openDatabase>>;
const open = (target: string): Promise<Store> => openDatabase(target, { create: true, embedder: 'none' });

/** Runs `body` over the stores, closed after. */
async function withStores<T>(targets: readonly string[], body: (stores: Store[]) => Promise<T>): Promise<T> {
  const stores: Store[] = [];
  try {
    for (const target of targets) stores.push(await open(target));
    return await body(stores);
  } finally {
    for (const store of stores) await store.close();
  }
}

/** Writes `n` memory items in `scope` into `target`: one event each. */
const write = (target: string, scope: string, n: number): Promise<string[]> =>
  withStores([target], async ([store]) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) ids.push((await store!.memory.write({ content: `${scope} fact ${i}`, scope: [scope] })).id);
    return ids;
  });

/** The read model without local seqs, which differ between replicas. */
const replicaText = (snapshot: Snapshot) =>
  encodeSnapshot({ ...snapshot, seq: 0, operations: snapshot.operations.map((operation) => ({ ...operation, seq: 0 })) });

/** Both stores hold the same `total` events, each origin's once, read the same, and verify. */
async function expectUnion(targets: readonly string[], total: number): Promise<void> {
  await withStores(targets, async (stores) => {
    const held = await Promise.all(stores.map(async (store) => (await store.changes({})).map((e) => `${e.origin}#${e.originSeq} ${e.digest}`).sort()));
    for (const events of held) {
      expect(events).toHaveLength(total);
      expect(new Set(events.map((e) => e.split(' ')[0])).size, 'events held once per (origin, originSeq)').toBe(total);
    }
    expect(held[1]).toEqual(held[0]);
    const [a, b] = await Promise.all(stores.map(async (store) => replicaText(await store.snapshot())));
    expect(b).toBe(a);
    for (const store of stores) expect((await store.verify()).ok).toBe(true);
  });
}

/** Polls `probe` until it answers, failing when `running` ends first, or a run stuck past the hang guard. */
async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, running?: Running): Promise<T> {
  const deadline = performance.now() + HANG_GUARD_MS;
  let ended: Result | undefined;
  void running?.ended.then((r) => (ended = r));
  for (;;) {
    if (ended !== undefined) throw new Error(`${what}: the process ended first, ${ended.code}: ${ended.stderr}`);
    const answer = await probe();
    if (answer !== undefined) return answer;
    if (performance.now() > deadline) throw new Error(`${what}: never happened`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The number of `state` events of a SQLite file. */
function sqliteHead(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM events WHERE stream = 'state'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/**
 * Takes the write lock of a SQLite file as soon as its head has passed `from`, and holds it: a
 * writer after it (the sync's next batch) waits. Taking the lock and reading the head are one
 * step, so the head cannot move between them.
 */
function holdWhenMoved(path: string, from: number, running: Running): Promise<{ head: number; release(): void }> {
  const db = new Database(path);
  db.pragma('busy_timeout = 0');
  // A receive writes the sender's word that it holds the batch after the batch's transaction: held before it, the
  // receive would never answer.
  const words = () => (db.prepare("SELECT count(*) AS n FROM events WHERE stream = 'sync' AND type = 'sync.covered'").get() as { n: number }).n;
  const wordsBefore = words();
  return until(
    `${path} receiving a batch`,
    () => {
      try {
        db.exec('BEGIN IMMEDIATE');
      } catch {
        return undefined;
      }
      const head = (db.prepare("SELECT count(*) AS n FROM events WHERE stream = 'state'").get() as { n: number }).n;
      if (head > from && words() > wordsBefore)
        return {
          head,
          release: () => {
            db.exec('ROLLBACK');
            db.close();
          },
        };
      db.exec('ROLLBACK');
      return undefined;
    },
    running,
  );
}

/** A running `agentstate` process and how it ended. */
interface Running {
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  ended: Promise<Result & { signal: NodeJS.Signals | null }>;
}

function run(args: readonly string[]): Running {
  const child = spawn(process.execPath, [BIN, ...args], { env: environment({ AGENTSTATE_MCP_TOKEN: TOKEN }) });
  processes.add(child);
  child.on('exit', () => processes.delete(child));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const ended = new Promise<Result & { signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr })),
  );
  return { child, stderr: () => stderr, ended };
}

/** Kills a process with SIGKILL and waits for it to be gone. */
async function kill(running: Running): Promise<void> {
  running.child.kill('SIGKILL');
  expect((await running.ended).signal).toBe('SIGKILL');
}

/** An MCP HTTP server process serving `db` to sync, and its sync URL. */
async function serve(db: string): Promise<Running & { url: string }> {
  const server = run(['mcp', '--http', '--port', '0', '--allow-subscopes', '--embedder', 'none', '--db', db]);
  const url = await until('the server listening', () => /serving .* on (http:\/\/\S+)\/mcp/.exec(server.stderr())?.[1], server);
  return { ...server, url: `${url}/sync` };
}

/** Stops a server as a signal does, and waits for it to be gone. */
async function stop(server: Running): Promise<void> {
  server.child.kill('SIGTERM');
  expect((await server.ended).code).toBe(0);
}

/** Where a {@link SyncProxy} cuts the connection: after `bytes` of the body of a `route` request, or of its answer. */
interface Cut {
  route: 'start' | 'receive';
  in: 'request' | 'answer';
  bytes: number;
}

/** The first HTTP message of a stream: its route (for a request), where its head ends, and where it ends (undefined: not all here). */
interface Message {
  route: string;
  head: number;
  end: number | undefined;
}

/** The first message in `bytes`, or undefined while its head is incomplete. */
function firstMessage(bytes: Buffer): Message | undefined {
  const head = bytes.indexOf('\r\n\r\n') + 4;
  if (head < 4) return undefined;
  const text = bytes.subarray(0, head).toString('latin1');
  const length = /^content-length: *(\d+)/im.exec(text)?.[1];
  // A chunked body ends with its empty last chunk, a text JSON (which holds no raw line break) never contains.
  const last = length === undefined ? bytes.indexOf('\r\n0\r\n\r\n', head - 2) : -1;
  return {
    route: /^POST \/sync\/(\w+)/.exec(text)?.[1] ?? '',
    head,
    end: length !== undefined ? head + Number(length) : last >= 0 ? last + 7 : undefined,
  };
}

/**
 * A loopback TCP proxy in front of a sync server that reads the HTTP requests and answers going
 * through it: it counts the sync requests forwarded whole and the answers to them, and cuts both
 * sockets at a {@link Cut} once. A client gone with a request in flight leaves the server's socket
 * open until its answer, so the test can see the server finish it.
 */
class SyncProxy {
  /** Requests forwarded whole, by route. */
  readonly sent = new Map<string, number>();
  /** Answers forwarded (or read, their client gone), by the route of their request. */
  readonly answered = new Map<string, number>();
  readonly #sockets = new Set<Socket>();
  readonly #server = createServer((client) => this.#connect(client));
  #cut: Cut | undefined;

  constructor(
    private readonly target: URL,
    cut?: Cut,
  ) {
    this.#cut = cut;
  }

  /** Listens on a free loopback port; the sync URL through the proxy. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as { port: number };
    return `http://127.0.0.1:${port}/sync`;
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #connect(client: Socket): void {
    const server = connect(Number(this.target.port), this.target.hostname);
    for (const socket of [client, server]) {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    const routes: string[] = [];
    const count = (map: Map<string, number>, route: string) => map.set(route, (map.get(route) ?? 0) + 1);
    const cutBoth = () => {
      client.destroy();
      server.destroy();
    };
    // Each direction: the bytes of its message not yet whole, forwarded as they come unless the cut falls in them.
    const relay = (from: Socket, to: Socket, side: Cut['in'], done: (route: string) => void) => {
      let pending = Buffer.alloc(0);
      from.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        let forwarded = pending.length - chunk.length;
        for (;;) {
          const message = firstMessage(pending);
          if (message === undefined) break;
          const route = side === 'request' ? message.route : (routes[0] ?? '');
          const cut = this.#cut;
          if (cut?.in === side && cut.route === route && pending.length >= message.head + cut.bytes) {
            this.#cut = undefined;
            if (to.destroyed) return cutBoth();
            return void to.write(pending.subarray(forwarded, message.head + cut.bytes), cutBoth);
          }
          if (message.end === undefined || pending.length < message.end) break;
          if (!to.destroyed) to.write(pending.subarray(forwarded, message.end));
          done(route);
          pending = pending.subarray(message.end);
          forwarded = 0;
        }
        if (!to.destroyed && pending.length > forwarded) to.write(pending.subarray(forwarded));
      });
    };
    relay(client, server, 'request', (route) => {
      routes.push(route);
      count(this.sent, route);
    });
    relay(server, client, 'answer', () => {
      count(this.answered, routes.shift() ?? '');
      if (client.destroyed && routes.length === 0) server.destroy();
    });
    client.on('close', () => {
      if (routes.length === 0) server.destroy();
    });
    server.on('close', () => client.destroy());
  }
}

/**
 * Files `<name>-a.db` of 12 events and `<name>-b.db` of 60, and `sync a b` running, 4 events a batch, held (by
 * {@link holdWhenMoved}) after some of b's events have reached a: it first pulls b's events into a.
 */
async function heldBetweenFiles(name: string): Promise<{ a: string; b: string; syncing: Running; held: { head: number; release(): void } }> {
  const [a, b] = [tmp.path(`${name}-a.db`), tmp.path(`${name}-b.db`)];
  await write(a, 'left', 12);
  await write(b, 'right', 60);
  const syncing = run(['sync', a, b, '--batch-size', '4']);
  return { a, b, syncing, held: await holdWhenMoved(a, 12, syncing) };
}

describe('agentstate sync killed in the middle', () => {
  it('between two files: the batches received stay, and a second run brings the rest, each event once', async () => {
    const { a, b, syncing, held } = await heldBetweenFiles('killed');
    await kill(syncing);
    held.release();
    const kept = held.head - 12;
    expect(kept % 4).toBe(0);
    expect(kept).toBeLessThan(60);
    expect(sqliteHead(b)).toBe(60);
    expect(okJson(['sync', a, b, '--batch-size', '4'])).toMatchObject({ toA: 60 - kept, toB: 12, merged: 0, batches: (60 - kept) / 4 + 3 });
    await expectUnion([a, b], 72);
  });

  it('between a file and a PostgreSQL schema, inside a batch: its transaction leaves nothing, and a second run brings it', async () => {
    const schema = freshSchema('faults');
    schemas.push(schema);
    const [a, b] = [tmp.path('pa.db'), `${cluster}?schema=${schema}`];
    const [shared] = await write(a, 'left', 1);
    await write(b, 'right', 3);
    await withStores([a, b], ([pa, pb]) => sync(pa!, pb!));
    // 31 events for b, 8 a batch: the third batch holds 4 new items, then an update of the item b holds.
    await write(a, 'left', 20);
    await withStores([a], async ([pa]) => void (await pa!.memory.update(shared!, { content: 'changed on the laptop' })));
    await write(a, 'left', 10);
    // One session holds the row; another watches, since a transaction sees the server's activity as it was at its start.
    const [locker, watcher] = [new pg.Client({ connectionString: cluster }), new pg.Client({ connectionString: cluster })];
    await Promise.all([locker.connect(), watcher.connect()]);
    try {
      const lockerPid = Number((await locker.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
      const count = async (query: string) => Number((await watcher.query(query)).rows[0].n);
      const others = (where: string) =>
        count(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid NOT IN (pg_backend_pid(), ${lockerPid}) AND ${where}`);
      await locker.query('BEGIN');
      await locker.query(`SELECT id FROM "${schema}".memory WHERE id = $1 FOR UPDATE`, [shared]);
      const syncing = run(['sync', a, b, '--batch-size', '8']);
      await until(
        'the sync waiting on the locked row inside its batch',
        async () => ((await others("wait_event_type = 'Lock'")) > 0 ? true : undefined),
        syncing,
      );
      await kill(syncing);
      await locker.query('ROLLBACK');
      // The killed process's server session ends once it finds its client gone, rolling its transaction back.
      await until('the killed sync leaving the server', async () => ((await others("backend_type = 'client backend'")) === 0 ? true : undefined));
      expect(await count(`SELECT count(*) AS n FROM "${schema}".events WHERE stream = 'state'`)).toBe(4 + 16);
    } finally {
      await Promise.all([locker.end(), watcher.end()]);
    }
    expect(okJson(['sync', a, b, '--batch-size', '8'])).toMatchObject({ toA: 0, toB: 15, merged: 0, batches: 2 });
    await expectUnion([a, b], 35);
  });
});

/**
 * A laptop's 40 events syncing, 4 a batch, through a {@link SyncProxy} into a server holding `own`
 * of its own, stopped with a batch in flight: the server's file is held, so the server waits to
 * write the batch it received whole.
 */
async function batchInFlight(name: string, own: number) {
  const [laptop, served] = [tmp.path(`laptop-${name}.db`), tmp.path(`served-${name}.db`)];
  await write(laptop, 'laptop', 40);
  await write(served, 'server', own);
  const server = await serve(served);
  const proxy = new SyncProxy(new URL(server.url));
  const syncing = run(['sync', laptop, await proxy.listen(), '--batch-size', '4']);
  const held = await holdWhenMoved(served, own, syncing);
  await until('a batch in flight', () => ((proxy.sent.get('receive') ?? 0) * 4 > held.head - own ? true : undefined), syncing);
  return { laptop, served, server, proxy, syncing, held };
}

describe('agentstate sync stopped by a signal', () => {
  it('Ctrl-C: the batch in flight stays, it exits 130 saying what stays, and a second run brings the rest', async () => {
    const { a, b, syncing, held } = await heldBetweenFiles('interrupted');
    syncing.child.kill('SIGINT');
    held.release();
    const ended = await syncing.ended;
    // The signal is taken between two batches or while one waits for the lock: that one then finishes.
    const kept = sqliteHead(a) - 12;
    expect([held.head - 12, held.head - 8]).toContain(kept);
    expect(ended).toMatchObject({ code: 130, signal: null, stdout: '' });
    expect(ended.stderr).toBe(
      'agentstate: stopping after the batch in flight (SIGINT again stops at once)\n' +
        `agentstate: sync stopped by SIGINT after ${kept / 4} ${kept === 4 ? 'batch' : 'batches'}: ${kept} events into ${a} and 0 events into ${b} stay; run it again to go on\n`,
    );
    expect(okJson(['sync', a, b, '--batch-size', '4'])).toMatchObject({ toA: 60 - kept, toB: 12, merged: 0, batches: (60 - kept) / 4 + 3 });
    await expectUnion([a, b], 72);
  });
});

describe('sync over HTTP, a process killed in the middle', () => {
  it('the server, with a batch in flight: restarted on its file, the client resumes where it stopped', async () => {
    const { laptop, served, server, proxy, syncing, held } = await batchInFlight('server-killed', 4);
    try {
      await kill(server);
      const failed = await syncing.ended;
      held.release();
      // 3: the environment refused, as for a network error.
      expect(failed.code).toBe(3);
      expect(failed.stderr).toMatch(/^agentstate: sync request to http:\S+\/sync\/receive got no answer/);
      expect(sqliteHead(served)).toBe(held.head);
      const again = await serve(served);
      try {
        const kept = held.head - 4;
        const resumed = okJson(['sync', laptop, again.url, '--batch-size', '4'], { env: { AGENTSTATE_MCP_TOKEN: TOKEN } });
        expect(resumed).toMatchObject({ toA: 0, toB: 40 - kept, merged: 0, batches: (40 - kept) / 4 });
      } finally {
        await stop(again);
      }
    } finally {
      await proxy.close();
    }
    await expectUnion([laptop, served], 44);
  });

  it('the client, with a batch in flight: the server still takes it, and the resumed run does not send it again', async () => {
    const { laptop, served, server, proxy, syncing, held } = await batchInFlight('client-killed', 0);
    try {
      await kill(syncing);
      held.release();
      await until('the server answering the batch of the killed client', () =>
        proxy.answered.get('receive') === proxy.sent.get('receive') ? true : undefined,
      );
      expect(sqliteHead(served)).toBe(held.head + 4);
      const resumed = okJson(['sync', laptop, server.url, '--batch-size', '4'], { env: { AGENTSTATE_MCP_TOKEN: TOKEN } });
      expect(resumed).toMatchObject({ toA: 0, toB: 40 - held.head - 4 });
    } finally {
      await proxy.close();
      await stop(server);
    }
    await expectUnion([laptop, served], 40);
  });
});

describe('sync over HTTP, the connection cut in the middle of a batch', () => {
  for (const cut of [
    { route: 'receive', in: 'request', bytes: 200 },
    { route: 'start', in: 'answer', bytes: 200 },
  ] as const)
    it(`in the ${cut.in} of /sync/${cut.route}: a network error, nothing of the batch written, and a second run finishes`, async () => {
      const [laptop, served] = [tmp.path(`laptop-${cut.route}.db`), tmp.path(`served-${cut.route}.db`)];
      // What the cut batch goes to: the server's receive, or the laptop's after the start that asked for it.
      await write(laptop, 'laptop', cut.route === 'receive' ? 8 : 0);
      await write(served, 'server', cut.route === 'start' ? 8 : 0);
      // The server's process is not what a cut checks: it serves from the test's process.
      const server = await runMcpServer({
        db: served,
        transport: 'http',
        http: { port: 0, token: TOKEN },
        allowSubscopes: true,
        embedder: 'none',
        log: () => {},
      });
      const proxy = new SyncProxy(new URL(server.syncUrl!), cut);
      try {
        const url = await proxy.listen();
        await withStores([laptop], async ([local]) => {
          const error = await sync(local!, httpPeer(url, { token: TOKEN }), { batchSize: 4 }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(SyncHttpError);
          expect(error).toMatchObject({ code: 'network', status: undefined });
          expect((error as Error).message).toContain(`/sync/${cut.route} got no answer`);
        });
        expect([sqliteHead(laptop), sqliteHead(served)]).toEqual(cut.route === 'receive' ? [8, 0] : [0, 8]);
        await withStores([laptop], async ([local]) =>
          expect(await sync(local!, httpPeer(server.syncUrl!, { token: TOKEN }), { batchSize: 4 })).toEqual(
            cut.route === 'receive' ? { toA: 0, toB: 8, merged: 0, batches: 2 } : { toA: 8, toB: 0, merged: 0, batches: 2 },
          ),
        );
      } finally {
        await proxy.close();
        await server.close();
      }
      await expectUnion([laptop, served], 8);
    });
});
