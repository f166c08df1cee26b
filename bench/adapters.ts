/**
 * Adapter benchmark (issue 13). Prints two tables, each comparing agentstate
 * with the framework's own store on the same work in the same run (median of
 * 3 rounds, each on a fresh file):
 *  1. LangGraph checkpointers: put() per second over one thread of realistic
 *     checkpoints (2–5 KB of channel values each); then the same number of
 *     puts spread over 16 threads saving at once (each thread its own
 *     sequential puts, as a server running 16 conversations); for each, the
 *     process CPU time per put (steadier than the rate on a shared machine)
 *     and the WAL pages a put appends (counted by a second connection over
 *     96 more puts, and named by B-tree in a second table); then getTuple() p50/p95 latency, latest and by id, at
 *     that many checkpoints in the first thread. The load average is printed
 *     with the table.
 *     `SqliteSaver` (@langchain/langgraph-checkpoint-sqlite) as it ships (WAL
 *     with better-sqlite3's default, synchronous NORMAL: a power cut may lose
 *     the last commits) and with FULL (durable); the level is read back from
 *     the file and printed. Goal: agentstate's checkpointer ≥ 1.5× SqliteSaver while durable.
 *     Two raw better-sqlite3 rows (one serialized checkpoint row per
 *     transaction, FULL and NORMAL) show the driver's ceiling on this disk.
 *  2. OpenAI Agents sessions: addItems() items per second (one call per turn
 *     of four items) and getItems() latency, `AgentStateSession` on the
 *     in-memory provider and on SQLite against the SDK's `MemorySession`,
 *     each case after one uncounted warm-up round.
 * Run: `npm run build` at the root, then `npm run adapters -w @agentstate/bench` (under 3 minutes).
 * Sizes: BENCH_ADAPTERS_CHECKPOINTS, BENCH_ADAPTERS_TURNS (0 skips the sessions).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { createInMemoryProvider } from '@agentstate/core';
import { openSqliteSaver } from '@agentstate/langgraph';
import { AgentStateSession } from '@agentstate/openai-agents';
import type { SynchronousLevel } from '@agentstate/sqlite';
import type { BaseCheckpointSaver, Checkpoint, CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { type AgentInputItem, MemorySession, type Session } from '@openai/agents-core';
import { fmt, measure, percentile, printTable } from './table.js';
import { seededRandom } from './turn-text.js';

const CHECKPOINTS = Number(process.env.BENCH_ADAPTERS_CHECKPOINTS ?? 1_000);
const TURNS = Number(process.env.BENCH_ADAPTERS_TURNS ?? 500);
const ROUNDS = 3;
const READS = 500;
/** Threads saving at once in the concurrent run. */
const THREADS = 16;
/** Puts of the WAL page count, one thread and {@link THREADS} (small enough that SQLite's automatic checkpoint at 1,000 pages never empties the WAL mid-count). */
const PAGE_PUTS = 96;

const dir = mkdtempSync(join(tmpdir(), 'agentstate-bench-adapters-'));
const file = (name: string) => join(dir, name);

const WORDS = (
  'deploy staging production rollback database migration cache redis postgres user prefers dark mode lisbon office friday ' +
  'review tests coverage latency budget alert pager incident kubernetes cluster node memory leak profile flame graph ' +
  'invoice customer billing refund quota limit token model prompt context window agent tool call retry backoff timeout'
).split(' ');
const random = seededRandom(42);
const sentence = (n = 12) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');
const median = (xs: readonly number[]) => percentile(xs, 50);

/** Latency samples of `n` awaited calls, in milliseconds. */
async function latencies(n: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const start = performance.now();
    await call(i);
    samples.push(performance.now() - start);
  }
  return samples;
}

const p50p95 = (samples: readonly number[]) => `${fmt(percentile(samples, 50), 3)} / ${fmt(percentile(samples, 95), 3)}`;

// ---------------------------------------------------------------- 1. LangGraph checkpointers

/** What the benchmark calls on a checkpointer. */
type BenchSaver = Pick<BaseCheckpointSaver, 'put' | 'getTuple'>;

/** A checkpointer opened for one round. */
interface OpenedSaver {
  saver: BenchSaver;
  close(): Promise<void> | void;
  /** Called after the first put (SqliteSaver creates its tables then): applies the case's setting, returns the durability read back. */
  ready?(): string;
}

