/**
 * Sync on real files (docs/contract.md §12): an old file upgrades its log in place and syncs; a purge
 * that travels leaves none of the text in the receiver's file; records changed in both files merge, and
 * the merge survives verify and an import; an export keeps each received event's origin through an import.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeSnapshot, exportLog, type Snapshot, STATE_STREAM, sync } from '@agentstate/core';
import { importSqlite, openSqlite } from '../src/index.js';
import { schema13File, tempDir } from './helpers.js';

const V1 = fileURLToPath(new URL('./fixtures/v1/', import.meta.url));

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

/** The read model without local seqs, which differ between replicas. */
const replicaText = (snapshot: Snapshot) =>
  encodeSnapshot({ ...snapshot, seq: 0, operations: snapshot.operations.map((operation) => ({ ...operation, seq: 0 })) });

describe('sync between SQLite files', () => {
  for (const [name, make] of [
    ['v0.1', (path: string) => writeFileSync(path, gunzipSync(readFileSync(`${V1}state.db.gz`)))],
    ['schema 13', (path: string) => schema13File(path)],
  ] as const)
    it(`opens a file of ${name}, adds the origin columns to its log in place, and syncs it with a new file both ways`, async () => {
      const oldPath = tmp.file('old.db');
      make(oldPath);
      const old = await openSqlite(oldPath);
      const fresh = await openSqlite(tmp.file('new.db'));
      try {
        const columns = (new Database(oldPath, { readonly: true }).pragma('table_info(events)') as { name: string }[]).map((c) => c.name);
        expect(columns.slice(-3)).toEqual(['origin', 'origin_seq', 'origin_time']);
        const head = await old.log.head(STATE_STREAM);
        await fresh.memory.write({ content: 'written on the new file' });
        expect(await sync(old, fresh)).toEqual({ toA: 1, toB: head, merged: 0, batches: 2 });
        expect(replicaText(await old.snapshot())).toBe(replicaText(await fresh.snapshot()));
        for (const p of [old, fresh]) expect((await p.verify()).ok).toBe(true);
      } finally {
        await old.close();
        await fresh.close();
      }
    });

  it('upgrades a log of version 1 whose tables are current in place, without folding them again, and refuses to open it read-only', async () => {
    const path = tmp.file();
    const p = await openSqlite(path);
    await p.memory.write({ content: 'kept as it was' });
    await p.close();
    const db = new Database(path);
    db.exec(`DROP INDEX events_origin; ALTER TABLE events DROP COLUMN origin; ALTER TABLE events DROP COLUMN origin_seq; ALTER TABLE events DROP COLUMN origin_time;
      UPDATE store_meta SET value = '1' WHERE key = 'log_version';`);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    await expect(openSqlite(path, { readonly: true })).rejects.toMatchObject({ reason: 'needs-migration', message: expect.stringContaining('log version 1') });
    const folded: number[] = [];
    const upgraded = await openSqlite(path, { onProgress: (done) => folded.push(done) });
    try {
      expect(folded).toEqual([]);
      expect((await upgraded.memory.recall({ query: 'kept' }))[0]?.content).toBe('kept as it was');
      expect(Object.values(await upgraded.vector())).toEqual([1]);
      expect((await upgraded.verify()).ok).toBe(true);
    } finally {
      await upgraded.close();
    }
  });

  it('leaves none of a purged text in the bytes of the receiving file once the purge has travelled', async () => {
    const a = await openSqlite(tmp.file('a.db'));
    const bDir = join(tmp.dir, 'b');
    mkdirSync(bDir);
    const b = await openSqlite(join(bDir, 'b.db'));
    try {
      await a.memory.write({ content: 'the alarm code is zebra-7731' });
      const session = await a.sessions.create({ title: 'alarm' });
      await a.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'remember zebra-7731 for the alarm' });
      await sync(a, b);
      await a.purge({ matching: 'zebra-7731', reason: 'request of the owner' });
      await sync(a, b);
      await b.sessions.create({ title: 'a later write' });
      expect((await b.verify()).ok).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
    for (const file of readdirSync(bDir)) expect(readFileSync(join(bDir, file)).includes('zebra-7731'), file).toBe(false);
  });

  it('merges records changed in both files apart: verify passes, an import of the export reads the same, and a purged text is in neither file', async () => {
    const aDir = join(tmp.dir, 'a');
    const bDir = join(tmp.dir, 'b');
    for (const dir of [aDir, bDir]) mkdirSync(dir);
    const a = await openSqlite(join(aDir, 'a.db'));
    const b = await openSqlite(join(bDir, 'b.db'));
    const lines: string[] = [];
    let merged: Snapshot;
    try {
      const shared = await a.memory.write({ content: 'shared fact' });
      const secret = await a.memory.write({ content: 'the safe code is walrus-5521' });
      await sync(a, b);
      await a.memory.update(shared.id, { content: 'changed on a' });
      await b.memory.update(shared.id, { content: 'changed on b' });
      await b.memory.update(secret.id, { content: 'the safe code is still walrus-5521' });
      await a.purge({ id: secret.id, reason: 'request of the owner' });
      await sync(a, b);
      for (const p of [a, b]) expect((await p.verify()).ok).toBe(true);
      merged = await b.snapshot();
      expect(replicaText(await a.snapshot())).toBe(replicaText(merged));
      await exportLog(b.log, (chunk) => void lines.push(...chunk.split('\n').filter(Boolean)));
    } finally {
      await a.close();
      await b.close();
    }
    for (const dir of [aDir, bDir]) for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file)).includes('walrus-5521'), file).toBe(false);
    const copy = tmp.file('copy.db');
    await importSqlite(copy, lines);
    const imported = await openSqlite(copy);
    try {
      expect(encodeSnapshot(await imported.snapshot())).toBe(encodeSnapshot(merged));
    } finally {
      await imported.close();
    }
  });

  it('keeps the origin of received events through an export and an import', async () => {
    const a = await openSqlite(tmp.file('a.db'));
    const b = await openSqlite(tmp.file('b.db'));
    await a.memory.write({ content: 'from a' });
    await b.memory.write({ content: 'from b' });
    await sync(a, b);
    const lines: string[] = [];
    await exportLog(b.log, (chunk) => void lines.push(...chunk.split('\n').filter(Boolean)));
    const received = (await b.log.read({ stream: STATE_STREAM })).filter((event) => event.origin !== undefined);
    await a.close();
    await b.close();
    const copy = tmp.file('copy.db');
    await importSqlite(copy, lines);
    const imported = await openSqlite(copy);
    try {
      expect((await imported.log.read({ stream: STATE_STREAM })).filter((event) => event.origin !== undefined)).toEqual(received);
      expect(Object.keys(await imported.vector())).toContain(received[0]!.origin);
    } finally {
      await imported.close();
    }
  });

  it('writes the full-text rows of a received batch in row order, each net change once, and a purge in it still erases', async () => {
    const a = await openSqlite(tmp.file('a.db'));
    const bPath = tmp.file('b.db');
    const b = await openSqlite(bPath);
    const segments = () => {
      const db = new Database(bPath, { readonly: true });
      try {
        return (db.prepare('SELECT count(DISTINCT segid) AS n FROM memory_fts_idx').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    try {
      const items = [];
      for (let i = 0; i < 40; i += 1) items.push(await a.memory.write({ content: `note ${i} about builds`, key: `k${i}` }));
      const secret = await a.memory.write({ content: 'Quillofax keeps the vault' });
      await sync(b, a);
      const before = segments();
      // One batch: every item updated twice, newest row first, some deleted after, the secret updated.
      for (const round of [1, 2])
        for (const item of [...items].reverse()) await a.memory.update(item.id, { content: `note ${item.key} revised ${round} about deploys` });
      for (const item of items.slice(0, 5)) await a.memory.delete(item.id);
      await a.memory.update(secret.id, { content: 'Quillofax moved the vault' });
      expect((await sync(b, a)).batches).toBe(1);
      // FTS5 writes a segment for each row that comes before the last one it was given: this batch wrote one.
      expect(segments() - before).toBeLessThanOrEqual(1);
      // The purge's own delete of the text is held back too: its merge of the index comes after it.
      await a.purge({ id: secret.id, reason: 'erasure' });
      await sync(b, a);
      expect((await b.verify()).problems).toEqual([]);
      for (const query of ['revised', 'builds', 'deploys', 'quillofax'])
        expect((await b.memory.recall({ query, mode: 'lexical', limit: 100 })).map((hit) => hit.id).sort(), query).toEqual(
          (await a.memory.recall({ query, mode: 'lexical', limit: 100 })).map((hit) => hit.id).sort(),
        );
    } finally {
      await a.close();
      await b.close();
    }
    for (const file of readdirSync(tmp.dir).filter((name) => name.startsWith('b.db')))
      expect(readFileSync(join(tmp.dir, file)).includes('quillofax'), file).toBe(false);
  });
});
