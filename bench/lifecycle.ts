/**
 * Data lifecycle benchmark (issue #15).
 *
 * Section "time travel": `provider.at({ seq })` and its first read on a
 * SQLite file of 1,000,000 events with a stored snapshot every 10,000
 * events (target: ≤ 1 s), at points just after a snapshot and 9,999 events
 * after one, `at({ time })`, and `diff` of two points 5,000 events apart;
 * next to raw better-sqlite3 doing the I/O of the same view (read the
 * snapshot row and the events after it, JSON-parse them) and a fold of the
 * same cut from seq 1 without a snapshot, in the same run.
 *
 * Run: `npm run build` at the root, then `npm run lifecycle -w @agentstate/bench`.
 * Size: BENCH_LIFECYCLE_EVENTS (default 1,000,000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { formatInstant, ManualClock, seededEntropy, STATE_STREAM } from '@agentstate/core';
import { foldLog, loadSnapshot } from '@agentstate/core/backend';
import { plainCodec } from '@agentstate/core';
import { openSqlite, openSqliteLog } from '@agentstate/sqlite';
import { fmt, measure, percentile, printTable } from './table.js';

const EVENTS = Number(process.env.BENCH_LIFECYCLE_EVENTS ?? 1_000_000);
const SNAPSHOT_EVERY = 10_000;

const dir = mkdtempSync(join(tmpdir(), 'agentstate-lifecycle-'));
const path = join(dir, 'lifecycle.db');

const WORDS = (
  'deploy staging production rollback database migration cache redis postgres user prefers dark mode lisbon office friday ' +
  'review tests coverage latency budget alert pager incident kubernetes cluster node memory leak profile flame graph'
).split(' ');
let rng = 7;
const random = () => {
  rng = (Math.imul(rng, 1103515245) + 12345) >>> 0;
  return rng / 2 ** 32;
};
const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
const sentence = (n = 12) => Array.from({ length: n }, pick).join(' ');

// ---------------------------------------------------------------- time travel

/**
 * Writes EVENTS events through a SQLite provider that stores a snapshot
 * every SNAPSHOT_EVERY events (with `synchronous: 'off'`: a bulk load one
 * can redo). Going through the file keeps memory flat at a million events.
 * The mix keeps a working set an agent would: keyed memory rewritten over
 * 20,000 keys (70 %), skills over 2,000 slugs (20 %), turns (6 %), new
 * sessions (1 %), memory deletes (3 %).
 */
async function buildFile(): Promise<void> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const source = openSqlite(path, { clock, entropy: seededEntropy(5), snapshotEvery: SNAPSHOT_EVERY, synchronous: 'off' });
  const sessions: string[] = [];
  let made = 0;
  while (made < EVENTS) {
    clock.advance(1_000);
    const r = random();
    if (sessions.length === 0 || r < 0.01) sessions.push((await source.sessions.create({ title: sentence(3) })).id);
    else if (r < 0.07) await source.sessions.appendTurn({ sessionId: sessions[Math.floor(random() * sessions.length)]!, role: 'user', content: sentence() });
    else if (r < 0.77) await source.memory.write({ key: `k${Math.floor(random() * 20_000)}`, content: sentence(), scope: ['team', `p${made % 20}`] });
    else if (r < 0.97) await source.skills.upsert({ slug: `skill-${Math.floor(random() * 2_000)}`, body: sentence(20), tags: [pick()] });
    else {
      const [hit] = await source.memory.recall({ limit: 1 });
      if (hit) await source.memory.delete(hit.id);
    }
    made = await source.log.head(STATE_STREAM);
  }
  await source.close();
}

/** The I/O of a view without core: the snapshot row and the events after it, read and JSON-parsed by better-sqlite3. */
function rawView(seq: number): number {
  const db = new Database(path, { readonly: true });
  const start = performance.now();
  const row = (db.prepare('SELECT seq, data FROM snapshots WHERE stream = ? AND seq <= ? ORDER BY seq DESC LIMIT 1').get(STATE_STREAM, seq) as
    | { seq: number; data: string }
    | undefined) ?? { seq: 0, data: '\n{}' };
  JSON.parse(row.data.slice(row.data.indexOf('\n') + 1));
  for (const e of db.prepare('SELECT payload FROM events WHERE stream = ? AND seq > ? AND seq <= ? ORDER BY seq').iterate(STATE_STREAM, row.seq, seq)) {
    JSON.parse((e as { payload: string }).payload);
  }
  const ms = performance.now() - start;
  db.close();
  return ms;
}

