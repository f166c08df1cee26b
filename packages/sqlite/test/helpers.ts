/** Shared helpers of the SQLite tests: temp files and deterministic provider pairs. */
import type { SpawnSyncReturns } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInMemoryProvider, ManualClock, seededEntropy } from '@agentstate/core';
import type { Embedder, EventSourcedProvider } from '@agentstate/core';
import type Database from 'better-sqlite3';
import { foldForIndex } from '@agentstate/core/backend';
import { Connection, DEFAULT_CONNECTION_OPTIONS } from '../src/connection.js';
import { openSqlite } from '../src/index.js';
import { migrate } from '../src/migrations/index.js';
import { FTS_SECURE_OPTIONS } from '../src/migrations/009-fts-secure-delete.js';
import type { SqliteOptions, SqliteProvider } from '../src/index.js';

/** A fresh temp directory, removed by the returned cleanup. */
export function tempDir(prefix = 'agentstate-sqlite-'): { dir: string; file: (name?: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, file: (name = 'state.db') => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
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
 * Takes a file this version wrote back to schema 12 as that version would
 * have written it: no history runs, and version 13 not recorded.
 */
export function backToSchema12(db: Database.Database): void {
  db.exec('DROP TABLE history_runs; DELETE FROM agentstate_migrations WHERE version = 13;');
}

/**
 * Takes a file this version wrote back to schema 11 as that version would
 * have written it: {@link backToSchema12}, then history index rows for every
 * turn a live commit purged instead of `purged_seq`, and version 12 not recorded.
 */
export function backToSchema11(db: Database.Database): void {
  backToSchema12(db);
  db.exec(`INSERT OR IGNORE INTO record_events SELECT id, purged_seq FROM turns WHERE purged_seq IS NOT NULL;
    ALTER TABLE turns DROP COLUMN purged_seq;
    DELETE FROM agentstate_migrations WHERE version = 12;`);
}

/**
 * Takes a file this version wrote back to schema 10 as that version would
 * have written it: {@link backToSchema11}, then history index rows for every turn append instead of
 * `appended_seq`, the newest-first index on `(created_at, id)`, the turn
 * index of migration 9 (with prefix indexes) holding every live turn, and
 * version 11 not recorded. For the tests of older files.
 */
export function backToSchema10(db: Database.Database): void {
  backToSchema11(db);
  db.exec(`INSERT OR IGNORE INTO record_events SELECT id, appended_seq FROM turns WHERE appended_seq IS NOT NULL
      UNION SELECT session_id, appended_seq FROM turns WHERE appended_seq IS NOT NULL;
    ALTER TABLE turns DROP COLUMN appended_seq;
    DROP INDEX turns_live_recent;
    CREATE INDEX turns_live_recent ON turns (created_at, id) WHERE deleted = 0;
    DROP TABLE turns_fts;
    CREATE VIRTUAL TABLE turns_fts USING fts5(text, ${FTS_SECURE_OPTIONS});
    INSERT INTO turns_fts (turns_fts, rank) VALUES ('secure-delete', 1);
    DELETE FROM agentstate_migrations WHERE version = 11;`);
  const insert = db.prepare('INSERT INTO turns_fts (rowid, text) VALUES (?, ?)');
  for (const row of db.prepare('SELECT n, content FROM turns WHERE deleted = 0').all() as { n: number; content: string }[])
    insert.run(row.n, foldForIndex(row.content));
}

/**
 * Takes a file this version wrote back to schema 9: {@link backToSchema10},
 * then the checkpoints table as version 9 defined it (the file must hold no
 * checkpoints) and version 10 not recorded.
 */
export function backToSchema9(db: Database.Database): void {
  backToSchema10(db);
  const conn = Connection.open(':memory:', DEFAULT_CONNECTION_OPTIONS);
  conn.configure(DEFAULT_CONNECTION_OPTIONS);
  migrate(conn, { target: 9 });
  const definitions = conn.db.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = 'checkpoints' AND sql IS NOT NULL ORDER BY type DESC").all() as {
    sql: string;
  }[];
  conn.db.close();
  db.exec('DROP TABLE checkpoints');
  for (const { sql } of definitions) db.exec(sql);
  db.exec('DELETE FROM agentstate_migrations WHERE version = 10');
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
  return spawnSync('bash', ['-c', `ulimit -f ${kib} && exec "$0" "$@"`, process.execPath, script, ...args], { encoding: 'utf8', timeout: 120_000 });
}
