/**
 * The write path: its bookkeeping, written in SQL so that it agrees with the
 * order SQLite itself reads rows in, and the work that follows a batch write.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../src/index.js';
import { bagOfWordsEmbedder, deterministic, tempDir } from './helpers.js';

describe('memory recall order', () => {
  it('is tracked in the byte order SQLite sorts ids by, not in JavaScript string order', async () => {
    // Same createdAt; U+1F600 sorts before U+FF61 in UTF-16 code units but after it in UTF-8 bytes.
    const state = await openSqlite(':memory:', deterministic());
    await state.memory.write({ id: 'm\u{1F600}', content: 'alpha' });
    await state.memory.write({ id: 'm\u{FF61}', content: 'alpha' });
    const report = await state.verify();
    expect(report.problems).toEqual([]);
    const ids = (await state.memory.recall({ query: 'alpha' })).map((hit) => hit.id);
    expect(ids).toEqual(['m\u{1F600}', 'm\u{FF61}']);
    await state.close();
  });
});

describe('a batch write with an embedder', () => {
  it('embeds the whole batch in one call of the embedder, not one per record', async () => {
    const embedder = bagOfWordsEmbedder();
    const state = await openSqlite(':memory:', { ...deterministic(), embedder });
    const session = await state.sessions.create({});
    await state.sessions.appendTurns(
      session.id,
      Array.from({ length: 10 }, (_, i) => ({ role: 'user' as const, content: `turn number ${i}` })),
    );
    expect(embedder.calls).toBe(1);
    const items = await state.memory.writeMany(Array.from({ length: 10 }, (_, i) => ({ content: `item number ${i}`, key: `k${i % 5}` })));
    expect(embedder.calls).toBe(2);
    // The later write of a key replaced the earlier one: every live item has its vector, none is pending.
    expect(new Set(items.map((item) => item.id)).size).toBe(5);
    expect((await state.verify()).problems).toEqual([]);
    expect((await state.memory.recall({ query: 'item number 7', mode: 'semantic' })).map((hit) => hit.content)).toContain('item number 7');
    await state.close();
  });
});

describe('automatic snapshots and a batch write', () => {
  it('saves a snapshot of the whole batch when its events pass a multiple of k', async () => {
    const dir = tempDir();
    try {
      const state = await openSqlite(dir.file(), { ...deterministic(), snapshotEvery: 2 });
      await state.memory.writeMany(Array.from({ length: 5 }, (_, i) => ({ content: `item ${i}` })));
      await state.close();
      const db = new Database(dir.file(), { readonly: true });
      const seqs = (db.prepare("SELECT seq FROM snapshots WHERE stream = 'state' ORDER BY seq").all() as { seq: number }[]).map((row) => row.seq);
      db.close();
      expect(seqs).toEqual([5]);
    } finally {
      dir.cleanup();
    }
  });
});
