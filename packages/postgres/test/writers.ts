/**
 * Writer processes for the fleet and crash tests (fixtures/writer.mjs, on
 * the built package), and the check that a schema holds exactly what they
 * acknowledged: each acknowledged write once, no write twice, positions
 * strictly increasing (not necessarily dense), turn numbers dense per
 * session, outcome counts exact, the tables equal to a replay of the log,
 * and `verify` clean.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { LogEvent } from '@agentstate/core';
import { encodeSnapshot, EventTypes, replay } from '@agentstate/core';
import { openPostgres } from '../src/index.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const WRITER = fileURLToPath(new URL('./fixtures/writer.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Fails at once, with the reason, when the package was not built (the writers import it). */
export function requireBuilt(): void {
  if (!existsSync(BUILT)) throw new Error(`the writer processes import the built package: run npx tsc -b packages/postgres (${BUILT} is missing)`);
}

/** What one writer acknowledged. */
export interface Acks {
  /** Every `ack` line, split into words after `ack` and its operation id. */
  lines: string[][];
  /** The operation ids of those lines, in order (none for writes made without one). */
  operations?: string[];
  /** How many retryable errors it met, by error code. */
  retries: Map<string, number>;
}

/** A running writer: its acknowledgements so far, its exit, and the process. */
export interface Writer {
  acks: Acks;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  child: ChildProcess;
}

/**
 * Starts `node writer.mjs url schema name count patience`; `onAck` sees each acknowledgement as it comes. A write
 * keeps being retried until the hang guard's time has passed: a loaded machine only makes an outage longer.
 */
export function startWriter(url: string, schema: string, name: string, count: number, onAck?: (acks: Acks) => void): Writer {
  const child = spawn(process.execPath, [WRITER, url, schema, name, String(count), String(HANG_GUARD_MS)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acks = { lines: [] as string[][], operations: [] as string[], retries: new Map<string, number>() };
  let buffer = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const [tag, ...words] = buffer.slice(0, nl).split(' ');
      buffer = buffer.slice(nl + 1);
      if (tag === 'ack') {
        acks.operations.push(words[0]!);
        acks.lines.push(words.slice(1));
        onAck?.(acks);
      } else if (tag === 'retry') acks.retries.set(words[0]!, (acks.retries.get(words[0]!) ?? 0) + 1);
    }
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { acks, exited, child };
}

/** Waits for every writer and expects each to have finished cleanly, or, for one in `killed`, to have died of SIGKILL. */
export async function finished(writers: Writer[], killed: ReadonlySet<Writer> = new Set()): Promise<Acks[]> {
  for (const w of writers) {
    const { code, signal, stderr } = await w.exited;
    expect(stderr, 'a writer failed').toBe('');
    expect({ code, signal }).toEqual(killed.has(w) ? { code: null, signal: 'SIGKILL' } : { code: 0, signal: null });
  }
  return writers.map((w) => w.acks);
}

/** The operation id an event's write carried. */
function operationOf(event: LogEvent): string | undefined {
  return (event.payload as { operation?: { id?: string } }).operation?.id;
}

/**
 * Expects the schema to hold exactly the acknowledged writes: positions
 * strictly increasing; no operation twice, every acknowledged one there, and
 * at most `inFlight` there unacknowledged (the write a killed writer had
 * under way); every acknowledged turn, session, memory item, deletion and
 * skill there; each session's turns numbered 1…n; each shared skill's uses
 * and wins the outcomes its events record, which are the acknowledged ones
 * and the unacknowledged ones above; the tables equal to a replay of the
 * log; and `verify` clean.
 */
export async function expectExactly(url: string, schema: string, all: Acks[], inFlight = 0): Promise<void> {
  const provider = await openPostgres(url, { schema, max: 2 });
  try {
    const lines = all.flatMap((a) => a.lines);
    const events = await provider.log.read({ stream: 'state' });
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    const operations = events.flatMap((e) => operationOf(e) ?? []);
    expect(operations.length - new Set(operations).size, 'operations applied twice').toBe(0);
    const acked = all.flatMap((a) => a.operations ?? []);
    expect(acked.filter((op) => !operations.includes(op))).toEqual([]);
    const unacked = events.filter((e) => operationOf(e) !== undefined && !acked.includes(operationOf(e)!));
    expect(unacked.length).toBeLessThanOrEqual(inFlight);
    expect(events.length - unacked.length).toBe(lines.length);

    const snapshot = await provider.snapshot();
    const ids = (kind: string) => new Set(lines.filter((l) => l[0] === kind).map((l) => l[1]!));
    const turns = snapshot.turns.map((t) => t.id);
    expect(new Set(turns).size).toBe(turns.length);
    for (const id of ids('turn')) expect(turns).toContain(id);
    for (const id of ids('session')) expect(snapshot.sessions.map((s) => s.id)).toContain(id);
    for (const session of snapshot.sessions) {
      const numbers = snapshot.turns.filter((t) => t.sessionId === session.id).map((t) => t.seq);
      expect(numbers.sort((a, b) => a - b)).toEqual(numbers.map((_, i) => i + 1));
    }
    const memory = new Map(snapshot.memory.map((m) => [m.id, m]));
    for (const id of ids('memory')) expect(memory.has(id), id).toBe(true);
    for (const id of ids('delete')) expect(memory.get(id)?.deleted, id).toBe(true);
    for (const skill of snapshot.skills) {
      const recorded = events.filter((e) => e.type === EventTypes.SkillOutcomeRecorded && (e.payload as { skill: { id: string } }).skill.id === skill.id);
      const wins = recorded.filter((e) => (e.payload as { increment: { wins: number } }).increment.wins === 1);
      expect({ slug: skill.slug, uses: skill.uses, wins: skill.wins }).toEqual({ slug: skill.slug, uses: recorded.length, wins: wins.length });
      const ackedOutcomes = lines.filter((l) => l[0] === 'outcome' && l[1] === skill.slug);
      expect(recorded.length - ackedOutcomes.length).toBe(unacked.filter((e) => recorded.includes(e)).length);
      expect(wins.length - ackedOutcomes.filter((l) => l[2] === '1').length).toBe(unacked.filter((e) => wins.includes(e)).length);
    }
    for (const id of ids('upsert')) expect(snapshot.skills.map((s) => s.id)).toContain(id);
    const replayed = await replay(provider.log, { fromScratch: true });
    expect(encodeSnapshot(snapshot)).toBe(encodeSnapshot(await replayed.snapshot()));
    await replayed.close();
    const report = await provider.verify();
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
  } finally {
    await provider.close();
  }
}
