/**
 * A checkpoint is stored once: the row a commit or a
 * fold writes keeps its key and points at the `checkpoint.saved` event that
 * holds the record (`event_seq`) instead of copying it, and every read takes
 * it from there; a row restored from a snapshot holds its record. Reads,
 * verify and rebuild (from the log and from a snapshot) give the same
 * checkpoints either way.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../src/index.js';
import { tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let path: string;
beforeEach(() => {
  tmp = tempDir();
  path = tmp.file();
});
afterEach(() => tmp.cleanup());

interface StoredRow {
  checkpoint_id: string;
  /** The value of the record the row holds, if it holds one. */
  checkpoint: unknown;
  event_seq: number | null;
}

/** The checkpoint rows as stored, and the type of the event each points at. */
function storedRows(): Array<StoredRow & { type: string | null }> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT c.checkpoint_id, c.record, c.event_seq, e.type FROM checkpoints c
         LEFT JOIN events e ON e.stream = 'state' AND e.seq = c.event_seq ORDER BY c.checkpoint_id`,
      )
      .all() as Array<{ checkpoint_id: string; record: string | null; event_seq: number | null; type: string | null }>;
    return rows.map(({ record, ...row }) => ({ ...row, checkpoint: record === null ? null : (JSON.parse(record) as { checkpoint: unknown }).checkpoint }));
  } finally {
    db.close();
  }
}

const big = (step: number) => ({ step, messages: Array.from({ length: 40 }, (_, i) => `message ${i} of step ${step}`) });

describe('checkpoint values stored once', () => {
  it('a put writes the value in its event only, the row points there, and a re-save points at the newer event', async () => {
    const p = await openSqlite(path);
    await p.checkpoints.put({ threadId: 't', checkpointId: '01', checkpoint: big(1), metadata: { step: 1 } });
    await p.checkpoints.put({ threadId: 't', checkpointId: '02', parentCheckpointId: '01', checkpoint: big(2) });
    await p.checkpoints.put({ threadId: 't', checkpointId: '01', checkpoint: big(3) });
    expect(storedRows()).toEqual([
      { checkpoint_id: '01', checkpoint: null, event_seq: 3, type: 'checkpoint.saved' },
      { checkpoint_id: '02', checkpoint: null, event_seq: 2, type: 'checkpoint.saved' },
    ]);
    expect((await p.checkpoints.get({ threadId: 't', checkpointId: '01' }))?.checkpoint).toMatchObject({ checkpoint: big(3), metadata: {}, syncVersion: 2 });
    expect((await p.checkpoints.get({ threadId: 't' }))?.checkpoint.checkpoint).toEqual(big(2));
    expect((await p.checkpoints.list({ threadId: 't' })).map((t) => t.checkpoint.checkpoint)).toEqual([big(2), big(3)]);
    expect((await p.verify()).ok).toBe(true);
    await p.close();
  });

  it('a rebuild from the log points at the events again; one from a snapshot holds the values; both read the same', async () => {
    const p = await openSqlite(path);
    await p.checkpoints.put({ threadId: 't', checkpointId: '01', checkpoint: big(1) });
    await p.checkpoints.put({ threadId: 'u', namespace: 'sub', checkpointId: '02', checkpoint: big(2), metadata: { source: 'loop' } });
    const before = await p.checkpoints.list();
    await p.saveSnapshot();
    await p.checkpoints.put({ threadId: 't', checkpointId: '03', checkpoint: big(3) });
    const all = await p.checkpoints.list();

    await p.rebuild({ fromScratch: true });
    expect(storedRows().map((r) => [r.checkpoint_id, r.checkpoint, r.event_seq])).toEqual([
      ['01', null, 1],
      ['02', null, 2],
      ['03', null, 3],
    ]);
    expect(await p.checkpoints.list()).toEqual(all);

    const rebuilt = await p.rebuild();
    expect(rebuilt.snapshotSeq).toBe(2);
    // The snapshot's records hold their values; the event folded after it is pointed at.
    expect(storedRows().map((r) => [r.checkpoint_id, r.checkpoint, r.event_seq])).toEqual([
      ['01', big(1), null],
      ['02', big(2), null],
      ['03', null, 3],
    ]);
    expect(await p.checkpoints.list()).toEqual(all);
    expect((await p.checkpoints.list()).slice(1)).toEqual(before);
    expect((await p.verify()).ok).toBe(true);
    await p.close();
  });

  it('a row pointing at an event that is not its checkpoint is found by verify and repaired by rebuild', async () => {
    const p = await openSqlite(path);
    await p.checkpoints.put({ threadId: 't', checkpointId: '01', checkpoint: big(1) });
    await p.checkpoints.put({ threadId: 't', checkpointId: '02', checkpoint: big(2) });
    await p.close();
    const db = new Database(path);
    db.prepare("UPDATE checkpoints SET event_seq = 2 WHERE checkpoint_id = '01'").run();
    db.close();
    const q = await openSqlite(path);
    expect((await q.verify()).differences).toEqual(['checkpoints: 1 differ from the log (["t","","01"])']);
    await q.rebuild();
    expect((await q.verify()).ok).toBe(true);
    expect((await q.checkpoints.get({ threadId: 't', checkpointId: '01' }))?.checkpoint.checkpoint).toEqual(big(1));
    await q.close();
  });
});