/** A checkpointer under test, opened on a fresh file per round. */
interface SaverCase {
  name: string;
  /** What a commit promises, printed unless `ready` reads it back. */
  durability: string;
  /** The SqliteSaver case at the same durability (an index into {@link SAVERS}). */
  peer: number;
  open(path: string): OpenedSaver | Promise<OpenedSaver>;
}

const SYNCHRONOUS = ['off', 'normal', 'full', 'extra'];

/** SqliteSaver on its own better-sqlite3 connection; `synchronous` overrides what it ships with. */
function sqliteSaver(synchronous?: SynchronousLevel): SaverCase['open'] {
  return (path) => {
    const db = new Database(path);
    const saver = new SqliteSaver(db);
    return {
      saver,
      close: () => {
        db.close();
      },
      ready: () => {
        if (synchronous !== undefined) db.pragma(`synchronous = ${synchronous}`);
        const level = SYNCHRONOUS[db.pragma('synchronous', { simple: true }) as number] ?? '?';
        return `WAL, synchronous ${level.toUpperCase()}`;
      },
    };
  };
}

/** AgentStateSaver on its own SQLite file: the default (FULL, an fsync per commit) or `synchronous: 'normal'`. */
function agentStateSaver(synchronous?: SynchronousLevel): SaverCase['open'] {
  return async (path) => {
    const saver = await openSqliteSaver(path, synchronous === undefined ? {} : { synchronous });
    return { saver, close: () => saver.close() };
  };
}

/**
 * The driver's ceiling: better-sqlite3 alone doing what a put must (serialize
 * the checkpoint and its metadata, insert one row in its own transaction, WAL),
 * with no checkpointer around it. getTuple is one indexed SELECT and a parse.
 */
function rawRows(synchronous: SynchronousLevel): SaverCase['open'] {
  return (path) => {
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.exec(
      'CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, checkpoint TEXT NOT NULL, metadata TEXT NOT NULL, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id))',
    );
    const insert = db.prepare('INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?, ?, ?, ?)');
    const latest = db.prepare('SELECT checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1');
    const byId = db.prepare('SELECT checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?');
    const saver: BenchSaver = {
      put: async (config, checkpoint, metadata) => {
        const { thread_id, checkpoint_ns, checkpoint_id } = config.configurable as Record<string, string>;
        insert.run(thread_id, checkpoint_ns, checkpoint.id, checkpoint_id ?? null, JSON.stringify(checkpoint), JSON.stringify(metadata));
        return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
      },
      getTuple: async (config) => {
        const { thread_id, checkpoint_ns, checkpoint_id } = config.configurable as Record<string, string>;
        const row = (checkpoint_id ? byId.get(thread_id, checkpoint_ns, checkpoint_id) : latest.get(thread_id, checkpoint_ns)) as
          | { checkpoint: string }
          | undefined;
        return row && { config, checkpoint: JSON.parse(row.checkpoint) as Checkpoint };
      },
    };
    return {
      saver,
      close: () => {
        db.close();
      },
    };
  };
}

const SAVERS: SaverCase[] = [
  { name: 'SqliteSaver', durability: 'as shipped', peer: 0, open: sqliteSaver() },
  { name: 'SqliteSaver', durability: 'FULL', peer: 1, open: sqliteSaver('full') },
  { name: 'AgentStateSaver', durability: 'default (FULL)', peer: 1, open: agentStateSaver() },
  { name: 'AgentStateSaver', durability: 'NORMAL', peer: 0, open: agentStateSaver('normal') },
  { name: 'raw better-sqlite3 row (ceiling)', durability: 'WAL, synchronous FULL', peer: 1, open: rawRows('full') },
  { name: 'raw better-sqlite3 row (ceiling)', durability: 'WAL, synchronous NORMAL', peer: 0, open: rawRows('normal') },
];

/** One thread of checkpoints, each carrying 2–5 KB of channel values, the same for every saver. */
function checkpoints(n: number): Array<{ checkpoint: Checkpoint; metadata: CheckpointMetadata }> {
  const messages: Array<{ role: string; content: string }> = [];
  return Array.from({ length: n }, (_, step) => {
    // A window of recent messages between 2 and 5 KB, as a trimmed chat keeps: new ones in, old ones out.
    const target = 2_000 + random() * 3_000;
    do messages.push({ role: messages.length % 2 === 0 ? 'user' : 'assistant', content: sentence(20 + Math.floor(random() * 40)) });
    while (JSON.stringify(messages).length < target);
    while (JSON.stringify(messages).length > target && messages.length > 1) messages.shift();
    const version = step + 1;
    return {
      checkpoint: {
        v: 4,
        id: uuid6(step),
        ts: new Date(Date.UTC(2026, 0, 1, 0, 0, step)).toISOString(),
        channel_values: { messages: [...messages], summary: sentence(8), step },
        channel_versions: { messages: version, summary: version, step: version, __start__: 1 },
        versions_seen: { agent: { messages: version - 1 }, tools: { messages: version - 1 } },
      },
      metadata: { source: 'loop', step, parents: {} },
    };
  });
}

