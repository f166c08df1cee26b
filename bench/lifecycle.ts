/**
 * The data lifecycle on a large SQLite file (issue 15), in one table: the
 * goals are `at({ seq })` answering its first read in ≤ 1 s, `history` of a
 * memory item in ≤ 10 ms and of a 2,000-version session in ≤ 50 ms, and
 * `purge` of one record in ≤ 1 s, on a file of
 * 1,000,000 events with a stored snapshot every 10,000 events.
 *
 * The file comes from bench/big-file.ts (built once, cached in the temp
 * folder). Each figure is wall and process-CPU milliseconds (CPU is steadier
 * on a shared machine), next to better-sqlite3 doing the same I/O in the same
 * run: for a view, the snapshot rows its first recall reads (the head, the
 * memory index chunks and chunks) and the events after it, read and parsed;
 * for history, the record's event rows through the history index; for purge,
 * one UPDATE of each event row the record has. Purges run on a copy, with its
 * stored snapshots present: a purge patches the chunks of each snapshot that
 * hold the record and the index chunks above them (the first row, of the
 * oldest memory item, patches them all).
 *
 * Run: `npm run build` at the root, then `npm run lifecycle -w @agentstate/bench`.
 * Size: BENCH_LIFECYCLE_EVENTS (default 1,000,000); samples: BENCH_LIFECYCLE_SAMPLES (default 5);
 * BENCH_LIFECYCLE_ONLY=view runs only the time-travel rows (no history, no purge copy);
 * BENCH_LIFECYCLE_ONLY=history only the history rows (they only read the cached file, and build the
 * small file of a session appended live, BENCH_LIFECYCLE_LIVE_TURNS turns, default 2,000, that the
 * fresh-process row reads).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { STATE_STREAM } from '@agentstate/core';
import { chunkStream } from '@agentstate/core/backend';
import { openSqlite } from '@agentstate/sqlite';
import { bigFile, SNAPSHOT_EVERY } from './big-file.js';
import { fmt, measure, percentile, printTable } from './table.js';

const EVENTS = Number(process.env.BENCH_LIFECYCLE_EVENTS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_LIFECYCLE_SAMPLES ?? 5);
/** `view`: only the time-travel rows (at and diff); `history`: only the history rows. Neither writes a copy of the file. */
const ONLY = process.env.BENCH_LIFECYCLE_ONLY;
if (ONLY !== undefined && ONLY !== 'view' && ONLY !== 'history') throw new Error(`BENCH_LIFECYCLE_ONLY must be "view" or "history", not "${ONLY}"`);

const file = await bigFile(EVENTS);
const rows: string[][] = [];
const ms = (n: number) => `${fmt(n, n < 10 ? 2 : 0)} ms`;
/** The p50 of wall or CPU time over the samples, formatted. */
const p50 = (samples: { wallMs: number; cpuMs: number }[], key: 'wallMs' | 'cpuMs') =>
  ms(
    percentile(
      samples.map((s) => s[key]),
      50,
    ),
  );
/** One row: p50 of wall and CPU over the samples. */
const row = (label: string, samples: { wallMs: number; cpuMs: number }[], raw: number[] | undefined, goal: string) =>
  rows.push([label, p50(samples, 'wallMs'), p50(samples, 'cpuMs'), raw ? ms(percentile(raw, 50)) : '—', goal]);

rows.push(['build the file (cached: built once per size)', file.buildS === undefined ? 'cached' : `${fmt(file.buildS, 0)} s`, '—', '—', '—']);

const raw = new Database(file.path, { readonly: true });
const rawTime = (fn: () => void) => {
  const start = performance.now();
  fn();
  return performance.now() - start;
};
/**
 * The I/O of a view's first recall without core: the snapshot's head row, its
 * memory index chunks and chunks, then the events after it, read and JSON-parsed.
 */
