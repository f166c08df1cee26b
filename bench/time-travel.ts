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
 * The file is bench/big-file.ts's (built once, cached in the temp folder).
 * Run: `npm run build` at the root, then `npm run time-travel -w @agentstate/bench`.
 * Size: BENCH_LIFECYCLE_EVENTS (default 1,000,000).
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { formatInstant, STATE_STREAM } from '@agentstate/core';
import { foldLog, loadSnapshot } from '@agentstate/core/backend';
import { plainCodec } from '@agentstate/core';
import { openSqlite, openSqliteLog } from '@agentstate/sqlite';
import { bigFile, FIRST_TIME, SNAPSHOT_EVERY } from './big-file.js';
import { fmt, measure, percentile, printTable } from './table.js';

const EVENTS = Number(process.env.BENCH_LIFECYCLE_EVENTS ?? 1_000_000);

const file = await bigFile(EVENTS);
const path = file.path;

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
  // The views must start from the file's snapshots: a snapshot that did not bind would make every figure a full fold.
  const check = openSqliteLog(path, { readonly: true });
  const loaded = await loadSnapshot(check, plainCodec, EVENTS - 1);
  await check.close();
  if (loaded.snapshot?.seq !== EVENTS - SNAPSHOT_EVERY) throw new Error(`the stored snapshots are not used: ${JSON.stringify(loaded.skipped[0])}`);

  const p = await openSqlite(path, { readonly: true });
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
    `Time travel on a ${fmt(EVENTS)}-event SQLite file, a snapshot every ${fmt(SNAPSHOT_EVERY)} events (file ${file.buildS === undefined ? 'cached' : `built in ${fmt(file.buildS)} s`}; load average ${load.join(', ')}; first instant ${formatInstant(FIRST_TIME)})`,
    ['measure', 'agentstate (median of 3)', 'raw better-sqlite3, same I/O', 'target'],
    rows,
  );
}

// ---------------------------------------------------------------- main

await benchTimeTravel();
