/**
 * Sync benchmark (issue 30, docs/contract.md §12). Prints one table:
 *  1. the first sync of the 100,000-event SQLite file of `big-file.ts` (a mix of
 *     sessions, turns, keyed memory, skills, deletes and scratch notes) into an
 *     empty store, per target: events/s, wall and CPU per event (target: SQLite
 *     ≥ 20,000 events/s). An empty SQLite file is seeded from the source at once
 *     (docs/contract.md §12, "A first sync into an empty store"); a second SQLite
 *     target takes the file batch by batch, through a peer that is not a
 *     provider of this process, as from another process or over HTTP;
 *  2. beside it, in the same run: the same data moved by export then import
 *     (core's `exportLog` to a file, `importSqlite` from it, then the first
 *     open that folds it), and raw better-sqlite3 copying the rows the sync
 *     wrote (events, projection and full-text rows) into an empty file of the
 *     same schema in one transaction: the floor of the SQL work alone;
 *  3. an incremental sync of one new event into each synced target, in process:
 *     p50 and p95 of 20 (target: ≤ 20 ms); for the SQLite file also over HTTP:
 *     the source served by a real MCP HTTP server on loopback (`runMcpServer`,
 *     its sync routes), the file syncing with it through `httpPeer`.
 * Targets are cases of {@link TARGETS}: each opens an empty store that syncs,
 * PostgreSQL a new schema of a throwaway cluster with default durability
 * (`pg-server.ts`; target ≥ 5,000 events/s).
 * Figures, with the load average, go in bench/README.md ("Sync").
 * Run: `npm run build` at the root, then `npm run sync -w @agentstate/bench`.
 * Size: BENCH_SYNC_EVENTS (default 100,000).
 */
