/**
 * Fault injection on real files (the hardening issue, "Beyond the list"):
 * random pages of every table and index of a copy overwritten or with a
 * byte flipped, the file cut at random points, the `-wal` of a killed
 * writer removed, rebuilds, snapshots and verification running against
 * writers in other processes. For each: `verify` never says ok about a file
 * whose contents differ from what was written; a read either returns what
 * was written or throws a typed error; nothing acknowledged is lost when
 * the damage does not touch it. The randomness is seeded and the seed is
 * printed. `npm test` runs the fixed seeds that once found a defect (a
 * damaged schema page, a lost projection state row, a changed event time
 * the checksum did not cover), so CI is repeatable; FAULT_SEED=<n> replays one seed, FAULT_SEED=random draws one.
 */
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, openSync, readSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentStateError, encodeSnapshot } from '@agentstate/core';
import { openSqlite, type SqliteProvider } from '../src/index.js';
import { checkpoint, pages, populate, prng } from './damage.js';
import { bagOfWordsEmbedder, tempDir } from './helpers.js';

/**
 * Seeds that once found a defect. Every seed damages every table and index in both ways, at other pages and bytes:
 * a further fixed seed would repeat the same cases, each a copy opened and verified; FAULT_SEED=random draws new ones.
 */
const FIXED_SEEDS = [528008, 11, 794369] as const;
const chosen = process.env.FAULT_SEED;
const SEEDS: readonly number[] = chosen === undefined ? FIXED_SEEDS : [chosen === 'random' ? Date.now() % 1_000_000 : Number(chosen)];
console.log(`faults.int.test.ts: FAULT_SEED=${SEEDS.join(',')}`);

const WRITER = fileURLToPath(new URL('./fixtures/writer.mjs', import.meta.url));

const tmp = tempDir('agentstate-faults-');
const original = tmp.file('original.db');
let copies = 0;

/** What was written, as every read path returns it. */
interface Truth {
  snapshot: string;
  log: string;
  recall: string;
}

let truth: Truth;

async function observe(p: SqliteProvider): Promise<Truth> {
  return {
    snapshot: encodeSnapshot(await p.snapshot()),
    log: JSON.stringify(await p.log.read({ stream: 'state' })),
    recall: JSON.stringify(await p.memory.recall({ query: 'staging region', mode: 'lexical', limit: 50 })),
  };
}

/** An error a read may throw on a damaged file: typed, never a raw driver error. */
function expectTyped(error: unknown, context: string): void {
  const typed = error instanceof AgentStateError || (error instanceof Error && error.name === 'IncompatibleDatabaseError');
  expect(typed, `${context}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`).toBe(true);
}

/**
 * The core property on a damaged copy: if it opens and `verify` says ok,
 * every read returns exactly what was written; otherwise every read returns
 * what was written or throws a typed error. Returns whether verify said ok.
 */
async function checkDamaged(path: string, context: string): Promise<'unopenable' | 'ok' | 'damaged'> {
  let p: SqliteProvider;
  try {
    p = await openSqlite(path);
  } catch (error) {
    expectTyped(error, `${context}, opening`);
    return 'unopenable';
  }
  try {
    const report = await p.verify();
    if (report.ok) {
      expect(await observe(p), `${context}: verify said ok`).toEqual(truth);
      return 'ok';
    }
    expect(report.problems.length, context).toBeGreaterThan(0);
    expect(report.repair, context).not.toBeNull();
    for (const read of [() => p.snapshot(), () => p.log.read({ stream: 'state' }), () => p.memory.recall({ query: 'staging', mode: 'lexical' })]) {
      try {
        await read();
      } catch (error) {
        expectTyped(error, `${context}, reading`);
      }
    }
    return 'damaged';
  } catch (error) {
    expectTyped(error, `${context}, verifying`);
    return 'damaged';
  } finally {
    await p.close();
  }
}

function copy(): string {
  copies += 1;
  const path = tmp.file(`copy-${copies}.db`);
  copyFileSync(original, path);
  return path;
}

beforeAll(async () => {
  const p = await openSqlite(original, { embedder: bagOfWordsEmbedder() });
  await populate(p, 80);
  await p.memory.recall({ query: 'staging region', mode: 'semantic' });
  await p.saveSnapshot();
  await p.close();
  checkpoint(original);
  rmSync(`${original}-shm`, { force: true });
  const reader = await openSqlite(original);
  truth = await observe(reader);
  await reader.close();
  checkpoint(original);
});
afterAll(() => tmp.cleanup());

