/**
 * The pages a purge writes (issue 15's purge goal: a long session in ≤ 1 s).
 * A purge's cost is mostly pages: every page it changes goes through the
 * `-wal` at commit. A reader held open across the purge keeps its checkpoint
 * from emptying the `-wal`, so the frames it wrote can be read and named by
 * the b-tree they belong to (`dbstat`).
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createInMemoryProvider, exportLog, ManualClock, seededEntropy } from '@agentstate/core';
import { importSqlite, openSqlite, type SqliteProvider } from '../src/index.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('agentstate-purge-pages-');
afterAll(() => tmp.cleanup());

/** The page numbers of the frames in a `-wal` file of the current generation (its header's salts). */
function walPages(path: string): number[] {
  const wal = readFileSync(`${path}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  const pages: number[] = [];
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize)
    if (wal.readUInt32BE(at + 8) === salts[0] && wal.readUInt32BE(at + 12) === salts[1]) pages.push(wal.readUInt32BE(at));
  return pages;
}

/** How many of `pages` each table or index holds (pages new to the file count as `(new)`). */
function pagesByName(path: string, pages: number[]): Map<string, number> {
  const db = new Database(path, { readonly: true });
  const names = new Map((db.prepare('SELECT pageno, name FROM dbstat').all() as { pageno: number; name: string }[]).map((r) => [r.pageno, r.name]));
  db.close();
  const out = new Map<string, number>();
  for (const page of new Set(pages)) {
    const name = names.get(page) ?? '(new)';
    out.set(name, (out.get(name) ?? 0) + 1);
  }
  return out;
}

/** Exports `p`'s log and imports it into a new SQLite file at `path` (the bulk path, which keeps the test fast). */
async function importInto(path: string, p: ReturnType<typeof createInMemoryProvider>): Promise<void> {
  const lines: string[] = [];
  await exportLog(p.log, (chunk) => {
    lines.push(...chunk.split('\n').filter((line) => line !== ''));
  });
  await p.close();
  await importSqlite(path, lines);
}

const provider = () => createInMemoryProvider({ clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(5), instanceId: 'pages' });

/**
 * A file of three sessions whose turns interleave, so each session's turns are spread over the turns' id index;
 * with `memory`, an item written after each turn, whose history index row spreads that index over many pages.
 */
async function interleavedSessions(path: string, turnsEach: number, memory = false): Promise<string[]> {
  const p = provider();
  const sessions = [];
  for (let s = 0; s < 3; s += 1) sessions.push(await p.sessions.create({ title: `session ${s}` }));
  for (let i = 0; i < turnsEach; i += 1)
    for (const session of sessions) {
      await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `turn ${i} of ${session.title}` });
      if (memory) await p.memory.write({ content: `fact ${i} of ${session.title}` });
    }
  await importInto(path, p);
  return sessions.map((s) => s.id);
}

/** The pages of each b-tree `purge` writes on the file at `path`, and how many pages `index` spans before it. */
async function purgeWrites(path: string, purge: (p: SqliteProvider) => Promise<unknown>, index: string) {
  const p = await openSqlite(path);
  // The `-wal` starts empty, then a reader keeps the purge's checkpoint from emptying it again.
  const reader = new Database(path, { readonly: true });
  reader.pragma('wal_checkpoint(TRUNCATE)');
  reader.prepare('BEGIN').run();
  try {
    const spans = (reader.prepare('SELECT count(*) AS n FROM dbstat WHERE name = ?').get(index) as { n: number }).n;
    await purge(p);
    return { written: pagesByName(path, walPages(path)), spans };
  } finally {
    reader.prepare('COMMIT').run();
    reader.close();
    await p.close();
  }
}

describe('the pages a purge writes', () => {
  it("leaves the turns' unique indexes alone when it tombstones a session's turns in their rows", async () => {
    const path = tmp.file('sessions.db');
    const [purged] = await interleavedSessions(path, 400);
    let turns = 0;
    const { written, spans } = await purgeWrites(
      path,
      async (p) => {
        turns = (await p.purge({ id: purged!, reason: 'test' })).turns.length;
      },
      'sqlite_autoindex_turns_1',
    );
    expect(turns).toBe(400);
    // The id index spans several pages, each holding some of the purged turns: none of them is written.
    expect(spans).toBeGreaterThan(5);
    expect(written.get('turns')).toBeGreaterThan(0);
    expect(written.get('sqlite_autoindex_turns_1')).toBeUndefined();
    expect(written.get('sqlite_autoindex_turns_2')).toBeUndefined();
  });

  it("writes no history index page for a session's turns: their rows record the purge (`purged_seq`)", async () => {
    const path = tmp.file('history.db');
    const [purged] = await interleavedSessions(path, 300, true);
    const { written, spans } = await purgeWrites(path, (p) => p.purge({ id: purged!, reason: 'test' }), 'record_events');
    // The items' index rows span many pages, the purged turns' ids falling between them: the purge writes the
    // session's own row only (a row per turn would land on most of the pages).
    expect(spans).toBeGreaterThan(10);
    expect(written.get('record_events') ?? 0).toBeLessThanOrEqual(2);
  });

  it("leaves the memory items' id index alone when it tombstones a namespace's items in their rows", async () => {
    const path = tmp.file('memory.db');
    const p = provider();
    for (let i = 0; i < 600; i += 1)
      for (const user of ['user:a', 'user:b', 'user:c']) await p.memory.write({ content: `fact ${i} of ${user}`, scope: [user] });
    await importInto(path, p);
    let items = 0;
    const { written, spans } = await purgeWrites(
      path,
      async (p) => {
        items = (await p.purge({ namespace: ['user:a'], reason: 'test' })).memory.length;
      },
      'sqlite_autoindex_memory_1',
    );
    expect(items).toBe(600);
    expect(spans).toBeGreaterThan(5);
    expect(written.get('memory')).toBeGreaterThan(0);
    expect(written.get('sqlite_autoindex_memory_1')).toBeUndefined();
  });
});
