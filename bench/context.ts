/**
 * Context window benchmark (issue #31): `sessions.context` of a 20,000-turn
 * SQLite session at an 8,000-token budget with the default counter (o200k),
 * a summary present (compacted through all but its newest 100 turns),
 * p50 and p95 of wall and CPU time, the share of that spent counting tokens,
 * and the first call of a process (which loads the encoding) beside them;
 * with raw better-sqlite3 reading the newest 64 turns and then as many as
 * the window holds (a lower bound of the reads it makes), on the same file
 * in the same run. The transcript mixes user and assistant turns
 * of 8–23 words with a tool call and its result every tenth exchange.
 * Run: `npm run build` at the root, then `npm run context -w @agentstate/bench`.
 * Size: BENCH_CONTEXT_TURNS (default 20,000), BENCH_CONTEXT_TOKENS (default 8,000),
 * BENCH_CONTEXT_AFTER (turns after the summary's, default 100).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { TurnInput } from '@agentstate/core';
import { defaultTokenCounter } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import { fmt, measure, percentile, printTable } from './table.js';
import { turnTexts } from './turn-text.js';

const TURNS = Number(process.env.BENCH_CONTEXT_TURNS ?? 20_000);
const MAX_TOKENS = Number(process.env.BENCH_CONTEXT_TOKENS ?? 8_000);
const AFTER = Number(process.env.BENCH_CONTEXT_AFTER ?? 100);
const RUNS = 50;

const sentence = turnTexts(31);

/** The transcript: user and assistant turns, and every tenth exchange a tool call and its result in place of the answer. */
function transcript(n: number): TurnInput[] {
  const turns: TurnInput[] = [];
  for (let i = 0; turns.length < n; i += 1) {
    turns.push({ role: 'user', content: sentence() });
    if (i % 10 === 9) {
      const callId = `call-${i}`;
      turns.push({ role: 'assistant', parts: [{ type: 'tool-call', callId, toolName: 'search', input: { query: sentence() } }] });
      turns.push({ role: 'tool', parts: [{ type: 'tool-result', callId, toolName: 'search', output: { hits: [sentence(), sentence()] } }] });
    } else turns.push({ role: 'assistant', content: sentence() });
  }
  return turns.slice(0, n);
}

const dir = mkdtempSync(join(tmpdir(), 'agentstate-bench-context-'));
const path = join(dir, 'context.db');
try {
  const writer = await openSqlite(path);
  const session = await writer.sessions.create({ title: 'long chat' });
  const turns = transcript(TURNS);
  for (let i = 0; i < turns.length; i += 1000) await writer.sessions.appendTurns(session.id, turns.slice(i, i + 1000));
  const summary = Array.from({ length: 20 }, () => sentence()).join(' ');
  await writer.sessions.compact(session.id, { through: TURNS - AFTER, summary });
  await writer.close();

  const p = await openSqlite(path, { readonly: true });
  const encoding = await measure(() => defaultTokenCounter());
  const counter = await defaultTokenCounter();
  let countingMs = 0;
  const timed = {
    name: counter.name,
    count(text: string) {
      const start = performance.now();
      const n = counter.count(text);
      countingMs += performance.now() - start;
      return n;
    },
  };
  const first = await measure(() => p.sessions.context(session.id, { maxTokens: MAX_TOKENS, counter: timed }));
  const wall: number[] = [];
  const cpu: number[] = [];
  const counting: number[] = [];
  let window = await p.sessions.context(session.id, { maxTokens: MAX_TOKENS });
  for (let i = 0; i < RUNS; i += 1) {
    countingMs = 0;
    const m = await measure(async () => {
      window = await p.sessions.context(session.id, { maxTokens: MAX_TOKENS, counter: timed });
    });
    wall.push(m.wallMs);
    cpu.push(m.cpuMs);
    counting.push(countingMs);
  }
  await p.close();

  // At least the rows the window reads, without core: the newest 64, then as many as it holds, their parts JSON-parsed ('' when the content gives them).
  const turnsShown = window.entries.filter((entry) => entry.kind === 'turn').length;
  const raw = new Database(path, { readonly: true });
  const newest = raw.prepare('SELECT * FROM turns WHERE session_id = ? AND deleted = 0 ORDER BY seq DESC LIMIT ?');
  const rawWall: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    for (const limit of [64, turnsShown]) for (const row of newest.all(session.id, limit) as { parts: string }[]) if (row.parts !== '') JSON.parse(row.parts);
    rawWall.push(performance.now() - start);
  }
  raw.close();

  printTable(
    `sessions.context of a ${fmt(TURNS)}-turn SQLite session at ${fmt(MAX_TOKENS)} tokens (o200k_base), a summary through turn ${fmt(TURNS - AFTER)}: ${window.entries.length - turnsShown} summary, ${fmt(turnsShown)} turns, ${fmt(window.tokens)} tokens; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
    ['what', 'p50 wall ms', 'p95 wall ms', 'p50 CPU ms'],
    [
      ['context (warm)', fmt(percentile(wall, 50), 2), fmt(percentile(wall, 95), 2), fmt(percentile(cpu, 50), 2)],
      ['of which token counting', fmt(percentile(counting, 50), 2), fmt(percentile(counting, 95), 2), '—'],
      ['counting share of the p50', `${fmt((100 * percentile(counting, 50)) / percentile(wall, 50))} %`, '', ''],
      [`raw better-sqlite3: newest 64, then ${turnsShown} turns, parts parsed`, fmt(percentile(rawWall, 50), 2), fmt(percentile(rawWall, 95), 2), '—'],
      ['first call of a process (after the encoding loaded)', fmt(first.wallMs, 2), '', fmt(first.cpuMs, 2)],
      ['loading the o200k encoding (once per process)', fmt(encoding.wallMs, 2), '', fmt(encoding.cpuMs, 2)],
    ],
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
