/**
 * A file of the last migrated schema keeps working: `fixtures/schema13`
 * holds a database file (gzipped) written by the library at schema 13 (the
 * thirteenth migration: sessions and turns, skills with outcomes, memory
 * with keys and metadata, a checkpoint with writes, a stored snapshot, a
 * purge after it), with what that version read back from it (`reads.json`).
 * Today's code opens it, folds its tables again from the log in one step,
 * reading the same (its tombstones given the clock of their turn's append),
 * and verifies it.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DERIVED_VERSION, openSqlite } from '../src/index.js';
import type { SqliteProvider } from '../src/index.js';
import { schema13File, tempDir } from './helpers.js';
import { givenAppendClocks } from '../../../tools/append-clocks.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/schema13/', import.meta.url));
const expected = JSON.parse(readFileSync(`${FIXTURES}reads.json`, 'utf8'));

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

/** The reads the fixture recorded, made again by today's code. */
async function reads(p: SqliteProvider) {
  const sessions = await p.sessions.list();
  const ids = sessions.map((s) => s.id);
  return {
    sessions,
    turns: Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await p.sessions.turns(id)]))),
    sessionHistory: Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await p.history(id)]))),
    search: await p.sessions.search({ query: 'key' }),
    skills: await p.skills.search('', { order: 'slug' }),
    skillHistory: await p.history((await p.skills.get('fix-esm', { scope: ['project:web'] })).id),
    memory: await p.memory.recall({ limit: 100 }),
    memoryWeb: await p.memory.recall({ scope: ['project:web'], includeParentScopes: true, limit: 100 }),
    byKey: await p.memory.getByKey('deploy-key', { scope: ['project:web'] }),
    where: await p.memory.recall({ where: { priority: { $gte: 2 } }, limit: 100 }),
    recallDeploy: await p.memory.recall({ query: 'deploy key' }),
    memoryHistory: await p.history(expected.byKey.id),
    checkpoint: await p.checkpoints.get({ threadId: 'thread-1' }),
    checkpoints: await p.checkpoints.list({ threadId: 'thread-1' }),
    snapshot: await p.snapshot(),
    head: await p.log.head('state'),
  };
}

describe('a file written at schema 13', () => {
  it('opens, folds its tables again from the log, reads the same and verifies', async () => {
    const path = schema13File(tmp.file());
    const progress: [number, number][] = [];
    const p = await openSqlite(path, { onProgress: (done, total) => progress.push([done, total]) });
    try {
      // Told as the refold starts (it refills the history index first), then after each batch.
      expect(progress).toEqual([
        [0, expected.head],
        [expected.head, expected.head],
      ]);
      // What that version read, but that today's fold gives each tombstone the clock of its turn's append.
      const payloads = (await p.log.read({ stream: 'state' })).map((event) => event.payload);
      expected.snapshot = givenAppendClocks(expected.snapshot, payloads);
      expect(JSON.parse(JSON.stringify(await reads(p)))).toEqual(expected);
      expect((await p.verify()).ok).toBe(true);
    } finally {
      await p.close();
    }
    const db = new Database(path, { readonly: true });
    const tables = (db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('agentstate_migrations', 'history_runs')`).all() as unknown[])
      .length;
    const derived = (db.prepare(`SELECT value FROM store_meta WHERE key = 'derived_version'`).get() as { value: string }).value;
    db.close();
    expect(tables).toBe(0);
    expect(derived).toBe(String(DERIVED_VERSION));
    // Folded once: the next open finds the file current.
    progress.length = 0;
    const again = await openSqlite(path, { onProgress: (done, total) => progress.push([done, total]) });
    expect(JSON.parse(JSON.stringify(await reads(again)))).toEqual(expected);
    await again.close();
    expect(progress).toEqual([]);
  });
});
