/**
 * History and purge on a large SQLite file (issue 15): the file of
 * BENCH_LIFECYCLE_EVENTS events (default 1,000,000) from bench/big-file.ts,
 * built once and cached in the temp folder; purges run on a copy. Measures,
 * in the same run:
 * - `history(id)` of memory items, sessions and skills, against a raw
 *   better-sqlite3 scan of the log for the same id (what it costs without
 *   the history index);
 * - `purge({ id })` of single memory items and sessions, against a raw
 *   `UPDATE` of one event row (the floor of any in-place rewrite);
 * - what the history index costs per append: the same appends on a fresh
 *   file with and without the index (a view that swallows its rows), and
 *   its share of the 1,000,000-event file.
 * Prints the load average beside the figures: the machine may be shared.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { openSqlite } from '@agentstate/sqlite';
import { bigFile } from './big-file.js';
import { fmt, percentile, printTable } from './table.js';
import { seededRandom } from './turn-text.js';

const EVENTS = Number(process.env.BENCH_LIFECYCLE_EVENTS ?? 1_000_000);
const APPENDS = Number(process.env.BENCH_LIFECYCLE_APPENDS ?? 5_000);

const WORDS =
  'deploy staging rollback database cache user prefers dark mode office review tests latency alert incident cluster memory invoice customer refund quota token model prompt agent tool retry schema index query vacuum checkpoint backup'.split(
    ' ',
  );
const random = seededRandom(42);
const sentence = (n = 12) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');

/** Ids of each kind, drawn from the file. */
function sampleIds(bigFile: string, n: number): { memory: string[]; sessions: string[]; skills: string[] } {
  const db = new Database(bigFile, { readonly: true });
  const ids = (table: string) =>
    (db.prepare(`SELECT id FROM ${table} WHERE deleted = 0 ORDER BY random() LIMIT ?`).all(n) as { id: string }[]).map((r) => r.id);
  const out = { memory: ids('memory'), sessions: ids('sessions'), skills: ids('skills') };
  db.close();
  return out;
}

async function benchHistoryAndPurge(bigFile: string, buildS: number | undefined): Promise<void> {
  const ids = sampleIds(bigFile, 200);
  // The WAL the build left is folded into the file first, so the first purge does not pay for it.
  const settle = new Database(bigFile);
  settle.pragma('wal_checkpoint(TRUNCATE)');
  settle.close();
  const p = await openSqlite(bigFile);
  const head = await p.log.head('state');
  const historyMs = async (list: string[]) => {
    const times: number[] = [];
    const cpu: number[] = [];
    let versions = 0;
    for (const id of list) {
      const c = process.cpuUsage();
      const t = performance.now();
      versions += (await p.history(id)).length;
      times.push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
    }
    return { p50: percentile(times, 50), p99: percentile(times, 99), cpu: percentile(cpu, 50), versions: versions / list.length };
  };
  const memory = await historyMs(ids.memory);
  const sessions = await historyMs(ids.sessions);
  const skills = await historyMs(ids.skills);
  // Raw: what finding one record's events costs without the index, a scan of every payload.
  const raw = new Database(bigFile, { readonly: true });
  const scan = raw.prepare("SELECT seq FROM events WHERE stream = 'state' AND instr(payload, ?) > 0");
  const scanMs: number[] = [];
  for (const id of ids.memory.slice(0, 3)) {
    const t = performance.now();
    scan.all(id);
    scanMs.push(performance.now() - t);
  }
  raw.close();
  const purgeMs = async (list: string[]) => {
    const times: number[] = [];
    const cpu: number[] = [];
    for (const id of list) {
      const c = process.cpuUsage();
      const t = performance.now();
      await p.purge({ id, reason: 'bench' });
      times.push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
    }
    return { p50: percentile(times, 50), max: Math.max(...times), cpu: percentile(cpu, 50) };
  };
  const purgeMemory = await purgeMs(ids.memory.slice(0, 5));
  const purgeSessions = await purgeMs(ids.sessions.slice(0, 5));
  await p.close();
  // Raw floor of a rewrite in place: one UPDATE of one event row, committed.
  const rawDb = new Database(bigFile);
  rawDb.pragma('journal_mode = WAL');
  const update = rawDb.prepare("UPDATE events SET checksum = checksum WHERE stream = 'state' AND seq = ?");
  const updateMs: number[] = [];
  for (let i = 0; i < 20; i += 1) {
    const t = performance.now();
    update.run(1 + Math.floor(random() * head));
    updateMs.push(performance.now() - t);
  }
  const size = rawDb.prepare("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name = 'record_events'").get() as { bytes: number };
  const total = rawDb.prepare('SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()').get() as { bytes: number };
  const rows = (rawDb.prepare('SELECT count(*) AS n FROM record_events').get() as { n: number }).n;
  rawDb.close();
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  printTable(
    `History and purge on a ${fmt(head)}-event SQLite file (load average ${load})`,
    ['measure', 'figure', 'target'],
    [
      ...(buildS === undefined ? [] : [['build of the file (bench/big-file.ts)', `${fmt(buildS, 1)} s`, '—']]),
      [
        'history(memory item): wall p50 / p99, CPU p50',
        `${fmt(memory.p50, 2)} / ${fmt(memory.p99, 2)} ms, ${fmt(memory.cpu, 2)} ms (${fmt(memory.versions, 1)} versions)`,
        '≤ 10 ms',
      ],
      [
        'history(session): wall p50 / p99, CPU p50',
        `${fmt(sessions.p50, 2)} / ${fmt(sessions.p99, 2)} ms, ${fmt(sessions.cpu, 2)} ms (${fmt(sessions.versions, 1)} versions)`,
        '≤ 10 ms',
      ],
      [
        'history(skill): wall p50 / p99, CPU p50',
        `${fmt(skills.p50, 2)} / ${fmt(skills.p99, 2)} ms, ${fmt(skills.cpu, 2)} ms (${fmt(skills.versions, 1)} versions)`,
        '≤ 10 ms',
      ],
      ['raw better-sqlite3: scan the log for one id (no index)', `${fmt(percentile(scanMs, 50), 0)} ms`, '—'],
      [
        'purge({ id }) of a memory item, p50 / max of 5 (CPU p50)',
        `${fmt(purgeMemory.p50, 0)} / ${fmt(purgeMemory.max, 0)} ms (${fmt(purgeMemory.cpu, 0)} ms)`,
        '≤ 1 s',
      ],
      [
        'purge({ id }) of a session with its turns, p50 / max of 5 (CPU p50)',
        `${fmt(purgeSessions.p50, 0)} / ${fmt(purgeSessions.max, 0)} ms (${fmt(purgeSessions.cpu, 0)} ms)`,
        '≤ 1 s',
      ],
      ['raw better-sqlite3: UPDATE one event row, committed (p50)', `${fmt(percentile(updateMs, 50), 2)} ms`, '—'],
      ['history index: rows, share of the file', `${fmt(rows)} rows, ${fmt(size.bytes / 2 ** 20, 1)} MiB of ${fmt(total.bytes / 2 ** 20, 1)} MiB`, '—'],
    ],
  );
}

