/**
 * Durability with real files and real processes, through the built package:
 * writers killed with SIGKILL at random moments (also in the middle of
 * concurrent bursts whose writes share COMMITs) lose no acknowledged write
 * and leave no partial event; four processes writing at once lose and
 * duplicate nothing; in both cases the tables equal a replay of the log and
 * `rebuild()` reproduces them exactly.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeSnapshot, EventTypes, replay } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import { tempDir } from './helpers.js';

const WRITER = fileURLToPath(new URL('./fixtures/writer.mjs', import.meta.url));
const BURST_WRITER = fileURLToPath(new URL('./fixtures/burst-writer.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url));

interface Acks {
  byKind: Map<string, string[]>;
  count: number;
}

/**
 * Starts a writer, which loads its modules and waits for `go()` before it opens the file (fixtures/go.mjs); resolves
 * its acknowledgements when it exits (or is killed).
 */
function startWriter(file: string, name: string, count: number, onAck?: (n: number) => void, script = WRITER) {
  const child = spawn(process.execPath, [script, file, name, String(count)], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, WAIT_FOR_GO: '1' } });
  const acks: Acks = { byKind: new Map(), count: 0 };
  let buffer = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const [tag, kind, id] = line.split(' ');
      if (tag !== 'ack') continue;
      const list = acks.byKind.get(kind!) ?? [];
      list.push(id!);
      acks.byKind.set(kind!, list);
      acks.count += 1;
      onAck?.(acks.count);
    }
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, acks, exited, go: () => child.stdin.end('go\n') };
}

/** Checks the file: acknowledged writes present, dense seqs, tables = replay = rebuild. */
async function verify(file: string, acks: Acks[]): Promise<{ events: number }> {
  const p = await openSqlite(file);
  try {
    const events = await p.log.read({ stream: 'state' });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    // Acknowledged records exist (a later, unacknowledged delete may have tombstoned them).
    const snapshot = await p.snapshot();
    const records = new Map<string, { deleted: boolean }>();
    for (const r of [...snapshot.sessions, ...snapshot.turns, ...snapshot.skills, ...snapshot.memory]) records.set(r.id, r);
    for (const a of acks) {
      for (const kind of ['session', 'turn', 'memory', 'skill']) {
        for (const id of a.byKind.get(kind) ?? []) expect(records.has(id), `${kind} ${id}`).toBe(true);
      }
      for (const id of a.byKind.get('deleted') ?? []) expect(records.get(id)?.deleted).toBe(true);
    }
    const live = encodeSnapshot(await p.snapshot());
    const replayed = await replay(p.log, { fromScratch: true });
    expect(encodeSnapshot(await replayed.snapshot())).toBe(live);
    await p.rebuild();
    expect(encodeSnapshot(await p.snapshot())).toBe(live);
    return { events: events.length };
  } finally {
    await p.close();
  }
}

/**
 * Runs `cycles` writers on `file` one after the other, each killed by SIGKILL, checking the file after each; every
 * next writer starts while the one before runs (its start-up overlaps that cycle) and opens the file once let go,
 * after the check. Returns each writer's acknowledgements.
 */
async function killCycles(file: string, cycles: number, writerFor: (cycle: number) => ReturnType<typeof startWriter>): Promise<Acks[]> {
  const all: Acks[] = [];
  let next = writerFor(0);
  for (let cycle = 0; cycle < cycles; cycle += 1) {
    const writer = next;
    writer.go();
    if (cycle + 1 < cycles) next = writerFor(cycle + 1);
    const exit = await writer.exited;
    expect(exit.signal, exit.stderr).toBe('SIGKILL');
    all.push(writer.acks);
    await verify(file, all);
  }
  return all;
}

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error('these tests run the built package: run `npm run build` first');
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());

