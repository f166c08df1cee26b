/**
 * In-memory provider benchmark (issue targets: appendTurn ≥ 100,000/s and at
 * least 1.0× the OpenAI Agents SDK's `MemorySession.addItems` on the same
 * items, one per call, measured in the same run; replay ≥ 200,000 events/s
 * with payload validation; restore from a snapshot of 100,000 records ≤ 1 s).
 * Rates are given in wall time and in process CPU time (steadier on a shared
 * machine; CPU time includes V8's garbage-collection helper threads), with
 * the load average. Run: `npm run core -w @agentstate/bench` (under a minute
 * on an idle 2-core machine, three at load 19); sizes: BENCH_TURNS,
 * BENCH_REPLAY_EVENTS, BENCH_RECORDS, BENCH_PEER_ITEMS.
 */
import { loadavg } from 'node:os';
import type { Log } from '@agentstate/core';
import { MemorySession } from '@openai/agents-core';
import { createInMemoryProvider, decodeSnapshot, encodeSnapshot, InMemoryLog, ManualClock, replay, seededEntropy } from '@agentstate/core';
import { foldLog, InMemoryState } from '@agentstate/core/backend';
import { fmt, measure, percentile, printTable, timeMs } from './table.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 100_000);
const REPLAY_EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 300_000);
const ROUNDS = 3;
/** Items per session in the comparison with `MemorySession`, and sessions measured (the median is reported). */
const PEER_ITEMS = Number(process.env.BENCH_PEER_ITEMS ?? 2_000);
const PEER_ROUNDS = 9;
const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const RECALLS = 200;

const WORDS =
  'deploy staging production rollback database migration cache redis postgres user prefers dark mode lisbon office friday review tests coverage latency budget alert pager incident'.split(
    ' ',
  );
const sentence = (i: number, n = 10) => Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(' ');

const rows: string[][] = [];

async function appendTurns(): Promise<void> {
  const runs: Array<{ wallMs: number; cpuMs: number }> = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const p = createInMemoryProvider({ clock: new ManualClock(), entropy: seededEntropy(1) });
    const session = await p.sessions.create({ title: 'bench' });
    runs.push(
      await measure(async () => {
        for (let i = 0; i < TURNS; i += 1) await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: sentence(i) });
      }),
    );
  }
  const m = medianOf(runs);
  rows.push([
    'appendTurn (awaited, one at a time)',
    `${fmt(TURNS)} turns`,
    `${fmt(m.wallMs)} ms`,
    `${fmt((TURNS / m.wallMs) * 1000)} /s`,
    `${fmt((TURNS / m.cpuMs) * 1000)} /s (${fmt((m.cpuMs * 1000) / TURNS, 1)} µs of CPU per turn)`,
    '≥ 100,000 /s',
  ]);
}

/**
 * appendTurn against the OpenAI Agents SDK's `MemorySession.addItems` on
 * the same items, one per call, in sessions of {@link PEER_ITEMS} items
 * (`addItems` copies the whole array on every call, so its rate falls with
 * the session's length: the comparison is made at one typical length),
 * alternating, so both see the same load.
 */
async function againstMemorySession(): Promise<void> {
  const ours: Array<{ wallMs: number; cpuMs: number }> = [];
  const peer: Array<{ wallMs: number; cpuMs: number }> = [];
  for (let round = 0; round < PEER_ROUNDS; round += 1) {
    const p = createInMemoryProvider({ clock: new ManualClock(), entropy: seededEntropy(round) });
    const session = await p.sessions.create({ title: 'bench' });
    ours.push(
      await measure(async () => {
        for (let i = 0; i < PEER_ITEMS; i += 1) await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: sentence(i) });
      }),
    );
    const memory = new MemorySession();
    peer.push(
      await measure(async () => {
        for (let i = 0; i < PEER_ITEMS; i += 1) await memory.addItems([{ role: 'user', content: sentence(i) }]);
      }),
    );
  }
  const m = medianOf(ours);
  const q = medianOf(peer);
  const size = `${fmt(PEER_ITEMS)} items per session`;
  rows.push([
    'appendTurn, same items as the peer below',
    size,
    `${fmt(m.wallMs, 1)} ms`,
    `${fmt((PEER_ITEMS / m.wallMs) * 1000)} /s`,
    `${fmt((PEER_ITEMS / m.cpuMs) * 1000)} /s (${fmt(q.cpuMs / m.cpuMs, 2)}× the peer)`,
    '≥ 1.0× the peer',
  ]);
  rows.push([
    'peer: OpenAI Agents `MemorySession.addItems`, one item per call',
    size,
    `${fmt(q.wallMs, 1)} ms`,
    `${fmt((PEER_ITEMS / q.wallMs) * 1000)} /s`,
    `${fmt((PEER_ITEMS / q.cpuMs) * 1000)} /s`,
    '—',
  ]);
}

/** The round with the median CPU time. */
function medianOf(runs: Array<{ wallMs: number; cpuMs: number }>): { wallMs: number; cpuMs: number } {
  return [...runs].sort((a, b) => a.cpuMs - b.cpuMs)[Math.floor(runs.length / 2)]!;
}