/** The same appends on two fresh files, one whose history index swallows its rows: the index's cost per append. */
async function benchAppendCost(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-lifecycle-append-'));
  let runs = 0;
  try {
    const run = async (withIndex: boolean) => {
      runs += 1;
      const path = join(dir, `${withIndex ? 'with' : 'without'}-${runs}.db`);
      await (await openSqlite(path)).close();
      if (!withIndex) {
        const db = new Database(path);
        db.exec(`DROP TABLE record_events;
          CREATE VIEW record_events (record_id, seq) AS SELECT NULL, NULL WHERE 0;
          CREATE TRIGGER record_events_off INSTEAD OF INSERT ON record_events BEGIN SELECT 1; END;`);
        db.close();
      }
      const p = await openSqlite(path, { synchronous: 'normal' });
      const session = await p.sessions.create({ title: 'bench' });
      const start = performance.now();
      for (let i = 0; i < APPENDS; i += 1) {
        if (i % 2 === 0) await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: sentence() });
        else await p.memory.write({ content: sentence() });
      }
      const us = ((performance.now() - start) * 1000) / APPENDS;
      await p.close();
      return us;
    };
    const samples = { with: [] as number[], without: [] as number[] };
    for (let round = 0; round < 3; round += 1) {
      samples.without.push(await run(false));
      samples.with.push(await run(true));
    }
    const withUs = percentile(samples.with, 50);
    const withoutUs = percentile(samples.without, 50);
    printTable(
      `What the history index costs per append (${fmt(APPENDS)} appends, turns and memory writes alternating, median of 3; load average ${loadavg()[0]!.toFixed(1)})`,
      ['measure', 'per append'],
      [
        ['with the history index', `${fmt(withUs, 1)} µs`],
        ['without it (its rows swallowed by a view)', `${fmt(withoutUs, 1)} µs`],
        ['difference', `${fmt(withUs - withoutUs, 1)} µs (${fmt(((withUs - withoutUs) / withoutUs) * 100, 1)} %)`],
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const only = process.argv[2];
const file = await bigFile(EVENTS);
// Purges change the file: they run on a copy of the cached one.
const copy = `${file.path}.erasure`;
copyFileSync(file.path, copy);
try {
  if (!only || only === 'history') await benchHistoryAndPurge(copy, file.buildS);
} finally {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
}
if (!only || only === 'append') await benchAppendCost();
