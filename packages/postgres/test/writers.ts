/**
 * Writer processes for the fleet and crash tests (fixtures/writer.mjs, on
 * the built package), and the check that a schema holds exactly what they
 * acknowledged: nothing lost or duplicated, positions increasing, outcome counts
 * exact, the tables equal to a replay of the log.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { encodeSnapshot, replay } from '@agentstate/core';
import { openPostgres } from '../src/index.js';

const WRITER = fileURLToPath(new URL('./fixtures/writer.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Fails at once, with the reason, when the package was not built (the writers import it). */
export function requireBuilt(): void {
  if (!existsSync(BUILT)) throw new Error(`the writer processes import the built package: run npx tsc -b packages/postgres (${BUILT} is missing)`);
}

/** What one writer acknowledged. */
export interface Acks {
  /** Every `ack` line, split into words after `ack`. */
  lines: string[][];
  /** How many retryable errors it met, by error code. */
  retries: Map<string, number>;
}

/** A running writer: its acknowledgements so far, and its exit. */
export interface Writer {
  acks: Acks;
  exited: Promise<{ code: number | null; stderr: string }>;
}

/** Starts `node writer.mjs url schema name count`; `onAck` sees each acknowledgement as it comes. */
export function startWriter(url: string, schema: string, name: string, count: number, onAck?: () => void): Writer {
  const child = spawn(process.execPath, [WRITER, url, schema, name, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acks: Acks = { lines: [], retries: new Map() };
  let buffer = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const [tag, ...words] = buffer.slice(0, nl).split(' ');
      buffer = buffer.slice(nl + 1);
      if (tag === 'ack') {
        acks.lines.push(words);
        onAck?.();
      } else if (tag === 'retry') acks.retries.set(words[0]!, (acks.retries.get(words[0]!) ?? 0) + 1);
    }
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
  return { acks, exited };
}

/** Waits for every writer and expects each to have finished cleanly. */
export async function finished(writers: Writer[]): Promise<Acks[]> {
  for (const w of writers) {
    const { code, stderr } = await w.exited;
    expect(stderr, 'a writer failed').toBe('');
    expect(code).toBe(0);
  }
  return writers.map((w) => w.acks);
}

/**
 * Expects the schema to hold exactly the acknowledged writes: one event
 * each (so nothing lost and nothing applied twice), positions strictly
 * increasing (a write tried again after a collision leaves a gap), every
 * acknowledged turn, memory item and skill present, each shared skill's
 * uses and wins equal to the acknowledged outcomes, and the tables equal
 * to a replay of the log.
 */
export async function expectExactly(url: string, schema: string, all: Acks[]): Promise<void> {
  const provider = await openPostgres(url, { schema, max: 2 });
  try {
    const lines = all.flatMap((a) => a.lines);
    const events = await provider.log.read({ stream: 'state' });
    expect(events).toHaveLength(lines.length);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    const snapshot = await provider.snapshot();
    const ids = (kind: string) => new Set(lines.filter((l) => l[0] === kind).map((l) => l[1]!));
    const turns = snapshot.turns.map((t) => t.id);
    expect(new Set(turns).size).toBe(turns.length);
    expect(new Set(turns)).toEqual(ids('turn'));
    expect(snapshot.sessions.map((s) => s.id).sort()).toEqual([...ids('session')].sort());
    const memory = new Set(snapshot.memory.map((m) => m.id));
    for (const id of ids('memory')) expect(memory.has(id)).toBe(true);
    for (const skill of snapshot.skills) {
      const outcomes = lines.filter((l) => l[0] === 'outcome' && l[1] === skill.slug);
      expect({ slug: skill.slug, uses: skill.uses, wins: skill.wins }).toEqual({
        slug: skill.slug,
        uses: outcomes.length,
        wins: outcomes.filter((l) => l[2] === '1').length,
      });
    }
    expect(new Set(snapshot.skills.map((s) => s.id))).toEqual(ids('upsert'));
    const replayed = await replay(provider.log, { fromScratch: true });
    expect(encodeSnapshot(snapshot)).toBe(encodeSnapshot(await replayed.snapshot()));
    await replayed.close();
  } finally {
    await provider.close();
  }
}