async function putAll(saver: BenchSaver, thread: ReturnType<typeof checkpoints>, threadId = 'bench'): Promise<void> {
  let config = { configurable: { thread_id: threadId, checkpoint_ns: '' } } as { configurable: Record<string, unknown> };
  for (const { checkpoint, metadata } of thread) {
    config = (await saver.put(config, checkpoint, metadata, checkpoint.channel_versions)) as typeof config;
  }
}

/** WAL pages per put, in all and by the B-tree each page belongs to (`page 1` is the file header). */
interface WalPages {
  perPut: number;
  byTree: Map<string, number>;
}

/**
 * WAL pages (frames) per put: a second connection empties the WAL, `puts`
 * puts run in `threads` threads, and the frames the WAL then holds are
 * counted. Each commit appends every page it changed; what a put costs the
 * disk, whatever the rate on a loaded machine. The frames' page numbers are
 * read from the WAL file and named by `dbstat` (table or index), so the
 * count says which B-trees a put writes.
 */
async function walPagesPerPut(path: string, saver: BenchSaver, threads: ReturnType<typeof checkpoints>[], label: string): Promise<WalPages> {
  const side = new Database(path);
  try {
    const emptied = side.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    if (emptied[0]?.busy !== 0) return { perPut: Number.NaN, byTree: new Map() };
    await Promise.all(threads.map((thread, i) => putAll(saver, thread, `${label}-${i}`)));
    const puts = threads.reduce((n, t) => n + t.length, 0);
    const byTree = walFramesByTree(side, `${path}-wal`, puts);
    const [counted] = side.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>;
    return { perPut: (counted?.log ?? Number.NaN) / puts, byTree };
  } finally {
    side.close();
  }
}

/** The frames of a WAL file per put, by the B-tree (table or index) that owns each frame's page. */
function walFramesByTree(db: Database.Database, walPath: string, puts: number): Map<string, number> {
  const owners = new Map<number, string>();
  for (const { name, pageno } of db.prepare('SELECT name, pageno FROM dbstat').all() as Array<{ name: string; pageno: number }>) owners.set(pageno, name);
  const wal = readFileSync(walPath);
  // A WAL is a 32-byte header, then frames of a 24-byte header (the page number first) and one page.
  const pageSize = wal.readUInt32BE(8);
  const byTree = new Map<string, number>();
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    const page = wal.readUInt32BE(at);
    const tree = page === 1 ? 'page 1' : (owners.get(page) ?? 'free');
    byTree.set(tree, (byTree.get(tree) ?? 0) + 1 / puts);
  }
  return byTree;
}

/** `tree 1.0, …`, most pages first. */
const treeList = (byTree: Map<string, number>) =>
  [...byTree]
    .sort((a, b) => b[1] - a[1])
    .map(([tree, pages]) => `${tree} ${fmt(pages, 2)}`)
    .join(', ');

/** put/s of each case, one thread and {@link THREADS} at once, for the ratios. */
interface Rates {
  one: number;
  many: number;
}

