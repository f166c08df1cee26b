/**
 * Durable append benchmark (issue 16). One awaited append per turn of the
 * same transcript (TURNS turns, alternating user and assistant sentences),
 * each case on a fresh file per round, rounds interleaving the cases, median
 * of ROUNDS, all in one run:
 *  - agentstate `sessions.appendTurn` with `durability: 'power-loss'`
 *    (synchronous FULL, the default) and `'process-crash'` (NORMAL); the turn
 *    is indexed for search (FTS5) in the same transaction;
 *  - raw better-sqlite3 doing the same three writes per transaction (an event
 *    row, a projection upsert, a contentless FTS5 row; NORMAL), and one insert
 *    per transaction with FULL: the driver's ceilings on this disk;
 *  - LangGraph `SqliteSaver.put` as shipped (WAL, NORMAL, no search index):
 *    one checkpoint per turn whose channel values hold that turn's message;
 *  - Mastra memory on libSQL (`@mastra/memory` over `@mastra/libsql`, WAL as
 *    libSQL opens it): one `saveMessages` of that turn's message.
 * Each case's process CPU time per append is printed next to its rate: on a
 * shared machine it moves far less than wall time. Then the bytes each case
 * leaves on disk for the whole transcript (the database after its last
 * connection closed), and where one agentstate append's time goes on a quiet
 * loop: each statement's microseconds (BEGIN and COMMIT included), the
 * JavaScript around them (validation, stamping, encoding, checksum) and the
 * WAL pages per commit. Prints the machine's load average: figures from a
 * shared machine move with it.
 * Run: `npm run build` at the root, then `npm run append -w @agentstate/bench`
 * (about 2 minutes on 2 cores). Size: BENCH_APPEND_TURNS (default 2000).
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename } from 'node:path';
import Database from 'better-sqlite3';
import { openSqlite } from '@agentstate/sqlite';
import type { Durability } from '@agentstate/sqlite';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { fmt, measure, percentile, printTable } from './table.js';
import { freshFiles, turnTexts } from './turn-text.js';

const TURNS = Number(process.env.BENCH_APPEND_TURNS ?? 2_000);
const ROUNDS = 3;

const { dir, freshFile } = freshFiles('agentstate-bench-append-');
const sentence = turnTexts(16);

/** The transcript every case writes. */
const TRANSCRIPT = Array.from({ length: TURNS }, (_, i) => ({ role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), content: sentence() }));
const CREATED = Date.UTC(2026, 0, 1);

/** One case, opened on a fresh file: `append(i)` writes turn i, awaited; `close` leaves the file at rest. */
interface Opened {
  append(i: number): Promise<unknown> | unknown;
  close(): Promise<void> | void;
}

interface Case {
  name: string;
  durability: string;
  open(path: string): Promise<Opened>;
}

async function agentstate(durability: Durability): Promise<Case['open']> {
  return async (path) => {
    const p = await openSqlite(path, { durability });
    const session = await p.sessions.create({ title: 'bench' });
    return {
      append: (i) => p.sessions.appendTurn({ sessionId: session.id, ...TRANSCRIPT[i]! }),
      close: () => p.close(),
    };
  };
}

