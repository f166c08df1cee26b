/**
 * `verify()` covers the whole file (issue: "verify says ok on a damaged
 * file"): a healthy file passes; a deleted full-text row, a flipped byte in
 * an index page, a vector of a deleted item, a damaged event row and a
 * lying snapshot each fail it, naming the part and the repair; the repair
 * it names works. Each damaged case passed the table-against-log check alone.
 */
import { copyFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../src/index.js';
import type { SqliteProvider } from '../src/index.js';
import { bagOfWordsEmbedder, tempDir } from './helpers.js';
import { flipByte, pages, populate, tamper, tamperVectors, unindexFirst } from './damage.js';

let tmp: ReturnType<typeof tempDir>;
let path: string;
beforeEach(async () => {
  tmp = tempDir();
  path = tmp.file();
  const p = await openSqlite(path, { embedder: bagOfWordsEmbedder() });
  await populate(p);
  // Semantic recall derives the vectors of every live item.
  await p.memory.recall({ query: 'staging region', mode: 'semantic' });
  await p.saveSnapshot();
  await p.close();
});
afterEach(() => tmp.cleanup());

async function verifyFile(options: { quick?: boolean } = {}) {
  const p: SqliteProvider = await openSqlite(path);
  try {
    return await p.verify(options);
  } finally {
    await p.close();
  }
}

async function rebuildFile(): Promise<void> {
  const p = await openSqlite(path);
  try {
    await p.rebuild();
  } finally {
    await p.close();
  }
}

describe('verify', () => {
  it('passes a healthy file, with vectors and a snapshot, in full and quick mode', async () => {
    const report = await verifyFile();
    expect(report).toMatchObject({ ok: true, problems: [], repair: null, integrityCheck: 'full', differences: [], storedSnapshot: { matches: true } });
    expect(Object.values(report.pendingVectors)).toEqual([0]);
    expect(Object.values(report.pendingTurnVectors)).toEqual([0]);
    expect((await verifyFile({ quick: true })).ok).toBe(true);
  });

  it('fails on a deleted full-text row, names the FTS index and rebuild repairs it', async () => {
    unindexFirst(path, 'memory');
    const report = await verifyFile();
    expect(report.ok).toBe(false);
    expect(report.differences).toEqual([]);
    expect(report.problems).toEqual([
      { part: 'fts', object: 'memory_fts', message: expect.stringMatching(/^memory_fts: 1 live rows are not indexed/), repair: 'rebuild' },
    ]);
    expect(report.repair).toBe('rebuild');
    await rebuildFile();
    expect((await verifyFile()).ok).toBe(true);
  });

  it('fails on a changed metadata leaf, which filtered recall reads, and rebuild repairs it', async () => {
    const p = await openSqlite(path);
    const item = await p.memory.write({ content: 'tagged fact', metadata: { tag: 'x', n: 2, nested: { on: true } } });
    await p.memory.update(item.id, { metadata: { tag: 'y', n: 2, nested: { on: true } } });
    await p.close();
    expect((await verifyFile()).ok).toBe(true);
    tamper(path, `UPDATE memory_meta SET value = 3 WHERE path = '["n"]'`);
    const report = await verifyFile();
    expect(report.problems).toEqual([
      { part: 'tables', object: 'memory_meta', message: expect.stringMatching(/^memory_meta lacks 1 metadata leaves/), repair: 'rebuild' },
      { part: 'tables', object: 'memory_meta', message: expect.stringMatching(/^memory_meta holds 1 leaves no live item has/), repair: 'rebuild' },
    ]);
    await rebuildFile();
    expect((await verifyFile()).ok).toBe(true);
  });

  it('fails on a changed checkpoint or pending write, names the table and rebuild repairs it', async () => {
    const p = await openSqlite(path);
    await p.checkpoints.put({ threadId: 't', checkpointId: '01', checkpoint: { step: 1 } });
    await p.checkpoints.putWrites({ threadId: 't', checkpointId: '01', taskId: 'k', writes: [{ idx: 0, channel: 'c', value: 'v' }] });
    await p.close();
    expect((await verifyFile()).ok).toBe(true);
    // The row points at its event for the record; a row holding a record of another value instead differs from the log.
    tamper(
      path,
      `UPDATE checkpoints SET record = (SELECT json_set(json_extract(payload, '$.checkpoint'), '$.checkpoint', json('{"step":2}')) FROM events WHERE seq = event_seq), event_seq = NULL`,
    );
    tamper(path, 'DELETE FROM checkpoint_writes');
    const report = await verifyFile();
    expect(report.ok).toBe(false);
    expect(report.differences).toEqual([
      'checkpoints: 1 differ from the log (["t","","01"])',
      'checkpoint writes: 1 in the log but not in the tables (["t","","01"]#k#0)',
    ]);
    await rebuildFile();
    expect((await verifyFile()).ok).toBe(true);
    const reopened = await openSqlite(path);
    expect((await reopened.checkpoints.get({ threadId: 't' }))?.checkpoint.checkpoint).toEqual({ step: 1 });
    await reopened.close();
  });

  it('fails on full-text rows that index the wrong words', async () => {
    unindexFirst(path, 'skills');
    tamper(path, "INSERT INTO skills_fts (rowid, text) VALUES ((SELECT min(n) FROM skills WHERE deleted = 0), 'nothing like it')");
    const report = await verifyFile();
    expect(new Set(report.problems.map((p) => `${p.part} ${p.object} ${p.repair}`))).toEqual(new Set(['fts skills_fts rebuild']));
    expect(report.problems[0]!.message).toMatch(/indexed words of 1 rows differ/);
  });

  it('fails on a flipped byte in an index page, names the index and rebuild repairs it', async () => {
    const { pages: all, pageSize } = pages(path);
    const leaf = all.find((p) => p.name === 'memory_live_recent' && p.pagetype === 'leaf')!;
    flipByte(path, leaf.pageno * pageSize - 20);
    const report = await verifyFile();
    expect(report.ok).toBe(false);
    expect(report.problems).toContainEqual(
      expect.objectContaining({ part: 'tables', object: 'memory', message: expect.stringContaining('memory_live_recent'), repair: 'rebuild' }),
    );
    expect(report.repair).toBe('rebuild');
    await rebuildFile();
    expect((await verifyFile()).ok).toBe(true);
  });

  it('fails on a vector left behind for a deleted item', async () => {
    tamper(path, 'INSERT INTO memory_vectors (index_no, item_n) SELECT 1, n FROM memory WHERE deleted = 1 LIMIT 1');
    const report = await verifyFile();
    expect(report.problems).toEqual([expect.objectContaining({ part: 'vectors', object: 'memory_vec_1', repair: 'rebuild' })]);
    expect(report.problems[0]!.message).toMatch(/listed as having a vector that is missing/);
  });

  it('fails on a vector put back for a removed turn and for a turn of a deleted session, and rebuild repairs it', async () => {
    const p = await openSqlite(path, { embedder: bagOfWordsEmbedder() });
    const [session] = await p.sessions.list();
    const removed = await p.sessions.removeLastTurn(session!.id);
    const other = await p.sessions.create({ title: 'short-lived' });
    await p.sessions.appendTurn({ sessionId: other.id, role: 'user', content: 'the staging deploy is green' });
    await p.sessions.delete(other.id);
    await p.close();
    expect((await verifyFile()).ok).toBe(true);
    tamperVectors(path, (db) => {
      const { embedding } = db.prepare('SELECT embedding FROM turn_vec_1 LIMIT 1').get() as { embedding: Buffer };
      const dead = db.prepare('SELECT n, session_id, role FROM turns WHERE id = ? OR session_id = ?').all(removed.id, other.id) as {
        n: number;
        session_id: string;
        role: string;
      }[];
      expect(dead).toHaveLength(2);
      for (const t of dead) {
        db.prepare('INSERT INTO turn_vec_1 (rowid, embedding, session_id, role) VALUES (?, ?, ?, ?)').run(BigInt(t.n), embedding, t.session_id, t.role);
        db.prepare('INSERT INTO turn_vectors (index_no, turn_n) VALUES (1, ?)').run(t.n);
      }
    });
    const report = await verifyFile();
    expect(report.problems).toEqual([
      { part: 'vectors', object: 'turn_vec_1', message: expect.stringMatching(/^turn_vec_1 \(.*\): 2 vectors belong to no live turn/), repair: 'rebuild' },
    ]);
    expect(report.repair).toBe('rebuild');
    await rebuildFile();
    expect((await verifyFile()).ok).toBe(true);
  });

  it('fails on a turn vector that differs from the embedding of its content, and on one with the wrong role', async () => {
    tamperVectors(path, (db) => {
      const [first, second] = db.prepare('SELECT rowid AS n, embedding FROM turn_vec_1 ORDER BY rowid LIMIT 2').all() as { n: number; embedding: Buffer }[];
      const flipped = new Float32Array(new Uint8Array(first!.embedding).buffer).map((x) => -x);
      db.prepare('DELETE FROM turn_vec_1 WHERE rowid = ?').run(BigInt(first!.n));
      const row = db.prepare('SELECT session_id, role FROM turns WHERE n = ?').get(first!.n) as { session_id: string; role: string };
      db.prepare('INSERT INTO turn_vec_1 (rowid, embedding, session_id, role) VALUES (?, ?, ?, ?)').run(BigInt(first!.n), flipped, row.session_id, row.role);
      db.prepare("UPDATE turn_vec_1 SET role = 'system' WHERE rowid = ?").run(BigInt(second!.n));
    });
    const report = await verifyFile();
    expect(report.problems.map((p) => [p.part, p.object, p.repair])).toEqual([
      ['vectors', 'turn_vec_1', 'rebuild'],
      ['vectors', 'turn_vec_1', 'rebuild'],
    ]);
    expect(report.problems[0]!.message).toMatch(/1 vectors carry the wrong session or role/);
    expect(report.problems[1]!.message).toMatch(/1 vectors differ from the embedding of their turn's content/);
    await rebuildFile();
    expect((await verifyFile()).ok).toBe(true);
  });

  it('fails on a damaged event row and says only a backup holds the log', async () => {
    tamper(path, "UPDATE events SET payload = replace(payload, 'staging', 'stagxng') WHERE stream = 'state' AND seq = 4");
    const report = await verifyFile();
    expect(report.problems).toEqual([expect.objectContaining({ part: 'log', repair: 'restore-backup', message: expect.stringContaining('state#4') })]);
    expect(report.repair).toBe('restore-backup');
  });

  it("fails on a changed time or actor of an event, which the fold never reads but the log's readers do", async () => {
    for (const [column, value] of [
      ['time', '2001-01-01T00:00:00.000Z'],
      ['actor', 'someone else'],
      ['trace_id', 'trace-1'],
    ] as const) {
      const copy = tmp.file(`envelope-${column}.db`);
      copyFileSync(path, copy);
      tamper(copy, `UPDATE events SET ${column} = ? WHERE stream = 'state' AND seq = 4`, value);
      const db = await openSqlite(copy, { readonly: true });
      try {
        const report = await db.verify();
        expect(report.ok, column).toBe(false);
        expect(report.problems, column).toContainEqual(
          expect.objectContaining({ part: 'log', message: expect.stringContaining('does not match its checksum') }),
        );
        await expect(db.log.read({ stream: 'state' }), column).rejects.toMatchObject({ code: 'corruption' });
      } finally {
        await db.close();
      }
    }
  });

  it('fails on a stored snapshot that differs from the log, even when the tables are right', async () => {
    // The text is in the snapshot's parts (the rows of the streams `state#<part>`).
    tamper(path, "UPDATE snapshots SET data = replace(data, 'region 1', 'region 9') WHERE stream LIKE 'state%'");
    const report = await verifyFile();
    expect(report.problems).toEqual([expect.objectContaining({ part: 'snapshots', repair: 'export-import' })]);
  });

  it('fails on a projection that claims a smaller clock than its records', async () => {
    tamper(path, 'UPDATE projection_state SET hlc_wall = 0, hlc_counter = 0');
    const report = await verifyFile();
    expect(report.problems).toEqual([expect.objectContaining({ part: 'tables', object: 'projection_state', repair: 'rebuild' })]);
    await rebuildFile();
    expect((await verifyFile()).ok).toBe(true);
  });
});
