/**
 * The leaner layout of issue 16: the turns' full-text index has no prefix
 * indexes and a row whose last writer is its origin does not repeat the
 * origin's id. Searches find the same turns, records read back the same,
 * and the index costs fewer bytes per turn.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../src/index.js';
import { tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const WORDS = ['deploy', 'rollback', 'incident', 'database', 'timeout', 'budget', 'cluster', 'api', 'git', 'de'];
const text = (i: number) => Array.from({ length: 12 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' ');

function schemaSql(path: string, name: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT sql FROM sqlite_schema WHERE name = ?').get(name) as { sql: string }).sql;
  } finally {
    db.close();
  }
}

describe('the lean turn layout', () => {
  it('indexes turns without prefix indexes, and short prefixes still find them', async () => {
    const path = tmp.file();
    const p = await openSqlite(path, { synchronous: 'normal' });
    const s = await p.sessions.create({ title: 'lean' });
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'Deploy is failing on staging' });
    await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', content: 'Rolling back the database' });
    expect((await p.sessions.search({ query: 'd' })).map((h) => h.turn.seq)).toEqual([2, 1]);
    for (const query of ['de', 'dep', 'depl', 'deploy'])
      expect(
        (await p.sessions.search({ query })).map((h) => h.turn.seq),
        query,
      ).toEqual([1]);
    expect((await p.sessions.search({ query: 'ro' })).map((h) => h.turn.seq)).toEqual([2]);
    expect((await p.sessions.search({ query: 'roll', order: 'relevance' })).map((h) => h.turn.seq)).toEqual([2]);
    await p.close();
    expect(schemaSql(path, 'turns_fts')).not.toMatch(/prefix/);
    expect(schemaSql(path, 'memory_fts')).toMatch(/prefix = '1 2 3 4'/);
  });

  it("stores '' for a last writer that is the origin, and reads the id back", async () => {
    const path = tmp.file();
    const p = await openSqlite(path, { synchronous: 'normal', instanceId: 'instance-a' });
    const s = await p.sessions.create({ title: 'writer' });
    const turn = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hello' });
    const item = await p.memory.write({ kind: 'fact', content: 'kept' });
    await p.close();
    // Another instance updates the session: its row names that writer.
    const q = await openSqlite(path, { synchronous: 'normal', instanceId: 'instance-b' });
    await q.sessions.appendTurn({ sessionId: s.id, role: 'assistant', content: 'hi' });
    expect((await q.sessions.turns(s.id))[0]).toEqual(turn);
    expect(await q.memory.get(item.id)).toEqual(item);
    expect((await q.sessions.get(s.id)).lastWriterId).toBe('instance-b');
    expect((await q.sessions.turns(s.id)).map((t) => t.lastWriterId)).toEqual(['instance-a', 'instance-b']);
    expect((await q.verify()).ok).toBe(true);
    await q.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT last_writer_id FROM turns ORDER BY seq').all()).toEqual([{ last_writer_id: '' }, { last_writer_id: '' }]);
    expect(db.prepare('SELECT last_writer_id FROM memory').all()).toEqual([{ last_writer_id: '' }]);
    expect(db.prepare('SELECT last_writer_id FROM sessions').all()).toEqual([{ last_writer_id: 'instance-b' }]);
    db.close();
  });

  it('lists the newest turns across sessions in (createdAt, id) order through ties, page by page', async () => {
    const p = await openSqlite(tmp.file(), { synchronous: 'normal' });
    const a = await p.sessions.create({ title: 'a' });
    const b = await p.sessions.create({ title: 'b' });
    const at = '2026-03-01T10:00:00.000Z';
    // Explicit ids out of id order, most of them in one millisecond, in two sessions.
    const ids = Array.from({ length: 25 }, (_, i) => `turn-${String((i * 7) % 25).padStart(2, '0')}`);
    await p.sessions.appendTurns(
      a.id,
      ids.slice(0, 15).map((id) => ({ id, role: 'user' as const, content: 'x', createdAt: at })),
    );
    await p.sessions.appendTurns(
      b.id,
      ids.slice(15).map((id, i) => ({ id, role: 'user' as const, content: 'x', createdAt: i < 5 ? at : '2026-03-01T10:00:00.001Z' })),
    );
    const want = [...ids.slice(20)]
      .sort()
      .reverse()
      .concat([...ids.slice(0, 20)].sort().reverse());
    const got: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await p.sessions.search({ limit: 4, ...(cursor ? { cursor } : {}) });
      got.push(...page.map((h) => h.turn.id));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(got).toEqual(want);
    await p.close();
  });

  it('keeps the turn index under 110 bytes a turn (it was about 230 with prefix indexes)', async () => {
    const path = tmp.file();
    const p = await openSqlite(path, { synchronous: 'off' });
    const s = await p.sessions.create({ title: 'bytes' });
    const turns = 1_000;
    for (let i = 0; i < turns; i += 100)
      await p.sessions.appendTurns(
        s.id,
        Array.from({ length: 100 }, (_, j) => ({ role: 'user' as const, content: `${text(i + j)} w${i + j}` })),
      );
    await p.close();
    const db = new Database(path);
    db.exec('VACUUM');
    const { bytes } = db.prepare("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'turns_fts%'").get() as { bytes: number };
    db.close();
    expect(bytes / turns).toBeLessThan(110);
  });
});