import { copyFileSync, createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { createInMemoryProvider, exportLog, httpPeer, type SyncPeer, sync } from '@agentstate/core';
import { runMcpServer } from '@agentstate/mcp';
import { openPostgres } from '@agentstate/postgres';
import { importSqlite, openSqlite, type SqliteProvider } from '@agentstate/sqlite';
import { bigFile } from './big-file.js';
import { dropSchema, startServer } from './pg-server.js';
import { fmt, measure, percentile, printTable } from './table.js';

const EVENTS = Number(process.env.BENCH_SYNC_EVENTS ?? 100_000);
const INCREMENTS = 20;

const dir = mkdtempSync(join(tmpdir(), 'agentstate-bench-sync-'));
const file = (name: string) => join(dir, name);

/** A store a sync goes into, empty when opened. */
interface Target {
  name: string;
  goal: string;
  /** The file of a SQLite target: its rows are what the raw copy writes, and export + import is measured beside it. */
  path?: string;
  /** Whether it takes the source through {@link batchByBatch}. */
  batches?: boolean;
  open(): Promise<SyncPeer & { close(): Promise<void> }>;
}

const server = await startServer();
const SCHEMA = `bench_sync_${process.pid}`;

const TARGETS: Target[] = [
  { name: 'SQLite file', goal: '≥ 20,000 events/s', path: file('target.db'), open: () => openSqlite(file('target.db')) },
  { name: 'SQLite file, batch by batch', goal: '—', batches: true, open: () => openSqlite(file('batches.db')) },
  { name: 'PostgreSQL schema', goal: '≥ 5,000 events/s', open: () => openPostgres(server.url, { schema: SCHEMA }) },
  { name: 'in-memory store', goal: '—', open: async () => createInMemoryProvider() },
];

/** `p` as a peer that is not a provider of this process (a store of another process, or behind HTTP): a sync with it goes batch by batch. */
const batchByBatch = (p: SyncPeer): SyncPeer => ({
  vector: (options) => p.vector(options),
  changes: (vector, options) => p.changes(vector, options),
  receive: (events, options) => p.receive(events, options),
  ...(p.replicaId ? { replicaId: () => p.replicaId!() } : {}),
  retention: p.retention,
});

/** p50 and p95 of 20 syncs of `into` with `from`, each after one new memory write into `source`. */
async function incremental(source: Pick<SqliteProvider, 'memory'>, into: SyncPeer, from: SyncPeer): Promise<string> {
  const lap: number[] = [];
  for (let i = 0; i < INCREMENTS; i += 1) {
    await source.memory.write({ content: `one new fact ${i}`, kind: 'fact' });
    lap.push((await measure(() => sync(into, from))).wallMs);
  }
  return `p50 ${fmt(percentile(lap, 50), 2)} ms, p95 ${fmt(percentile(lap, 95), 2)} ms`;
}

/** `n` events in `m`: wall, rate and CPU per event. */
const rate = (n: number, m: { wallMs: number; cpuMs: number }) =>
  `${fmt((n / m.wallMs) * 1000)} events/s, ${fmt(m.wallMs / 1000, 2)} s, ${fmt((m.cpuMs * 1000) / n, 1)} µs CPU/event`;

/** Export then import of the source file into a new one, first open (the fold) included. */
async function exportImport(source: string): Promise<{ wallMs: number; cpuMs: number }> {
  const lines = file('export.jsonl');
  const target = file('imported.db');
  return measure(async () => {
    const p = await openSqlite(source);
    const out = createWriteStream(lines);
    await exportLog(p.log, (chunk) => new Promise<void>((done, fail) => out.write(chunk, (error) => (error ? fail(error) : done()))));
    await new Promise<void>((done) => out.end(done));
    await p.close();
    await importSqlite(target, createInterface({ input: createReadStream(lines), crlfDelay: Infinity }));
    await (await openSqlite(target)).close();
  });
}

/** The tables a sync writes rows to (virtual and generated columns aside). */
const COPIED_TABLES = ['events', 'sessions', 'turns', 'skills', 'memory', 'memory_meta', 'operations', 'record_events'];

/**
 * Raw better-sqlite3 writing the rows the sync wrote into `synced`, read back
 * beforehand, into an empty file of the same schema and pragmas, in one
 * transaction: nothing is checked, decoded or folded.
 */
async function rawCopy(synced: string): Promise<{ wallMs: number; cpuMs: number }> {
  const from = new Database(synced, { readonly: true });
  const tables = COPIED_TABLES.map((name) => {
    const columns = (from.pragma(`table_xinfo(${name})`) as { name: string; hidden: number }[]).filter((c) => c.hidden === 0).map((c) => c.name);
    return {
      name,
      columns,
      rows: from
        .prepare(`SELECT ${columns.join(', ')} FROM ${name}`)
        .raw(true)
        .all() as unknown[][],
    };
  });
  const text = (sql: string) => from.prepare(sql).raw(true).all() as unknown[][];
  const fts = [
    { name: 'turns_fts', rows: text('SELECT n, content FROM turns WHERE deleted = 0') },
    { name: 'memory_fts', rows: text('SELECT n, content FROM memory WHERE deleted = 0') },
    { name: 'skills_fts', rows: text("SELECT n, slug || ' ' || name || ' ' || body || ' ' || tags FROM skills WHERE deleted = 0") },
  ];
  from.close();
  const path = file('raw.db');
  await (await openSqlite(path)).close();
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('secure_delete = ON');
  const measured = await measure(() =>
    db.transaction(() => {
      for (const table of tables) {
        const insert = db.prepare(`INSERT INTO ${table.name} (${table.columns.join(', ')}) VALUES (${table.columns.map(() => '?').join(', ')})`);
        for (const row of table.rows) insert.run(row);
      }
      for (const index of fts) {
        const insert = db.prepare(`INSERT INTO ${index.name} (rowid, text) VALUES (?, ?)`);
        for (const row of index.rows) insert.run(row);
      }
    })(),
  );
  db.close();
  return measured;
}

const big = await bigFile(EVENTS);
// The sync only reads its source; a copy keeps the cached file as it was all the same.
const source = file('source.db');
copyFileSync(big.path, source);
const rows: string[][] = [];
for (const target of TARGETS) {
  const a = await openSqlite(source);
  const b = await target.open();
  let received = 0;
  const first = await measure(async () => {
    received = (await sync(b, target.batches ? batchByBatch(a) : a)).toA;
  });
  rows.push([`first sync into an empty ${target.name}`, rate(received, first), target.goal]);
  if (target.path !== undefined) {
    // Closed while the comparisons run: they read its file and share the machine.
    await b.close();
    rows.push(['raw better-sqlite3 copying the rows that sync wrote (one transaction)', rate(received, await rawCopy(target.path)), '—']);
    rows.push(['export + import of the same file (exportLog, importSqlite, first open)', rate(received, await exportImport(source)), '—']);
  }
  const c = target.path !== undefined ? await target.open() : b;
  // The file batch by batch syncs on as the seeded one does.
  if (!target.batches) rows.push([`incremental sync of one new event into the ${target.name}`, await incremental(a, c, a), '≤ 20 ms']);
  if (target.path !== undefined) {
    const served = await runMcpServer({ provider: a, transport: 'http', http: { port: 0 }, allowSubscopes: true, log: () => undefined });
    rows.push([
      `incremental sync of one new event into the ${target.name} over HTTP (loopback, \`httpPeer\`)`,
      await incremental(a, c, httpPeer(served.syncUrl!)),
      '≤ 20 ms',
    ]);
    await served.close();
  }
  await c.close();
  await a.close();
  for (const suffix of ['-wal', '-shm']) rmSync(`${source}${suffix}`, { force: true });
  copyFileSync(big.path, source);
}
printTable(
  `Sync of a ${fmt(EVENTS)}-event SQLite file; load average ${loadavg()
    .map((l) => fmt(l, 1))
    .join(' ')}`,
  ['measure', 'figure', 'goal'],
  rows,
);
rmSync(dir, { recursive: true, force: true });
await dropSchema(server.url, SCHEMA);
await server.stop();
