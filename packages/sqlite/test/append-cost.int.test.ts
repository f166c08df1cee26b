/**
 * What one `appendTurn` costs the database: the statements it runs. The
 * transaction answers from what it already read (the projection's seq and the
 * log head in one statement, a session with its highest turn seq in another),
 * the session moves by one `UPDATE` in place, and a new turn is inserted
 * without looking for its slot.
 */
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { Turn } from '@agentstate/core';
import { openSqlite } from '../src/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
afterAll(() => dir.cleanup());

/** Runs `fn` counting every statement execution of every connection of this process. */
async function countStatements(fn: () => Promise<unknown>): Promise<string[]> {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  const seen: string[] = [];
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = proto[method]!;
    originals.set(method, original);
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      seen.push(this.source.replace(/\s+/g, ' ').split(' ').slice(0, 3).join(' '));
      return original.apply(this, args);
    };
  }
  try {
    await fn();
  } finally {
    for (const [method, original] of originals) proto[method] = original;
  }
  return seen;
}

describe('one appendTurn', () => {
  it('runs nine statements: BEGIN, two look-ups, five writes (no history index row: the turn row holds its append), COMMIT', async () => {
    const p = await openSqlite(dir.file('count.db'), { durability: 'process-crash' });
    try {
      const session = await p.sessions.create({ title: 't' });
      await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'warm the statement cache' });
      let turn: Turn | undefined;
      const statements = await countStatements(async () => {
        turn = await p.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: 'counted' });
      });
      expect(statements).toEqual([
        'BEGIN IMMEDIATE',
        'SELECT seq, hlc_wall,',
        'SELECT s.*, (SELECT',
        'INSERT INTO events',
        'UPDATE sessions SET',
        'INSERT INTO turns',
        'INSERT INTO turns_fts',
        'UPDATE projection_state SET',
        'COMMIT',
      ]);
      // The history of the turn and its session still names the append.
      expect((await p.history(turn!.id)).map((v) => v.seq)).toEqual([3]);
      expect((await p.history(session.id)).map((v) => v.seq)).toEqual([1, 2, 3]);
      // The session moved in place exactly as a fold derives it, and a rebuild's history index answers the same.
      const before = await p.snapshot();
      const history = await p.history(session.id);
      await p.rebuild({ fromScratch: true });
      expect(await p.snapshot()).toEqual(before);
      expect(await p.history(session.id)).toEqual(history);
      expect((await p.verify()).ok).toBe(true);
    } finally {
      await p.close();
    }
  });

  it('writes a new memory item without looking for its slot, and its recall order in one statement', async () => {
    const p = await openSqlite(dir.file('memory-count.db'), { durability: 'process-crash' });
    try {
      await p.memory.write({ content: 'warm the statement cache' });
      const statements = await countStatements(() => p.memory.write({ content: 'counted' }));
      expect(statements).toEqual([
        'BEGIN IMMEDIATE',
        'SELECT seq, hlc_wall,',
        'INSERT INTO events',
        'INSERT INTO memory',
        'UPDATE memory_order SET',
        'INSERT INTO memory_fts',
        'INSERT OR IGNORE',
        'UPDATE projection_state SET',
        'COMMIT',
      ]);
      const before = await p.snapshot();
      await p.rebuild({ fromScratch: true });
      expect(await p.snapshot()).toEqual(before);
    } finally {
      await p.close();
    }
  });

  it("stores a plain turn's parts once, in its content, and reads them back exactly", async () => {
    const file = dir.file('parts.db');
    const p = await openSqlite(file);
    try {
      const session = await p.sessions.create({ title: 't' });
      const plain = await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'just text' });
      const empty = await p.sessions.appendTurn({ sessionId: session.id, role: 'tool', content: '' });
      const rich = await p.sessions.appendTurn({
        sessionId: session.id,
        role: 'assistant',
        parts: [
          { type: 'text', text: 'calling' },
          { type: 'tool-call', callId: 'c1', toolName: 'search', input: { q: 'x' } },
        ],
      });
      const db = new Database(file, { readonly: true });
      const stored = db.prepare('SELECT parts FROM turns ORDER BY seq').all() as { parts: string }[];
      db.close();
      expect(stored.map((r) => r.parts)).toEqual(['', '', JSON.stringify(rich.parts)]);
      expect([...(await p.sessions.turns(session.id))]).toEqual([plain, empty, rich]);
    } finally {
      await p.close();
    }
  });
});
