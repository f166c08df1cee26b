/**
 * Batch write benchmark (issue 16): RECORDS records written in calls of
 * BATCH, each call one transaction, on a fresh file per case and round,
 * rounds interleaving the cases, best of ROUNDS, all in one run:
 *  - agentstate `sessions.appendTurns` and `memory.writeMany` (each record
 *    validated, stamped, its own event, indexed for search);
 *  - raw better-sqlite3 writing, per record, agentstate's own rows with the
 *    same statements a batch runs (the event, the turn row with the seq of its
 *    append, its full-text row and the session's version) into a file agentstate
 *    created, so the same tables, indexes and FTS5 options: the floor of this
 *    layout on this machine;
 *  - raw better-sqlite3 writing three bare rows per record (event, row, FTS5
 *    row without prefix indexes): the driver's ceiling.
 * For each: records/s of wall time, CPU microseconds per record (process
 * CPU time, steadier than wall time on a shared machine) and WAL pages per
 * 1,000-record commit. Prints the load average before and after.
 * Run: `npm run build` at the root, then `npm run batch -w @agentstate/bench`.
 * Sizes: BENCH_BATCH_RECORDS (default 20000), BENCH_BATCH_SIZE (default 1000).
 * synchronous=FULL throughout (agentstate's default durability).
 */
import { rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import Database from 'better-sqlite3';
import { openSqlite } from '@agentstate/sqlite';
import { fmt, measure, printTable } from './table.js';
import { freshFiles, turnTexts } from './turn-text.js';

const RECORDS = Number(process.env.BENCH_BATCH_RECORDS ?? 20_000);
const BATCH = Number(process.env.BENCH_BATCH_SIZE ?? 1_000);
const ROUNDS = 3;
const PAGE = 4096;

const { dir, freshFile } = freshFiles('agentstate-bench-batch-');
const sentence = turnTexts(21);
const CONTENTS = Array.from({ length: RECORDS }, sentence);

/** One case on a fresh file: `write(from, to)` writes records [from, to) as one call. */
interface Opened {
  write(from: number, to: number): Promise<unknown> | unknown;
  close(): Promise<void> | void;
}

interface Case {
  name: string;
  open(path: string): Promise<Opened>;
}

const turns: Case = {
  name: 'agentstate sessions.appendTurns',
  async open(path) {
    const p = await openSqlite(path);
    const s = await p.sessions.create({ title: 'bench' });
    return {
      write: (from, to) =>
        p.sessions.appendTurns(
          s.id,
          CONTENTS.slice(from, to).map((content) => ({ role: 'user' as const, content })),
        ),
      close: () => p.close(),
    };
  },
};

const memory: Case = {
  name: 'agentstate memory.writeMany',
  async open(path) {
    const p = await openSqlite(path);
    return {
      write: (from, to) => p.memory.writeMany(CONTENTS.slice(from, to).map((content, j) => ({ content, scope: [`project:p${(from + j) % 20}`] }))),
      close: () => p.close(),
    };
  },
};

/** Agentstate's layout written by hand: the statements a batch of turns runs per record, in a file agentstate made. */
const rawLayout: Case = {
  name: "raw better-sqlite3: agentstate's turn rows (event, turn, FTS5, session)",
  async open(path) {
    const p = await openSqlite(path);
    const session = await p.sessions.create({ title: 'bench' });
    await p.close();
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    const event = db.prepare(
      `INSERT INTO events (stream, seq, type, time, schema_version, payload, checksum, validated) VALUES ('state', ?, 'session.turn_appended', ?, 3, ?, ?, 1)`,
    );
    const turn = db.prepare(`INSERT INTO turns (session_id, seq, id, role, content, parts, metadata, created_at, sync_version, origin_instance_id,
      hlc_wall, hlc_counter, last_writer_id, deleted, appended_seq) VALUES (?, ?, ?, 'user', ?, '', '{}', ?, 1, 'bench', ?, 0, '', 0, ?)`);
    const fts = db.prepare('INSERT INTO turns_fts (rowid, text) VALUES (?, ?)');
    const bump = db.prepare('UPDATE sessions SET sync_version = sync_version + 1, updated_at = max(updated_at, ?) WHERE id = ?');
    const write = db
      .transaction((from: number, to: number) => {
        for (let i = from; i < to; i += 1) {
          const id = `turn-${i}`;
          const at = new Date(Date.UTC(2026, 0, 1) + i).toISOString();
          const seq = i + 2;
          event.run(seq, at, JSON.stringify({ turn: { id, sessionId: session.id, seq: i + 1, content: CONTENTS[i], createdAt: at } }), `2:${id}`);
          const n = turn.run(session.id, i + 1, id, CONTENTS[i], at, i, seq).lastInsertRowid;
          fts.run(n, CONTENTS[i]);
          bump.run(at, session.id);
        }
      })
      .immediate.bind(null);
    return { write, close: () => void db.close() };
  },
};

/** Three bare rows per record: the driver's ceiling. */
const rawThree: Case = {
  name: 'raw better-sqlite3: event + row + FTS5 row (no prefix indexes)',
  async open(path) {
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, payload TEXT NOT NULL);
      CREATE TABLE memory (n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, content TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE VIRTUAL TABLE memory_fts USING fts5(text, content = '', contentless_delete = 1);`);
    const event = db.prepare('INSERT INTO events (seq, payload) VALUES (?, ?)');
    const row = db.prepare('INSERT INTO memory (id, content, created_at) VALUES (?, ?, ?)');
    const fts = db.prepare('INSERT INTO memory_fts (rowid, text) VALUES (?, ?)');
    const write = db
      .transaction((from: number, to: number) => {
        for (let i = from; i < to; i += 1) {
          const at = new Date(Date.UTC(2026, 0, 1) + i).toISOString();
          event.run(i + 1, JSON.stringify({ item: { id: `m${i}`, content: CONTENTS[i], createdAt: at } }));
          fts.run(row.run(`m${i}`, CONTENTS[i], at).lastInsertRowid, CONTENTS[i]);
        }
      })
      .immediate.bind(null);
    return { write, close: () => void db.close() };
  },
};

const CASES = [turns, memory, rawLayout, rawThree];

/**
 * WAL pages one call of BATCH records writes, measured on a file already
 * holding a batch: a reader holds a snapshot meanwhile, so no checkpoint
 * recycles the WAL under the count.
 */
async function walPages(c: Case): Promise<number> {
  const path = freshFile();
  const opened = await c.open(path);
  try {
    await opened.write(0, BATCH);
    const reader = new Database(path, { readonly: true });
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT count(*) FROM sqlite_schema').get();
    const before = statSync(`${path}-wal`).size;
    await opened.write(BATCH, 2 * BATCH);
    const pages = (statSync(`${path}-wal`).size - before) / (PAGE + 24);
    reader.prepare('COMMIT').run();
    reader.close();
    return pages;
  } finally {
    await opened.close();
  }
}

const load = () => loadavg()[0]!.toFixed(1);

try {
  const loads = [load()];
  const best = CASES.map(() => ({ rate: 0, cpuUs: Number.POSITIVE_INFINITY }));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [index, c] of CASES.entries()) {
      const opened = await c.open(freshFile());
      const { wallMs, cpuMs } = await measure(async () => {
        for (let i = 0; i < RECORDS; i += BATCH) await opened.write(i, Math.min(RECORDS, i + BATCH));
      });
      await opened.close();
      best[index]!.rate = Math.max(best[index]!.rate, (RECORDS / wallMs) * 1000);
      best[index]!.cpuUs = Math.min(best[index]!.cpuUs, (cpuMs * 1000) / RECORDS);
    }
    loads.push(load());
  }
  const pages: number[] = [];
  for (const c of CASES) pages.push(await walPages(c));
  printTable(
    `Batch writes (synchronous=FULL): ${fmt(RECORDS)} records in calls of ${fmt(BATCH)}, best of ${ROUNDS}; load average ${loads.join(' → ')} (2 cores)`,
    ['writer', 'records/s', 'CPU µs per record', `WAL pages per ${fmt(BATCH)}-record commit`, 'target'],
    CASES.map((c, index) => [
      c.name,
      fmt(best[index]!.rate),
      fmt(best[index]!.cpuUs, 1),
      fmt(pages[index]!),
      c.name.startsWith('agentstate') ? '≥ 50,000 /s' : '—',
    ]),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
