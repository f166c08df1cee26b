/**
 * `SqliteLog.appendMany`: a batch of appends in one transaction, with the
 * same rules as `append` (dense seqs per stream, stamped time and schema
 * version, linkage kept), all or nothing.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '@agentstate/core';
import { openSqlite, openSqliteLog } from '../src/index.js';
import { tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

describe('appendMany', () => {
  it('appends in order with dense seqs per stream, keeping times and linkage', async () => {
    const log = openSqliteLog(tmp.file());
    await log.append({ stream: 'a', type: 't', payload: { n: 0 } });
    const stored = await log.appendMany([
      { stream: 'a', type: 't', payload: { n: 1 }, time: '2100-01-01T00:00:00.000Z', actor: 'importer' },
      { stream: 'b', type: 't', payload: { n: 2 }, schemaVersion: 2 },
      { stream: 'a', type: 't', payload: { n: 3 } },
    ]);
    expect(stored.map((e) => [e.stream, e.seq])).toEqual([
      ['a', 2],
      ['b', 1],
      ['a', 3],
    ]);
    const a = await log.read({ stream: 'a' });
    expect(a.map((e) => e.payload)).toEqual([{ n: 0 }, { n: 1 }, { n: 3 }]);
    expect(a[1]).toMatchObject({ time: '2100-01-01T00:00:00.000Z', actor: 'importer', schemaVersion: 1 });
    expect((await log.read({ stream: 'b' }))[0]).toMatchObject({ seq: 1, schemaVersion: 2 });
    expect(await log.appendMany([])).toEqual([]);
    await log.close();
  });

  it('reads back every column of each event as appended, and a changed column as damage', async () => {
    const path = tmp.file();
    const log = openSqliteLog(path);
    const linkage = { actor: 'a', traceId: 't', spanId: 's', causationId: 'c', originInstanceId: 'o', principal: 'p' };
    const appended = await log.appendMany([
      { stream: 'a', type: 't1', payload: { n: 1 }, time: '2026-01-01T00:00:00.000Z', schemaVersion: 3, ...linkage },
      { stream: 'a', type: 't2', payload: { n: 2 }, time: '2026-01-02T00:00:00.000Z' },
      { stream: 'a', type: 't3', payload: { n: 3 }, time: '2026-01-03T00:00:00.000Z', principal: 'only' },
    ]);
    expect(await log.read({ stream: 'a' })).toEqual(appended);
    expect(log.readForFold('a', 1, 2).map(({ event }) => [event.seq, event.type, event.schemaVersion, event.payload])).toEqual([
      [2, 't2', 1, { n: 2 }],
      [3, 't3', 1, { n: 3 }],
    ]);
    await log.close();
    const db = new Database(path);
    db.prepare("UPDATE events SET span_id = 'forged' WHERE stream = 'a' AND seq = 1").run();
    db.close();
    const damaged = openSqliteLog(path);
    await expect(damaged.read({ stream: 'a' })).rejects.toThrow(/seq 1|does not match its checksum/);
    expect(await damaged.read({ stream: 'a', afterSeq: 1 })).toEqual(appended.slice(1));
    await damaged.close();
  });

  it('stores nothing when one input is refused', async () => {
    const log = openSqliteLog(tmp.file());
    await expect(
      log.appendMany([
        { stream: 'a', type: 't', payload: { n: 1 } },
        { stream: 'a', type: '', payload: { n: 2 } },
      ]),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(log.appendMany([{ stream: '', type: 't', payload: {} }])).rejects.toBeInstanceOf(ValidationError);
    // A time earlier than the one before it in the batch, on its stream only.
    await expect(
      log.appendMany([
        { stream: 'a', type: 't', payload: { n: 1 }, time: '2100-01-02T00:00:00.000Z' },
        { stream: 'b', type: 't', payload: { n: 2 }, time: '2100-01-01T00:00:00.000Z' },
        { stream: 'a', type: 't', payload: { n: 3 }, time: '2100-01-01T00:00:00.000Z' },
      ]),
    ).rejects.toMatchObject({ field: '2.time', message: expect.stringMatching(/earlier than 2100-01-02T00:00:00\.000Z/) });
    expect(await log.head('a')).toBe(0);
    await log.close();
  });

  it('refuses a whole batch holding one state event the decoder would refuse, naming its position', async () => {
    const path = tmp.file();
    const source = await openSqlite(tmp.file('source.db'));
    await source.memory.write({ content: 'first' });
    await source.memory.write({ content: 'second' });
    const inputs = (await source.log.read({ stream: 'state' })).map(({ seq: _seq, ...input }) => input);
    await source.close();
    const log = openSqliteLog(path);
    const item = (inputs[1]!.payload as { item: Record<string, unknown> }).item;
    const poisoned = [inputs[0]!, { ...inputs[1]!, payload: { item: { ...item, createdAt: '2026-02-30T00:00:00.000Z' } } }];
    const error = await log.appendMany(poisoned).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('1.payload');
    await expect(log.appendMany([{ stream: 'state', type: 'memory.exploded', payload: {} }])).rejects.toMatchObject({ field: '0.type' });
    expect(await log.head('state')).toBe(0);
    await log.close();
    // Nothing was stored, so the file still opens and is empty.
    const p = await openSqlite(path);
    expect(await p.memory.recall({})).toEqual([]);
    await p.close();
  });

  it('marks the state events it checked as validated, so opening does not check them again', async () => {
    const path = tmp.file();
    const source = await openSqlite(tmp.file('source.db'));
    await source.memory.write({ content: 'checked once' });
    const inputs = (await source.log.read({ stream: 'state' })).map(({ seq: _seq, ...input }) => input);
    await source.close();
    const log = openSqliteLog(path);
    await log.appendMany([...inputs, { stream: 'audit', type: 'note', payload: {} }]);
    await log.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT stream, validated FROM events ORDER BY stream').all()).toEqual([
      { stream: 'audit', validated: 0 },
      { stream: 'state', validated: 1 },
    ]);
    db.close();
  });

  it('fills a bare log that a provider folds when it opens', async () => {
    const path = tmp.file();
    const source = await openSqlite(tmp.file('source.db'));
    const s = await source.sessions.create({ title: 'chat' });
    await source.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hello' });
    const events = await source.log.read({ stream: 'state' });
    const log = openSqliteLog(path);
    await log.appendMany(events.map(({ seq: _seq, ...input }) => input));
    await log.close();
    const copy = await openSqlite(path);
    expect(await copy.sessions.turns(s.id)).toEqual(await source.sessions.turns(s.id));
    await copy.close();
    await source.close();
  });
});