async function benchCheckpointers(): Promise<void> {
  const thread = checkpoints(CHECKPOINTS);
  // The same number of puts in 16 threads of their own checkpoints.
  const threads = Array.from({ length: THREADS }, () => checkpoints(Math.ceil(CHECKPOINTS / THREADS)));
  const manyPuts = threads.reduce((n, t) => n + t.length, 0);
  // The WAL page counts' own puts, the same for every saver.
  const pageThread = checkpoints(PAGE_PUTS);
  const pageThreads = Array.from({ length: THREADS }, () => checkpoints(PAGE_PUTS / THREADS));
  const bytes = thread.map((c) => JSON.stringify(c.checkpoint.channel_values).length);
  const measured: Array<{
    c: SaverCase;
    durability: string;
    rates: Rates;
    cpuUs: Rates;
    pages: { one: WalPages; many: WalPages };
    latest: number[];
    byId: number[];
  }> = [];
  for (const [index, c] of SAVERS.entries()) {
    const one: number[] = [];
    const many: number[] = [];
    const cpu: number[] = [];
    const cpuMany: number[] = [];
    const none: WalPages = { perPut: Number.NaN, byTree: new Map() };
    let pages = { one: none, many: none };
    let durability = c.durability;
    let latest: number[] = [];
    let byId: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const path = file(`saver-${index}-${round}.db`);
      const opened = await c.open(path);
      // SqliteSaver creates its tables on first use: one put outside the timing, on another thread.
      await opened.saver.put({ configurable: { thread_id: 'warm-up', checkpoint_ns: '' } }, thread[0]!.checkpoint, thread[0]!.metadata, {});
      durability = opened.ready?.() ?? durability;
      const { wallMs, cpuMs } = await measure(() => putAll(opened.saver, thread));
      one.push((CHECKPOINTS / wallMs) * 1000);
      cpu.push((cpuMs / CHECKPOINTS) * 1000);
      const concurrent = await measure(() => Promise.all(threads.map((t, i) => putAll(opened.saver, t, `concurrent-${i}`))));
      many.push((manyPuts / concurrent.wallMs) * 1000);
      cpuMany.push((concurrent.cpuMs / manyPuts) * 1000);
      if (round === ROUNDS - 1) {
        pages = {
          one: await walPagesPerPut(path, opened.saver, [pageThread], 'pages'),
          many: await walPagesPerPut(path, opened.saver, pageThreads, 'pages-concurrent'),
        };
        latest = await latencies(READS, () => opened.saver.getTuple({ configurable: { thread_id: 'bench', checkpoint_ns: '' } }));
        byId = await latencies(READS, (i) =>
          opened.saver.getTuple({ configurable: { thread_id: 'bench', checkpoint_ns: '', checkpoint_id: thread[(i * 7919) % CHECKPOINTS]!.checkpoint.id } }),
        );
        const tuple = await opened.saver.getTuple({ configurable: { thread_id: 'bench', checkpoint_ns: '' } });
        if (tuple?.checkpoint.id !== thread.at(-1)!.checkpoint.id) throw new Error(`${c.name} lost the latest checkpoint`);
        for (const [i, t] of threads.entries()) {
          const last = await opened.saver.getTuple({ configurable: { thread_id: `concurrent-${i}`, checkpoint_ns: '' } });
          if (last?.checkpoint.id !== t.at(-1)!.checkpoint.id) throw new Error(`${c.name} lost the latest checkpoint of a concurrent thread`);
        }
      }
      await opened.close();
    }
    measured.push({ c, durability, rates: { one: median(one), many: median(many) }, cpuUs: { one: median(cpu), many: median(cpuMany) }, pages, latest, byId });
  }
  const shipped = measured[0]!.rates;
  const ratios = (rates: Rates, to: Rates) => `${fmt(rates.one / to.one, 2)}× / ${fmt(rates.many / to.many, 2)}×`;
  printTable(
    `LangGraph checkpointers: ${fmt(CHECKPOINTS)} put() in one thread, then ${fmt(manyPuts)} in ${THREADS} threads at once (channel values ${fmt(Math.min(...bytes))}–${fmt(Math.max(...bytes))} B), median of ${ROUNDS}; getTuple() at ${fmt(CHECKPOINTS)} checkpoints; load average ${loadavg()
      .map((l) => fmt(l, 1))
      .join(' / ')} (1 / 5 / 15 min)`,
    [
      'checkpointer',
      'durability',
      'put/s, 1 thread',
      `put/s, ${THREADS} threads`,
      `CPU µs per put (1 / ${THREADS})`,
      `WAL pages per put (1 / ${THREADS})`,
      'vs SqliteSaver, same durability (1 / 16)',
      'vs SqliteSaver as shipped (1 / 16)',
      'getTuple latest p50 / p95 ms',
      'getTuple by id p50 / p95 ms',
    ],
    measured.map(({ c, durability, rates, cpuUs, pages, latest, byId }) => [
      c.name,
      durability,
      fmt(rates.one),
      fmt(rates.many),
      `${fmt(cpuUs.one)} / ${fmt(cpuUs.many)}`,
      `${fmt(pages.one.perPut, 1)} / ${fmt(pages.many.perPut, 1)}`,
      ratios(rates, measured[c.peer]!.rates),
      ratios(rates, shipped),
      p50p95(latest),
      p50p95(byId),
    ]),
  );
  printTable(
    `WAL pages per put by B-tree (${PAGE_PUTS} puts; page 1 is the file header, rewritten when the file grows)`,
    ['checkpointer', 'durability', '1 thread', `${THREADS} threads`],
    measured.map(({ c, durability, pages }) => [c.name, durability, treeList(pages.one.byTree), treeList(pages.many.byTree)]),
  );
}

