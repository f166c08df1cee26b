/** Shared helpers of the SQLite tests: temp files and deterministic provider pairs. */
import type { SpawnSyncReturns } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { createInMemoryProvider, ManualClock, seededEntropy } from '@agentstate/core';
import type { Embedder, EventSourcedProvider } from '@agentstate/core';
import { openSqlite } from '../src/index.js';
import type { SqliteOptions, SqliteProvider } from '../src/index.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

/**
 * Where files live that no test reads after a crash of the machine: memory (Linux's /dev/shm) when there is one.
 * Creating a SQLite store there took 20–30 ms and 8 ms of CPU against 50–70 ms and 12 ms on the disk of /tmp.
 */
export const MEMORY_DIR = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

/** A fresh temp directory (under `base`), removed by the returned cleanup. */
export function tempDir(prefix = 'agentstate-sqlite-', base = tmpdir()): { dir: string; file: (name?: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(base, prefix));
  return { dir, file: (name = 'state.db') => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes at `path` the file of `fixtures/schema13`: one the library wrote at schema 13, the last migrated one. */
export function schema13File(path: string): string {
  writeFileSync(path, gunzipSync(readFileSync(fileURLToPath(new URL('./fixtures/schema13/state.db.gz', import.meta.url)))));
  return path;
}

/** The deterministic options two providers share: same clock start, seed and instance. */
export function deterministic(seed = 7): { clock: ManualClock; entropy: ReturnType<typeof seededEntropy>; instanceId: string } {
  return { clock: new ManualClock(Date.UTC(2026, 10, 29, 16, 54)), entropy: seededEntropy(seed), instanceId: 'instance-a' };
}

/** A memory reference and a SQLite provider with identical deterministic options. */
export async function pair(
  path = ':memory:',
  extra: Partial<SqliteOptions> = {},
): Promise<{ memory: EventSourcedProvider; sqlite: SqliteProvider; clocks: ManualClock[]; close: () => Promise<void> }> {
  const a = deterministic();
  const b = deterministic();
  const memory = createInMemoryProvider({ ...a, ...extra });
  const sqlite = await openSqlite(path, { ...b, ...extra });
  return {
    memory,
    sqlite,
    clocks: [a.clock, b.clock],
    close: async () => {
      await memory.close();
      await sqlite.close();
    },
  };
}

/**
 * A tiny deterministic embedder: a hashed bag of folded words in `dimensions`
 * dimensions. Texts that share words are close; it counts its calls.
 */
export function bagOfWordsEmbedder(dimensions = 16, id = `bag-of-words-${dimensions}`): Embedder & { calls: number; texts: number } {
  const embedder = {
    id,
    dimensions,
    similarityThreshold: 0.3,
    calls: 0,
    texts: 0,
    async embed(texts: readonly string[]) {
      embedder.calls += 1;
      embedder.texts += texts.length;
      return texts.map((text) => {
        const v = new Float32Array(dimensions);
        for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
          let h = 2166136261;
          for (let i = 0; i < word.length; i += 1) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
          v[(h >>> 0) % dimensions]! += 1;
        }
        return v;
      });
    },
  };
  return embedder;
}

/**
 * Makes every COMMIT of a write on the file at `path` fail for real, until the
 * returned function is called: a trigger on `events` breaks a deferred foreign
 * key, which SQLite checks at COMMIT (the provider's write handle enforces
 * foreign keys) and which then fails with `SQLITE_CONSTRAINT_FOREIGNKEY`.
 */
export async function failCommitsOf(path: string): Promise<() => Promise<void>> {
  const { default: Sqlite } = await import('better-sqlite3');
  const side = new Sqlite(path);
  try {
    side.pragma('busy_timeout = 5000');
    side.exec(`CREATE TABLE fault_parent (id INTEGER PRIMARY KEY);
      CREATE TABLE fault_child (parent INTEGER REFERENCES fault_parent (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER fault_commit AFTER INSERT ON events BEGIN INSERT INTO fault_child VALUES (0); END;`);
  } finally {
    side.close();
  }
  return async () => {
    const again = new Sqlite(path);
    try {
      again.pragma('busy_timeout = 5000');
      again.exec('DROP TRIGGER fault_commit; DROP TABLE fault_child; DROP TABLE fault_parent;');
    } finally {
      again.close();
    }
  };
}

/**
 * Runs `source` as an ES module in a child process whose files may not grow
 * past `kib` KiB (`ulimit -f`; Node ignores SIGXFSZ, so a write past it
 * fails with EFBIG, as on a full disk), with `args`; returns its exit and output.
 */
export function runUnderFileLimit(dir: string, source: string, kib: number, args: readonly string[]): SpawnSyncReturns<string> {
  const script = join(dir, 'child.mjs');
  writeFileSync(script, source);
  return spawnSync('bash', ['-c', `ulimit -f ${kib} && exec "$0" "$@"`, process.execPath, script, ...args], { encoding: 'utf8', timeout: HANG_GUARD_MS });
}