async function replayLog(): Promise<void> {
  const log = new InMemoryLog({ clock: new ManualClock() });
  const p = createInMemoryProvider({ log, clock: new ManualClock(), entropy: seededEntropy(2) });
  const sessions = [];
  for (let s = 0; s < 1_000; s += 1) sessions.push(await p.sessions.create({ title: `s${s}` }));
  for (let i = sessions.length; i < REPLAY_EVENTS; i += 1) {
    if (i % 10 === 0) await p.memory.write({ content: sentence(i) });
    else await p.sessions.appendTurn({ sessionId: sessions[i % sessions.length]!.id, role: 'assistant', content: sentence(i) });
  }
  const runs = [];
  for (let round = 0; round < ROUNDS; round += 1) runs.push(await measure(() => replay(log, { fromScratch: true })));
  const m = medianOf(runs);
  const events = await log.head('state');
  rows.push([
    'replay of an InMemoryLog (from scratch; payloads validated when appended)',
    `${fmt(events)} events`,
    `${fmt(m.wallMs)} ms`,
    `${fmt((events / m.wallMs) * 1000)} events/s`,
    `${fmt((events / m.cpuMs) * 1000)} events/s`,
    '≥ 200,000 events/s',
  ]);
  // The same events through a log the fold cannot vouch for: every payload is parsed (zod) on the way in.
  const foreign: Log = {
    identity: () => log.identity(),
    append: (input) => log.append(input),
    read: (query) => log.read(query),
    head: (stream) => log.head(stream),
    saveSnapshot: (snapshot) => log.saveSnapshot(snapshot),
    latestSnapshot: (stream, options) => log.latestSnapshot(stream, options),
  };
  const validated = await measure(() => replay(foreign, { fromScratch: true }));
  rows.push([
    'replay of any other log (from scratch; every payload validated)',
    `${fmt(events)} events`,
    `${fmt(validated.wallMs)} ms`,
    `${fmt((events / validated.wallMs) * 1000)} events/s`,
    `${fmt((events / validated.cpuMs) * 1000)} events/s`,
    '—',
  ]);
}

async function snapshots(): Promise<void> {
  const p = createInMemoryProvider({ clock: new ManualClock(), entropy: seededEntropy(3) });
  for (let i = 0; i < RECORDS; i += 1) await p.memory.write({ content: sentence(i), scope: [`project:p${i % 10}`] });
  let text = '';
  const write = await measure(async () => {
    text = encodeSnapshot(await p.snapshot());
  });
  rows.push([
    'snapshot capture + encode',
    `${fmt(RECORDS)} records (${fmt(text.length / 1e6, 1)} MB)`,
    `${fmt(write.wallMs)} ms`,
    '',
    `${fmt(write.cpuMs)} ms`,
    '—',
  ]);
  const restore = await measure(() => {
    const state = new InMemoryState();
    state.restore(decodeSnapshot(text, RECORDS));
  });
  rows.push(['snapshot decode + restore', `${fmt(RECORDS)} records`, `${fmt(restore.wallMs)} ms`, '', `${fmt(restore.cpuMs)} ms`, '≤ 1,000 ms']);
  const fromSnapshot = await measure(async () => {
    await p.saveSnapshot();
    await foldLog(p.log);
  });
  rows.push(['save + fold from that snapshot', `${fmt(RECORDS)} records`, `${fmt(fromSnapshot.wallMs)} ms`, '', `${fmt(fromSnapshot.cpuMs)} ms`, '—']);

  const samples: number[] = [];
  for (let i = 0; i < RECALLS; i += 1) {
    const query = WORDS[i % WORDS.length]!.slice(0, 4);
    samples.push(await timeMs(() => p.memory.recall({ query, limit: 10 })));
  }
  rows.push([
    'recall, lexical, recent, limit 10',
    `${fmt(RECORDS)} items`,
    `p50 ${fmt(percentile(samples, 50), 2)} ms`,
    `p95 ${fmt(percentile(samples, 95), 2)} ms`,
    '',
    '—',
  ]);
  const ranked: number[] = [];
  for (let i = 0; i < RECALLS / 4; i += 1) {
    const query = `${WORDS[i % WORDS.length]} ${WORDS[(i + 3) % WORDS.length]}`;
    ranked.push(await timeMs(() => p.memory.recall({ query, limit: 10, order: 'relevance' })));
  }
  rows.push([
    'recall, lexical, relevance, limit 10',
    `${fmt(RECORDS)} items`,
    `p50 ${fmt(percentile(ranked, 50), 2)} ms`,
    `p95 ${fmt(percentile(ranked, 95), 2)} ms`,
    '',
    '—',
  ]);
}

await appendTurns();
await againstMemorySession();
await replayLog();
await snapshots();
printTable(
  `@agentstate/core, in-memory provider — Node ${process.version}, ${process.platform}/${process.arch}, median of ${ROUNDS} for appendTurn and replay; load average ${loadavg()
    .map((l) => fmt(l, 1))
    .join(' ')}`,
  ['operation', 'size', 'wall time', 'rate (wall)', 'rate or time (CPU)', 'target'],
  rows,
);