const rawView = (seq: number) =>
  rawTime(() => {
    const snap = raw.prepare('SELECT seq, data FROM snapshots WHERE stream = ? AND seq <= ? ORDER BY seq DESC LIMIT 1').get(STATE_STREAM, seq) as
      | { seq: number; data: string }
      | undefined;
    const head = snap && (JSON.parse(snap.data.slice(snap.data.indexOf('\n') + 1)) as { index: { memory: { sha256: string }[] } });
    const chunk = raw.prepare('SELECT data FROM snapshots WHERE stream = ? AND seq = 0');
    const read = (sha256: string) => JSON.parse((chunk.get(chunkStream(sha256)) as { data: string }).data) as { sha256: string }[];
    for (const index of head?.index.memory ?? []) for (const ref of read(index.sha256)) read(ref.sha256);
    for (const e of raw.prepare('SELECT payload FROM events WHERE stream = ? AND seq > ? AND seq <= ? ORDER BY seq').iterate(STATE_STREAM, snap?.seq ?? 0, seq))
      JSON.parse((e as { payload: string }).payload);
  });

const p = await openSqlite(file.path, { readonly: true });
const head = await p.log.head(STATE_STREAM);
// Points mid-way between two snapshots, spread over the log: each view restores a snapshot and folds 5,000 events.
const points = Array.from({ length: SAMPLES }, (_, i) => Math.floor(((i + 1) * head) / (SAMPLES + 1) / SNAPSHOT_EVERY) * SNAPSHOT_EVERY + SNAPSHOT_EVERY / 2);
if (ONLY !== 'history') {
  const viewSamples = [];
  for (const seq of points) {
    viewSamples.push(
      await measure(async () => {
        const view = await p.at({ seq });
        await view.memory.recall({ limit: 1 });
      }),
    );
  }
  row(
    `at({ seq }) then one recall: p50 of ${SAMPLES} seqs, each ${fmt(SNAPSHOT_EVERY / 2)} events after a snapshot`,
    viewSamples,
    points.map(rawView),
    '≤ 1,000 ms',
  );

  const times = await Promise.all(points.map(async (seq) => (await p.log.read({ stream: STATE_STREAM, afterSeq: seq - 1, limit: 1 }))[0]!.time));
  const timeSamples = [];
  for (const time of times) {
    timeSamples.push(
      await measure(async () => {
        const view = await p.at({ time });
        await view.memory.recall({ limit: 1 });
      }),
    );
  }
  row('at({ time }) then one recall, same points (binary search for the seq)', timeSamples, points.map(rawView), '≤ 1,000 ms');

  const mid = points[Math.floor(points.length / 2)]!;
  const diffSamples = [await measure(() => p.diff({ from: { seq: mid - 2_000 }, to: { seq: mid + 2_000 } }))];
  row('diff of two points 4,000 events apart, mid-log', diffSamples, undefined, '—');
}

if (ONLY === 'view') {
  await p.close();
  raw.close();
  report();
  process.exit(0);
}

/** Ids of the records with the most versions in the history index: the slowest histories. */
const busiest = (table: string) =>
  (
    raw
      .prepare(`SELECT t.id FROM ${table} t JOIN record_events r ON r.record_id = t.id WHERE t.deleted = 0 GROUP BY t.id ORDER BY count(*) DESC LIMIT ?`)
      .all(SAMPLES) as { id: string }[]
  ).map((r) => r.id);
const rawHistory = (id: string) =>
  rawTime(() => {
    // The backend's plan: the record's seqs (the index's rows and the turns' appends), then each event by its seq.
    for (const e of raw
      .prepare(
        `SELECT e.payload FROM (SELECT seq FROM record_events WHERE record_id = @id
          UNION SELECT appended_seq FROM turns WHERE (id = @id OR session_id = @id) AND appended_seq IS NOT NULL) h
        LEFT JOIN events e ON e.stream = @stream AND e.seq = h.seq ORDER BY h.seq`,
      )
      .iterate({ id, stream: STATE_STREAM }))
      JSON.parse((e as { payload: string }).payload);
  });
const versions = (id: string) => (raw.prepare('SELECT count(*) AS n FROM record_events WHERE record_id = ?').get(id) as { n: number }).n;
/**
 * The engine is warmed on the histories of other records first, ours and raw alike: in a fresh
 * process the first calls measure the engine tiering the code up and sizing its young heap (20 to
 * 45 ms for the long session), not the read, and an agent process calls it warm. The timed records'
 * own rows are not read before their first timed call.
 */