/** The driver with the same three writes per transaction an indexed append needs: event, projection upsert, FTS row. */
function rawThree(path: string): Opened {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE events (position INTEGER PRIMARY KEY, stream TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, time TEXT NOT NULL, payload TEXT NOT NULL, UNIQUE (stream, seq));
    CREATE TABLE turns (n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, session_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE VIRTUAL TABLE turns_fts USING fts5(text, content = '', contentless_delete = 1);`);
  const event = db.prepare("INSERT INTO events (stream, seq, type, time, payload) VALUES ('state', ?, 'session.turn_appended', ?, ?)");
  const upsert = db.prepare(
    'INSERT INTO turns (id, session_id, seq, role, content, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET content = excluded.content RETURNING n',
  );
  const fts = db.prepare('INSERT INTO turns_fts (rowid, text) VALUES (?, ?)');
  const write = db
    .transaction((i: number) => {
      const turn = { id: `turn-${i}`, sessionId: 'bench', seq: i + 1, ...TRANSCRIPT[i]!, createdAt: new Date(CREATED + i).toISOString() };
      event.run(i + 1, turn.createdAt, JSON.stringify(turn));
      const { n } = upsert.get(turn.id, turn.sessionId, turn.seq, turn.role, turn.content, turn.createdAt) as { n: number };
      fts.run(n, turn.content);
    })
    .immediate.bind(null);
  return { append: async (i) => write(i), close: () => void db.close() };
}

/** The driver's durable floor: one insert of the turn per transaction, FULL. */
function rawOneFull(path: string): Opened {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE turns (n INTEGER PRIMARY KEY, payload TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO turns (payload) VALUES (?)');
  return {
    append: async (i) => insert.run(JSON.stringify({ id: `turn-${i}`, seq: i + 1, ...TRANSCRIPT[i]!, createdAt: new Date(CREATED + i).toISOString() })),
    close: () => void db.close(),
  };
}

/** LangGraph's SqliteSaver as shipped: one checkpoint per turn, holding that turn's message. */
async function langGraph(path: string): Promise<Opened> {
  const db = new Database(path);
  const saver = new SqliteSaver(db);
  let config = { configurable: { thread_id: 'bench', checkpoint_ns: '' } } as { configurable: Record<string, unknown> };
  const checkpoint = (i: number) => ({
    v: 4,
    id: uuid6(i),
    ts: new Date(CREATED + i).toISOString(),
    channel_values: { messages: [{ id: `turn-${i}`, ...TRANSCRIPT[i]! }] },
    channel_versions: { messages: i + 1 },
    versions_seen: {},
  });
  return {
    append: async (i) => {
      config = (await saver.put(config, checkpoint(i), { source: 'loop', step: i, parents: {} })) as typeof config;
    },
    close: () => void db.close(),
  };
}

/** Mastra memory on libSQL: one saveMessages per turn. */
async function mastra(path: string): Promise<Opened> {
  const storage = new LibSQLStore({ id: `bench-${basename(path, '.db')}`, url: `file:${path}` });
  const memory = new Memory({ storage, options: { lastMessages: 10, semanticRecall: false } });
  const thread = await memory.createThread({ resourceId: 'bench', threadId: 'bench', title: 'bench' });
  return {
    append: (i) =>
      memory.saveMessages({
        messages: [
          {
            id: `turn-${i}`,
            role: TRANSCRIPT[i]!.role,
            createdAt: new Date(CREATED + i),
            threadId: thread.id,
            resourceId: 'bench',
            content: { format: 2, parts: [{ type: 'text', text: TRANSCRIPT[i]!.content }] },
          },
        ],
      }),
    close: async () => {
      await (storage as unknown as { close?: () => Promise<void> }).close?.();
    },
  };
}

const CASES: Case[] = [
  { name: 'agentstate appendTurn', durability: "'power-loss' (FULL)", open: await agentstate('power-loss') },
  { name: 'agentstate appendTurn', durability: "'process-crash' (NORMAL)", open: await agentstate('process-crash') },
  { name: 'raw better-sqlite3: event + upsert + FTS row', durability: 'NORMAL', open: async (path) => rawThree(path) },
  { name: 'raw better-sqlite3: one insert', durability: 'FULL', open: async (path) => rawOneFull(path) },
  { name: 'LangGraph SqliteSaver.put (no search index)', durability: 'NORMAL (as shipped)', open: langGraph },
  { name: 'Mastra memory saveMessages on libSQL', durability: 'NORMAL (libSQL WAL)', open: mastra },
];

/** Bytes of the database and what SQLite keeps beside it, once closed. */
function bytesOnDisk(path: string): number {
  return [path, `${path}-wal`, `${path}-shm`].filter(existsSync).reduce((sum, f) => sum + statSync(f).size, 0);
}

/** Where one agentstate append's time goes: microseconds per statement (by its SQL), the rest, and WAL pages per commit. */
interface AppendCost {
  statements: { sql: string; count: number; us: number }[];
  totalUs: number;
  pages: number;
}

/** {@link AppendCost} over `n` appends on one provider (NORMAL), after a warm-up, before any checkpoint. */
async function agentstateCost(n: number): Promise<AppendCost> {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  const spent = new Map<string, { count: number; us: number }>();
  let counting = false;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = proto[method]!;
    originals.set(method, original);
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      if (!counting) return original.apply(this, args);
      const start = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const sql = this.source.replace(/\s+/g, ' ').slice(0, 60);
        const entry = spent.get(sql) ?? { count: 0, us: 0 };
        entry.count += 1;
        entry.us += (performance.now() - start) * 1000;
        spent.set(sql, entry);
      }
    };
  }
  const path = freshFile();
  const p = await openSqlite(path, { durability: 'process-crash' });
  try {
    const session = await p.sessions.create({ title: 'cost' });
    // Warm-up: compiled code and prepared statements, as in a long-running process.
    for (let i = 0; i < 300; i += 1) await p.sessions.appendTurn({ sessionId: session.id, ...TRANSCRIPT[i % TURNS]! });
    counting = true;
    const start = performance.now();
    for (let i = 0; i < n; i += 1) await p.sessions.appendTurn({ sessionId: session.id, ...TRANSCRIPT[(i + 300) % TURNS]! });
    const totalUs = ((performance.now() - start) * 1000) / n;
    counting = false;
    const statements = [...spent].map(([sql, { count, us }]) => ({ sql, count: count / n, us: us / n })).sort((a, b) => b.us - a.us);
    // Pages: 40 commits into an emptied WAL, fewer pages than an automatic checkpoint waits for (1,000), so none recycles it.
    const other = new Database(path);
    other.pragma('wal_checkpoint(TRUNCATE)');
    other.close();
    const commits = 40;
    for (let i = 0; i < commits; i += 1) await p.sessions.appendTurn({ sessionId: session.id, ...TRANSCRIPT[i % TURNS]! });
    const pageSize = 4096;
    return { statements, totalUs, pages: statSync(`${path}-wal`).size / (pageSize + 24) / commits };
  } finally {
    for (const [method, original] of originals) proto[method] = original;
    await p.close();
  }
}

const median = (xs: readonly number[]) => percentile(xs, 50);
const load = () => loadavg()[0]!.toFixed(1);

try {
  const rates = CASES.map((): number[] => []);
  const cpu = CASES.map((): number[] => []);
  const sizes = CASES.map(() => 0);
  const loads: string[] = [load()];
  // Rounds interleave the cases, so a change of the machine's load falls on all of them alike.
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [index, c] of CASES.entries()) {
      const path = freshFile();
      const opened = await c.open(path);
      const { wallMs, cpuMs } = await measure(async () => {
        for (let i = 0; i < TURNS; i += 1) await opened.append(i);
      });
      rates[index]!.push((TURNS / wallMs) * 1000);
      cpu[index]!.push((cpuMs * 1000) / TURNS);
      await opened.close();
      sizes[index] = bytesOnDisk(path);
    }
    loads.push(load());
  }
  const results = CASES.map((c, index) => ({ c, rate: median(rates[index]!), cpuUs: median(cpu[index]!), bytes: sizes[index]! }));
  const of = (name: string, durability?: string) =>
    results.find((r) => r.c.name.startsWith(name) && (durability === undefined || r.c.durability === durability))!;
  const lang = of('LangGraph').rate;
  const mas = of('Mastra').rate;
  const rawBytes = of('raw better-sqlite3: event').bytes;
  const rawFull = of('raw better-sqlite3: one insert').rate;
  printTable(
    `Durable append: ${fmt(TURNS)} awaited appends of one turn each, median of ${ROUNDS}; load average ${loads.join(' → ')} (2 cores)`,
    [
      'case',
      'durability',
      'turns/s',
      'CPU µs per append',
      'vs LangGraph',
      'vs Mastra',
      'vs raw one-insert FULL',
      'bytes on disk',
      'vs raw three-statement bytes',
    ],
    results.map(({ c, rate, cpuUs, bytes }) => [
      c.name,
      c.durability,
      fmt(rate),
      fmt(cpuUs, 1),
      `${fmt(rate / lang, 2)}×`,
      `${fmt(rate / mas, 2)}×`,
      `${fmt(rate / rawFull, 2)}×`,
      fmt(bytes),
      `${fmt(bytes / rawBytes, 2)}×`,
    ]),
  );
  const cost = await agentstateCost(500);
  const sqlUs = cost.statements.reduce((sum, s) => sum + s.us, 0);
  printTable(
    `One agentstate appendTurn (NORMAL) on a quiet loop, 500 appends after 300 of warm-up: ${fmt(cost.totalUs, 1)} µs wall each, ${fmt(cost.pages, 1)} WAL pages per commit; load average ${load()}`,
    ['statement', 'runs per append', 'µs per append'],
    [
      ...cost.statements.map((s) => [s.sql, fmt(s.count, 2), fmt(s.us, 1)]),
      ['JavaScript between them (validate, stamp, encode, checksum, queue)', '—', fmt(cost.totalUs - sqlUs, 1)],
    ],
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