// ---------------------------------------------------------------- 2. OpenAI Agents sessions

/** The four items of one agent turn with a tool call, ~600 B of text. */
function turnItems(i: number): AgentInputItem[] {
  const callId = `call_${i}`;
  return [
    { role: 'user', content: sentence(20) },
    { type: 'function_call', callId, name: 'search_logs', arguments: JSON.stringify({ query: sentence(4) }), status: 'completed' },
    { type: 'function_call_result', callId, name: 'search_logs', status: 'completed', output: { type: 'text', text: sentence(30) } },
    { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: sentence(30) }] },
  ];
}

interface SessionCase {
  name: string;
  open(path: string): { session: Session; close(): Promise<void> } | Promise<{ session: Session; close(): Promise<void> }>;
}

function agentstateSqlite(synchronous?: SynchronousLevel): SessionCase['open'] {
  return async (path) => {
    const session = await AgentStateSession.sqlite(path, { sessionId: 'bench', ...(synchronous ? { sqlite: { synchronous } } : {}) });
    return { session, close: () => session.close() };
  };
}

const SESSIONS: SessionCase[] = [
  { name: 'MemorySession (SDK, not durable)', open: () => ({ session: new MemorySession(), close: async () => {} }) },
  {
    name: 'AgentStateSession, in-memory provider',
    open: () => {
      const provider = createInMemoryProvider();
      return { session: new AgentStateSession(provider, { sessionId: 'bench' }), close: () => provider.close() };
    },
  },
  { name: 'AgentStateSession, SQLite (default, FULL)', open: agentstateSqlite() },
  { name: "AgentStateSession, SQLite (synchronous: 'normal')", open: agentstateSqlite('normal') },
];

async function benchSessions(): Promise<void> {
  const turns = Array.from({ length: TURNS }, (_, i) => turnItems(i));
  const items = TURNS * 4;
  const rows: string[][] = [];
  let peerCpuRate: number | undefined;
  for (const [index, c] of SESSIONS.entries()) {
    const rates: number[] = [];
    const cpuRates: number[] = [];
    let all: number[] = [];
    let last: number[] = [];
    // Round -1 warms the JIT up and is not counted: otherwise the first agentstate case pays for compiling the code every case shares.
    for (let round = -1; round < ROUNDS; round += 1) {
      const { session, close } = await c.open(file(`session-${index}-${round + 1}.db`));
      await session.getSessionId();
      const { wallMs, cpuMs } = await measure(async () => {
        for (const turn of turns) await session.addItems(turn);
      });
      if (round >= 0) {
        rates.push((items / wallMs) * 1000);
        cpuRates.push((items / cpuMs) * 1000);
      }
      if (round === ROUNDS - 1) {
        all = await latencies(20, () => session.getItems());
        last = await latencies(READS, () => session.getItems(20));
        const count = (await session.getItems()).length;
        if (count !== items) throw new Error(`${c.name} holds ${count} items, not ${items}`);
      }
      await close();
    }
    const cpuRate = median(cpuRates);
    // The first case is the SDK's MemorySession: every other is compared with it in CPU time, the steadier measure under load.
    peerCpuRate ??= cpuRate;
    rows.push([c.name, fmt(median(rates)), fmt(cpuRate), `${fmt(cpuRate / peerCpuRate, 2)}×`, p50p95(last), fmt(median(all), 2)]);
  }
  printTable(
    `OpenAI Agents sessions: ${fmt(TURNS)} addItems() of 4 items each, median of ${ROUNDS} after a warm-up round; getItems() at ${fmt(items)} items; load average ${loadavg()
      .map((l) => fmt(l, 1))
      .join(' ')}`,
    ['session', 'addItems items/s (wall)', 'items/s (CPU)', 'CPU rate vs MemorySession', 'getItems(20) p50 / p95 ms', `getItems() all p50 ms`],
    rows,
  );
}

try {
  await benchCheckpointers();
  if (TURNS > 0) await benchSessions();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
