/**
 * Where the first read of a time-travel view goes (issue 15: `at({ seq })`
 * then one recall in ≤ 1 s on a 1,000,000-event SQLite file with a snapshot
 * every 10,000 events), split into its steps, each timed on its own at the
 * same points as bench/lifecycle.ts: the events after the snapshot read and
 * decoded; the memory records restored into a fresh state; those
 * events folded into it; the recall on the folded view. What is left of the
 * whole first read is the snapshot's: its head and memory chunks read,
 * checked and decoded. Beside them, better-sqlite3 doing the same I/O: the
 * events read and JSON-parsed; the head, memory index chunks and chunks read and parsed.
 *
 * Run: `npm run build` at the root, then `npm run view-split -w @agentstate/bench`.
 * Size: BENCH_LIFECYCLE_EVENTS (default 1,000,000); samples: BENCH_LIFECYCLE_SAMPLES (default 5).
 * Each sample also captures its view whole, untimed, to have the memory records to restore.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { LogEvent, StateChange, StateView } from '@agentstate/core';
import { decodeStateEvent, STATE_SCHEMA_VERSION, STATE_STREAM } from '@agentstate/core';
import { chunkStream, InMemoryState } from '@agentstate/core/backend';
import { openSqlite } from '@agentstate/sqlite';
import { bigFile, SNAPSHOT_EVERY } from './big-file.js';
import { fmt, measure, percentile, printTable } from './table.js';

const EVENTS = Number(process.env.BENCH_LIFECYCLE_EVENTS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_LIFECYCLE_SAMPLES ?? 5);

const file = await bigFile(EVENTS);
const p = await openSqlite(file.path, { readonly: true });
const raw = new Database(file.path, { readonly: true });
const head = await p.log.head(STATE_STREAM);
// The points of bench/lifecycle.ts: mid-way between two snapshots, 5,000 events after one.
const points = Array.from({ length: SAMPLES }, (_, i) => Math.floor(((i + 1) * head) / (SAMPLES + 1) / SNAPSHOT_EVERY) * SNAPSHOT_EVERY + SNAPSHOT_EVERY / 2);

type Sample = { wallMs: number; cpuMs: number };
const steps = { whole: [] as Sample[], tail: [] as Sample[], restore: [] as Sample[], fold: [] as Sample[], recall: [] as Sample[] };
const rawTail: number[] = [];
const rawSnapshot: number[] = [];
const rawTime = (fn: () => void) => {
  const start = performance.now();
  fn();
  return performance.now() - start;
};

// First every whole first read, as bench/lifecycle.ts times them, before the steps below fill the heap.
for (const seq of points) {
  let view: StateView | undefined;
  steps.whole.push(
    await measure(async () => {
      view = await p.at({ seq });
      await view.memory.recall({ limit: 1 });
    }),
  );
  // The same recall again on the view, folded by now: the recall alone.
  steps.recall.push(await measure(() => view!.memory.recall({ limit: 1 })));
}

for (const seq of points) {
  const from = seq - SNAPSHOT_EVERY / 2;
  let events: LogEvent[] = [];
  let changes: StateChange[] = [];
  steps.tail.push(
    await measure(async () => {
      events = await p.log.read({ stream: STATE_STREAM, afterSeq: from, limit: seq - from });
      changes = events.map((e) => decodeStateEvent(e, e.schemaVersion === STATE_SCHEMA_VERSION ? { trusted: true } : {}));
    }),
  );
  // The memory records at the snapshot: the view at its seq, captured whole (untimed).
  const { memory } = await (await p.at({ seq: from })).capture();
  const state = new InMemoryState();
  steps.restore.push(await measure(() => state.restoreCollections({ memory })));
  const only = new Set(['memory'] as const);
  steps.fold.push(
    await measure(() => {
      for (const [i, change] of changes.entries()) state.applyParts(change, from + 1 + i, only);
    }),
  );
  rawTail.push(
    rawTime(() => {
      for (const e of raw.prepare('SELECT payload FROM events WHERE stream = ? AND seq > ? AND seq <= ? ORDER BY seq').iterate(STATE_STREAM, from, seq))
        JSON.parse((e as { payload: string }).payload);
    }),
  );
  rawSnapshot.push(
    rawTime(() => {
      const row = raw.prepare('SELECT data FROM snapshots WHERE stream = ? AND seq = ?');
      const read = (stream: string, seq: number) => JSON.parse((row.get(stream, seq) as { data: string }).data);
      const snap = row.get(STATE_STREAM, from) as { data: string } | undefined;
      if (!snap) return;
      const head = JSON.parse(snap.data.slice(snap.data.indexOf('\n') + 1)) as { index: { memory: { sha256: string }[] } };
      for (const index of head.index.memory) for (const ref of read(chunkStream(index.sha256), 0) as { sha256: string }[]) read(chunkStream(ref.sha256), 0);
    }),
  );
}
await p.close();
raw.close();

const p50 = (samples: readonly Sample[], key: keyof Sample) =>
  percentile(
    samples.map((s) => s[key]),
    50,
  );
const ms = (n: number) => `${fmt(n, n < 10 ? 1 : 0)} ms`;
const row = (label: string, samples: readonly Sample[], rawMs: number[] | undefined): string[] => [
  label,
  ms(p50(samples, 'wallMs')),
  ms(p50(samples, 'cpuMs')),
  rawMs ? ms(percentile(rawMs, 50)) : '—',
];
// The snapshot's share: what the whole first read costs beyond the steps timed on their own, per sample.
const rest = steps.whole.map((w, i) => {
  const parts = [steps.tail[i]!, steps.restore[i]!, steps.fold[i]!, steps.recall[i]!];
  return { wallMs: w.wallMs - parts.reduce((n, s) => n + s.wallMs, 0), cpuMs: w.cpuMs - parts.reduce((n, s) => n + s.cpuMs, 0) };
});
const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(', ');
printTable(
  `The first read of a view at(): ${fmt(SAMPLES)} seqs of a ${fmt(head)}-event SQLite file, each ${fmt(SNAPSHOT_EVERY / 2)} events after a snapshot (p50; load average ${load})`,
  ['step', 'wall p50', 'CPU p50', 'raw better-sqlite3, same I/O'],
  [
    row('whole: at({ seq }) then one memory.recall({ limit: 1 })', steps.whole, undefined),
    row('the snapshot: head and memory part read, checked, decoded (the rest)', rest, rawSnapshot),
    row(`the events after it read and decoded (${fmt(SNAPSHOT_EVERY / 2)})`, steps.tail, rawTail),
    row('the memory part restored into a fresh state', steps.restore, undefined),
    row('the events folded into the memory part', steps.fold, undefined),
    row('the recall on the folded view', steps.recall, undefined),
  ],
);