async function benchTimeTravel(): Promise<void> {
  const buildStart = performance.now();
  await buildFile();
  const buildS = (performance.now() - buildStart) / 1000;
  // The first open folds the projection (from the newest snapshot); the measured opens below are plain.
  await openSqlite(path).close();

  // The views must start from the file's snapshots: a snapshot that did not bind would make every figure a full fold.
  const check = openSqliteLog(path, { readonly: true });
  const loaded = await loadSnapshot(check, plainCodec, EVENTS - 1);
  await check.close();
  if (loaded.snapshot?.seq !== EVENTS - SNAPSHOT_EVERY) throw new Error(`the stored snapshots are not used: ${JSON.stringify(loaded.skipped[0])}`);

  const p = openSqlite(path, { readonly: true });
  const rows: string[][] = [];
  const first = async (label: string, point: { seq: number } | { time: string }, rawSeq: number) => {
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const m = await measure(async () => {
        const view = await p.at(point);
        await view.memory.recall({ limit: 1 });
      });
      wall.push(m.wallMs);
      cpu.push(m.cpuMs);
    }
    const raw = [rawView(rawSeq), rawView(rawSeq), rawView(rawSeq)];
    rows.push([label, `${fmt(percentile(wall, 50))} ms (CPU ${fmt(percentile(cpu, 50))} ms)`, `${fmt(percentile(raw, 50))} ms`, '≤ 1,000 ms']);
  };
  const head = EVENTS;
  await first('at({ seq }) at a snapshot, then recall', { seq: head - SNAPSHOT_EVERY }, head - SNAPSHOT_EVERY);
  await first('at({ seq }) 9,999 events after a snapshot, then recall', { seq: head - 1 }, head - 1);
  await first('at({ seq }) mid-log, 9,999 after a snapshot, then recall', { seq: head / 2 - 1 }, head / 2 - 1);
  const [event] = await p.log.read({ stream: STATE_STREAM, afterSeq: head / 2 + 4_998, limit: 1 });
  const instant = event!.time;
  await first('at({ time }) mid-log (binary search), then recall', { time: instant }, head / 2 + 5_000);

  const diffStart = performance.now();
  const diff = await p.diff({ from: { seq: head / 2 }, to: { seq: head / 2 + 5_000 } });
  const diffMs = performance.now() - diffStart;
  rows.push([`diff of two points 5,000 events apart (${fmt(diff.memory.changed.length)} memory changed)`, `${fmt(diffMs)} ms`, '—', '—']);
  await p.close();

  // For scale: the same view folded from seq 1 without a snapshot.
  const log = openSqliteLog(path, { readonly: true });
  const cut = head / 2 - 1;
  const foldStart = performance.now();
  await foldLog(
    {
      identity: () => log.identity(),
      append: (i) => log.append(i),
      saveSnapshot: (s) => log.saveSnapshot(s),
      latestSnapshot: (s, o) => log.latestSnapshot(s, o),
      read: async (q) => (await log.read(q)).filter((e) => e.seq <= cut),
      head: async () => cut,
    },
    { fromScratch: true },
  );
  const foldMs = performance.now() - foldStart;
  await log.close();
  rows.push([`for scale: fold of seq 1–${fmt(cut)} without a snapshot`, `${fmt(foldMs)} ms`, '—', '—']);

  const load = loadavg().map((l) => l.toFixed(1));
  printTable(
    `Time travel on a ${fmt(EVENTS)}-event SQLite file, a snapshot every ${fmt(SNAPSHOT_EVERY)} events (file built in ${fmt(buildS)} s; load average ${load.join(', ')}; first instant ${formatInstant(Date.UTC(2026, 0, 1))})`,
    ['measure', 'agentstate (median of 3)', 'raw better-sqlite3, same I/O', 'target'],
    rows,
  );
}

// ---------------------------------------------------------------- main

const only = process.argv[2];
try {
  if (!only || only === 'time-travel') await benchTimeTravel();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