const others = (table: string, n: number) =>
  (
    raw
      .prepare(
        `SELECT t.id FROM ${table} t JOIN record_events r ON r.record_id = t.id WHERE t.deleted = 0 GROUP BY t.id ORDER BY count(*) DESC LIMIT ? OFFSET ?`,
      )
      .all(n, SAMPLES + 1) as { id: string }[]
  ).map((r) => r.id);
const warmups = [...others('memory', 20), ...others('sessions', 20)];
for (let i = 0; i < 5; i += 1)
  for (const id of warmups) {
    await p.history(id);
    rawHistory(id);
  }
await warmOnLongSession();
/**
 * The big file has one long session, the one timed: the code that reads a long session's history
 * is warmed, and the young heap sized for thousands of versions, on a session of
 * as many turns in a scratch file, so the timed first call reads cold rows with a warm engine.
 */
async function warmOnLongSession(): Promise<void> {
  const scratch = join(mkdtempSync(join(tmpdir(), 'agentstate-lifecycle-warm-')), 'warm.db');
  const w = await openSqlite(scratch, { durability: 'process-crash' });
  const session = await w.sessions.create({ title: 'warm-up' });
  for (let i = 0; i < 4; i += 1)
    await w.sessions.appendTurns(
      session.id,
      Array.from({ length: 500 }, (_, j) => ({ role: 'user' as const, content: `turn ${i * 500 + j}` })),
    );
  for (let i = 0; i < 5; i += 1) await w.history(session.id);
  await w.close();
  rmSync(dirname(scratch), { recursive: true, force: true });
}

const historyRow = async (label: string, ids: string[], goal: string) => {
  const samples = [];
  for (const id of ids) samples.push(await measure(() => p.history(id)));
  row(`${label} (${fmt(percentile(ids.map(versions), 50))} versions)`, samples, ids.map(rawHistory), goal);
};
await historyRow('history of a memory item, the most rewritten ones, first call each', busiest('memory'), '≤ 10 ms');
const longest = busiest('sessions')[0]!;
await historyRow('history of the longest session, each turn a version, first call', [longest], '≤ 50 ms');
await historyRow(`history of the longest session again, its rows cached, p50 of ${SAMPLES}`, Array(SAMPLES).fill(longest), '≤ 50 ms');
await freshHistoryRow();
await p.close();
if (ONLY === 'history') {
  raw.close();
  report();
  process.exit(0);
}

// Purges change the file: they run on a copy, named for this process since other benchmarks may copy the same file.
const copy = `${file.path}.purge-${process.pid}`;
for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
copyFileSync(file.path, copy);
// The copy's pages on disk before the first purge: otherwise its first COMMIT's fsync waits behind gigabytes of writeback.
const copyFd = openSync(copy, 'r+');
fsyncSync(copyFd);
closeSync(copyFd);
// The oldest live item: its first event precedes every stored snapshot, so its purge patches them all (they hold its text).
const { id: oldestItem } = raw.prepare('SELECT id FROM memory WHERE deleted = 0 ORDER BY created_at, id LIMIT 1').get() as { id: string };
const patched = (
  raw
    .prepare('SELECT count(*) AS n FROM snapshots WHERE stream = ? AND seq >= (SELECT min(seq) FROM record_events WHERE record_id = ?)')
    .get(STATE_STREAM, oldestItem) as { n: number }
).n;
const memoryIds = busiest('memory')
  .slice(1)
  .filter((id) => id !== oldestItem);