describe('crash safety', () => {
  it('keeps every acknowledged write across 24 SIGKILLs at random moments', async () => {
    const file = tmp.file('crash.db');
    let seed = 12345;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const crashWriter = (cycle: number) => {
      const delay = Math.floor(random() * 120);
      const writer = startWriter(file, `c${cycle}`, 0, (n) => {
        if (n === 1) setTimeout(() => writer.child.kill('SIGKILL'), delay);
      });
      return writer;
    };
    const all = await killCycles(file, 24, crashWriter);
    expect(all.length).toBeGreaterThanOrEqual(20);
    expect(all.reduce((n, a) => n + a.count, 0)).toBeGreaterThan(24);
  });
});

describe('crash safety under group commit', () => {
  it('keeps every acknowledged write of 16-call bursts sharing COMMITs across 8 SIGKILLs', async () => {
    const file = tmp.file('burst.db');
    const burstWriter = (cycle: number) => {
      // Killed once some bursts are acknowledged, while later ones are in flight.
      const target = 20 + cycle * 7;
      const writer = startWriter(
        file,
        `b${cycle}`,
        0,
        (n) => {
          if (n === target) writer.child.kill('SIGKILL');
        },
        BURST_WRITER,
      );
      return writer;
    };
    const all = await killCycles(file, 8, burstWriter);
    expect(all.reduce((n, a) => n + a.count, 0)).toBeGreaterThanOrEqual(8 * 20);
  });
});

describe('concurrent processes', () => {
  const WRITES = 250;
  // 250 writes a writer go 50 times through its 5 kinds of write, interleaved with three other writers: more rounds
  // repeat the same cases (and cost a commit, with its sync to disk, each).
  it('4 processes × 250 mixed writes: nothing lost or duplicated, seqs dense, tables = replay', async () => {
    const file = tmp.file('concurrent.db');
    await (await openSqlite(file)).close();
    const writers = ['a', 'b', 'c', 'd'].map((name) => startWriter(file, name, WRITES));
    for (const writer of writers) writer.go();
    const exits = await Promise.all(writers.map((w) => w.exited));
    for (const exit of exits) expect(exit.code, exit.stderr).toBe(0);
    const acks = writers.map((w) => w.acks);
    for (const a of acks) expect(a.count).toBe(WRITES);
    const { events } = await verify(file, acks);
    expect(events).toBe(4 * WRITES);

    const p = await openSqlite(file);
    const log = await p.log.read({ stream: 'state' });
    const keys = log.map((e) => JSON.stringify(e.payload));
    expect(new Set(keys).size).toBe(keys.length);
    const outcomes = acks.reduce((n, a) => n + (a.byKind.get('outcome')?.length ?? 0), 0);
    const shared = await p.skills.get('shared');
    expect(shared.uses).toBe(outcomes);
    // Every version of the shared skill, an upsert or a recorded outcome, follows the one before it:
    // an upsert delayed behind other writers' outcomes replaces the skill they left.
    const versions = log
      .filter((e) => e.type === EventTypes.SkillUpserted || e.type === EventTypes.SkillOutcomeRecorded)
      .filter((e) => (e.payload as { skill: { slug: string } }).skill.slug === 'shared')
      .map((e) => (e.payload as { skill: { updatedHlc: { wall: number; counter: number }; syncVersion: number } }).skill);
    for (let i = 1; i < versions.length; i += 1) {
      const [a, b] = [versions[i - 1]!, versions[i]!];
      expect(b.syncVersion).toBe(a.syncVersion + 1);
      expect(b.updatedHlc.wall * 65536 + b.updatedHlc.counter).toBeGreaterThan(a.updatedHlc.wall * 65536 + a.updatedHlc.counter);
    }
    for (const name of ['a', 'b', 'c', 'd']) {
      const session = (await p.sessions.list()).find((s) => s.title === `writer ${name}`)!;
      const turns = await p.sessions.turns(session.id);
      expect(turns.map((t) => t.seq)).toEqual(turns.map((_, i) => i + 1));
      // After the session, 2 of every 5 writes append a turn.
      expect(turns).toHaveLength(100);
    }
    await p.close();
  });
});