describe.each(SEEDS)('random damage to a copy, seed %i', (SEED) => {
  const random = prng(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

  it('overwritten pages and flipped bytes in every table and index: verify never says ok on changed contents', async () => {
    const { pages: all, pageSize } = pages(original);
    const owners = [...new Set(all.map((p) => p.name))];
    const outcomes = { unopenable: 0, ok: 0, damaged: 0 };
    for (const owner of owners) {
      const candidates = all.filter((p) => p.name === owner);
      for (const mode of ['page', 'byte'] as const) {
        const page = pick(candidates);
        const path = copy();
        const fd = openSync(path, 'r+');
        try {
          const start = (page.pageno - 1) * pageSize;
          if (mode === 'page') {
            const garbage = Buffer.alloc(pageSize);
            for (let i = 0; i < pageSize; i += 1) garbage[i] = Math.floor(random() * 256);
            writeSync(fd, garbage, 0, pageSize, start);
          } else {
            const at = start + Math.floor(random() * pageSize);
            const one = Buffer.alloc(1);
            readSync(fd, one, 0, 1, at);
            one[0] = one[0]! ^ (1 + Math.floor(random() * 255));
            writeSync(fd, one, 0, 1, at);
          }
        } finally {
          closeSync(fd);
        }
        outcomes[await checkDamaged(path, `seed ${SEED}: ${mode} of page ${page.pageno} (${owner})`)] += 1;
        rmSync(path, { force: true });
      }
    }
    console.log(`random damage, seed ${SEED}:`, outcomes);
    // A whole page of garbage in a used page is always noticed.
    expect(outcomes.damaged + outcomes.unopenable).toBeGreaterThanOrEqual(owners.length);
  });

  it('a file cut at random points is never ok unless nothing was cut', async () => {
    const size = statSync(original).size;
    for (let i = 0; i < 12; i += 1) {
      const path = copy();
      const at = 1 + Math.floor(random() * (size - 1));
      truncateSync(path, at);
      const outcome = await checkDamaged(path, `seed ${SEED}: cut at ${at} of ${size}`);
      expect(outcome, `cut at ${at} of ${size}`).not.toBe('ok');
      rmSync(path, { force: true });
    }
  });
});

describe('a lost -wal', () => {
  it('removing the -wal of a killed writer loses only unchecked-pointed writes and leaves a consistent file', async () => {
    const path = copy();
    const child = spawn(process.execPath, [WRITER, path, 'w', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acks = 0;
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        acks += chunk.split('\n').filter((l) => l.startsWith('ack ')).length;
        if (acks >= 40) resolve();
      });
      child.on('exit', () => reject(new Error('the writer exited early')));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    expect(existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0).toBe(true);
    rmSync(`${path}-wal`);
    rmSync(`${path}-shm`, { force: true });
    // The main file still holds the last checkpointed state: the original, intact and verifiable.
    expect(await checkDamaged(path, `lost -wal`)).toBe('ok');
  });
});

describe('maintenance against live writers', () => {
  it('rebuilds, snapshots and verifications while two processes write: all ok, nothing acknowledged lost', async () => {
    const path = copy();
    const writers = ['a', 'b'].map((name) => {
      const child = spawn(process.execPath, [WRITER, path, name, '60'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const ids: string[] = [];
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        for (const line of chunk.split('\n')) if (line.startsWith('ack ') && !line.startsWith('ack outcome')) ids.push(line.split(' ')[2]!);
      });
      child.stderr.on('data', (c) => (err += String(c)));
      return { ids, exited: new Promise<{ code: number | null; err: string }>((resolve) => child.on('exit', (code) => resolve({ code, err }))) };
    });
    const p = await openSqlite(path, { busyTimeoutMs: 60_000 });
    try {
      let running = true;
      void Promise.all(writers.map((w) => w.exited)).then(() => (running = false));
      let rounds = 0;
      while (running || rounds < 2) {
        await p.rebuild();
        await p.saveSnapshot();
        const report = await p.verify();
        expect(report.problems).toEqual([]);
        rounds += 1;
        // Leave the lock to the writers for a moment: a tight loop of rebuilds would starve them.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (const w of writers) expect((await w.exited).code, (await w.exited).err).toBe(0);
      const snapshot = await p.snapshot();
      const ids = new Set([...snapshot.sessions, ...snapshot.turns, ...snapshot.skills, ...snapshot.memory].map((r) => r.id));
      for (const w of writers) for (const id of w.ids) expect(ids.has(id), id).toBe(true);
      expect(await p.verify()).toMatchObject({ problems: [], ok: true });
    } finally {
      await p.close();
    }
  });
});