const sessionIds = busiest('sessions').slice(1);
const namespaces = ['user:u1', 'user:u2', 'user:u3'];
const longestTurns = (raw.prepare('SELECT count(*) AS n FROM turns WHERE session_id = ?').get(longest) as { n: number }).n;
raw.close();
const w = await openSqlite(copy);
const purgeRow = async (label: string, inputs: Parameters<typeof w.purge>[0][], goal: string) => {
  const samples = [];
  for (const input of inputs) samples.push(await measure(() => w.purge(input)));
  row(inputs.length > 1 ? `${label}, p50 of ${inputs.length}` : label, samples, undefined, goal);
};
await purgeRow(
  `purge of the oldest memory item, patching the ${fmt(patched)} stored snapshots that hold it`,
  [{ id: oldestItem, reason: 'bench' }],
  '≤ 1,000 ms',
);
await purgeRow(
  'purge of a memory item',
  memoryIds.map((id) => ({ id, reason: 'bench' })),
  '≤ 1,000 ms',
);
await purgeRow(
  'purge of a session with its turns',
  sessionIds.map((id) => ({ id, reason: 'bench' })),
  '≤ 1,000 ms',
);
await purgeRow(`purge of the longest session (${fmt(longestTurns)} turns)`, [{ id: longest, reason: 'bench' }], '≤ 1,000 ms');
await purgeRow(
  `purge of a namespace (one of ${fmt(500)} users)`,
  namespaces.map((ns) => ({ namespace: [ns], reason: 'bench' })),
  '—',
);
await w.close();
const fileMb = (at: string) => fmt(statSync(at).size / 1e6, 0);
rows.push(['size of the file (snapshots in chunks, each stored once)', `${fileMb(file.path)} MB`, '—', '—', '—']);
rows.push(['size of its copy after the purges (not vacuumed)', `${fileMb(copy)} MB`, '—', '—', '—']);
for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });

report();

/**
 * The big file's turns were folded in bulk, so their history runs through the history index; a
 * session whose turns an agent appended one commit at a time is found through the turns' own
 * `appended_seq` instead. This row builds such a file apart, BENCH_LIFECYCLE_LIVE_TURNS turns
 * (default 2,000) of one session each followed by 99 of other sessions, and times the session's
 * first history read in a fresh process just after it opens the file: the cold engine and the
 * file's pages not yet mapped into the process included, as a command or a new agent process meets it.
 */
async function freshHistoryRow(): Promise<void> {
  const turns = Number(process.env.BENCH_LIFECYCLE_LIVE_TURNS ?? 2_000);
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-lifecycle-live-'));
  const path = join(dir, 'live.db');
  const w = await openSqlite(path, { durability: 'process-crash' });
  const session = await w.sessions.create({ title: 'appended live' });
  const others = await Promise.all(Array.from({ length: 100 }, (_, i) => w.sessions.create({ title: `other ${i}` })));
  const text = (i: number) => `turn ${i}: the staging deploy failed after the migration, roll back the cache and review the latency alert`.repeat(4);
  for (let i = 0; i < turns; i += 1) {
    await w.sessions.appendTurn({ sessionId: session.id, role: 'user', content: text(i) });
    await w.sessions.appendTurns(
      others[i % others.length]!.id,
      Array.from({ length: 99 }, (_, j) => ({ role: 'assistant' as const, content: text(j) })),
    );
  }
  await w.close();
  const script = `import { openSqlite } from '@agentstate/sqlite';
const p = await openSqlite(process.argv[1], { readonly: true });
const cpu = process.cpuUsage();
const start = performance.now();
await p.history(process.argv[2]);
const wallMs = performance.now() - start;
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ wallMs, cpuMs: (used.user + used.system) / 1000 }));
await p.close();`;
  const samples = Array.from({ length: SAMPLES }, () => {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script, path, session.id], {
      cwd: dirname(fileURLToPath(import.meta.url)),
      encoding: 'utf8',
    });
    if (child.status !== 0) throw new Error(`the history reader exited with ${child.status}: ${child.stderr}`);
    return JSON.parse(child.stdout) as { wallMs: number; cpuMs: number };
  });
  row(
    `history of a session appended live (${fmt(turns + 1)} versions, among ${fmt(turns * 100)} events), first read in a fresh process after open, p50 of ${SAMPLES}`,
    samples,
    undefined,
    '≤ 50 ms',
  );
  rmSync(dir, { recursive: true, force: true });
}

/** Prints the table, with the load average at the end of the run. */
function report(): void {
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(', ');
  printTable(
    `Data lifecycle on a ${fmt(head)}-event SQLite file, a snapshot every ${fmt(SNAPSHOT_EVERY)} events (load average ${load})`,
    ['measure', 'wall p50', 'CPU p50', 'raw better-sqlite3, same I/O', 'goal'],
    rows,
  );
}
