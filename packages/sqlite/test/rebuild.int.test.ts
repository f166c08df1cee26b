/**
 * Rebuild and snapshots on real files: rebuild re-derives the tables exactly
 * (stray rows do not survive); a tampered or truncated snapshot row is
 * skipped; a corrupted event row fails rebuild with a CorruptionError naming
 * its seq and leaves the database unchanged; reopening keeps everything and
 * continues the stream and the clock.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareHlc, CorruptionError, encodeSnapshot, hmacCodec, ManualClock, replay, ValidationError } from '@agentstate/core';
import { eventChecksum, openSqlite, openSqliteLog } from '../src/index.js';
import type { SqliteProvider } from '../src/index.js';
import { tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

async function populate(p: SqliteProvider, n = 5): Promise<void> {
  const s = await p.sessions.create({ title: 'chat' });
  for (let i = 0; i < n; i += 1) {
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: `turn ${i} about deploys` });
    await p.skills.upsert({ slug: `skill-${i % 3}`, body: `body ${i}`, tags: ['ops'] });
    const m = await p.memory.write({ content: `fact ${i} about the staging database`, scope: i % 2 ? ['project:a'] : [] });
    if (i % 3 === 0) await p.memory.delete(m.id);
  }
  await p.skills.delete('skill-1');
  // Transcript operations: tombstones and seqs past them must fold back exactly.
  const tool = { type: 'tool-call' as const, callId: 'c1', toolName: 'deploy', input: { env: 'staging' } };
  const structured = await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', parts: [tool], metadata: { model: 'm' } });
  await p.sessions.removeLastTurn(s.id);
  const [kept] = await p.sessions.turns(s.id, { last: 1 });
  await p.sessions.replaceSuffix(s.id, {
    expected: [kept!.id],
    turns: [
      { role: 'user', content: 'again' },
      { role: 'tool', parts: [tool] },
    ],
  });
  expect(structured.parts).toEqual([tool]);
  const other = await p.sessions.create({ title: 'cleared', metadata: { app: 'test' } });
  await p.sessions.appendTurn({ sessionId: other.id, role: 'user', content: 'soon gone' });
  await p.sessions.clear(other.id);
}

/** Runs SQL on the file through a second connection (as a tamperer would). */
function tamper(path: string, sql: string, ...params: unknown[]): void {
  const db = new Database(path);
  db.prepare(sql).run(...params);
  db.close();
}

describe('rebuild', () => {
  it('reproduces the tables exactly and removes stray rows', async () => {
    const path = tmp.file();
    const p = await openSqlite(path);
    await populate(p);
    const before = encodeSnapshot(await p.snapshot());
    tamper(
      path,
      "INSERT INTO sessions SELECT 'stray', title, model, metadata, scope_key, created_at, updated_at, summary, fields_clock, sync_version, origin_instance_id, hlc_wall, hlc_counter, last_writer_id, 0 FROM sessions LIMIT 1",
    );
    tamper(path, "UPDATE memory SET content = 'edited behind our back'");
    tamper(path, "INSERT INTO memory_fts (rowid, text) VALUES (999, 'ghost')");
    expect(encodeSnapshot(await p.snapshot())).not.toBe(before);
    const result = await p.rebuild();
    expect(result).toMatchObject({ snapshotSeq: 0, skipped: [] });
    expect(encodeSnapshot(await p.snapshot())).toBe(before);
    expect(await p.memory.recall({ query: 'ghost' })).toEqual([]);
    expect(await p.memory.recall({ query: 'edited' })).toEqual([]);
    expect((await p.memory.recall({ query: 'staging' })).length).toBe(3);
    await p.close();
  });

  it('resumes from the newest valid snapshot, skipping tampered and truncated ones', async () => {
    const path = tmp.file();
    const codec = hmacCodec('secret');
    const p = await openSqlite(path, { snapshotCodec: codec });
    await populate(p, 2);
    const good = await p.saveSnapshot();
    await populate(p, 2);
    const tampered = await p.saveSnapshot();
    await populate(p, 2);
    const truncated = await p.saveSnapshot();
    await p.memory.write({ content: 'after every snapshot' });
    const expected = encodeSnapshot(await p.snapshot());
    tamper(path, 'UPDATE snapshots SET data = replace(data, ?, ?) WHERE seq = ?', '"first"', '"firsT"', tampered.seq);
    tamper(path, 'UPDATE snapshots SET data = substr(data, 1, 100) WHERE seq = ?', truncated.seq);
    const result = await p.rebuild();
    expect(result.snapshotSeq).toBe(good.seq);
    expect(result.skipped.map((s) => s.seq)).toEqual([truncated.seq, tampered.seq]);
    expect(result.events).toBe(result.seq - good.seq);
    expect(encodeSnapshot(await p.snapshot())).toBe(expected);
    const full = await p.rebuild({ fromScratch: true });
    expect(full.snapshotSeq).toBe(0);
    expect(encodeSnapshot(await p.snapshot())).toBe(expected);
    await p.close();
  });

  it('fails on a corrupted event with a CorruptionError naming its seq, and changes nothing', async () => {
    const path = tmp.file();
    const p = await openSqlite(path);
    await populate(p, 3);
    const snapshot = encodeSnapshot(await p.snapshot());
    const events = await p.log.read({ stream: 'state' });
    for (const [sql, seq] of [
      ["UPDATE events SET payload = '{\"session\":{}}' WHERE stream = 'state' AND seq = ?", 4],
      ["UPDATE events SET payload = 'not json' WHERE stream = 'state' AND seq = ?", 5],
      ["UPDATE events SET type = 'session.renamed' WHERE stream = 'state' AND seq = ?", 6],
    ] as const) {
      const original = events[seq - 1]!;
      tamper(path, sql, seq);
      const bytes = readFileSync(path);
      const error = await p.rebuild().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CorruptionError);
      expect(error).toMatchObject({ stream: 'state', seq });
      expect(readFileSync(path).equals(bytes)).toBe(true);
      expect(encodeSnapshot(await p.snapshot())).toBe(snapshot);
      tamper(path, "UPDATE events SET type = ?, payload = ? WHERE stream = 'state' AND seq = ?", original.type, JSON.stringify(original.payload), seq);
      expect((await p.log.read({ stream: 'state', afterSeq: seq - 1, limit: 1 }))[0]).toEqual(original);
    }
    await p.rebuild();
    expect(encodeSnapshot(await p.snapshot())).toBe(snapshot);
    await p.close();
  });
});

/** Every table, index and trigger of the file with its definition, in name order. */
function schemaOf(path: string): { type: string; name: string; sql: string | null }[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT type, name, sql FROM sqlite_schema ORDER BY name').all() as { type: string; name: string; sql: string | null }[];
  } finally {
    db.close();
  }
}

describe('rebuild as a bulk load', () => {
  it('creates the indexes it drops for the load again, as they were, and a failed rebuild keeps them', async () => {
    const path = tmp.file();
    const p = await openSqlite(path);
    await populate(p);
    const schema = schemaOf(path);
    // The read-side indexes a bulk load drops and creates again after the rows.
    for (const name of ['sessions_live_by_scope', 'turns_live_recent', 'memory_live_recent', 'memory_live_key', 'memory_meta_by_value', 'checkpoints_newest'])
      expect(schema.map((row) => row.name)).toContain(name);
    await p.rebuild({ fromScratch: true });
    expect(schemaOf(path)).toEqual(schema);
    expect(await p.verify()).toMatchObject({ ok: true });
    // A rebuild that fails after the drop rolls it back with everything else.
    const [last] = await p.log.read({ stream: 'state', afterSeq: (await p.log.head('state')) - 1 });
    tamper(path, "UPDATE events SET payload = 'not json' WHERE stream = 'state' AND seq = ?", last!.seq);
    await expect(p.rebuild({ fromScratch: true })).rejects.toBeInstanceOf(CorruptionError);
    expect(schemaOf(path)).toEqual(schema);
    await p.close();
  });

  it('fills the tables of a log-only file on open exactly as a replay, with the schema of a file created by a provider', async () => {
    const source = tmp.file('source.db');
    const p = await openSqlite(source);
    await populate(p);
    const events = await p.log.read({ stream: 'state' });
    const expected = encodeSnapshot(await p.snapshot());
    await p.close();
    // A bare log: the first open of a provider folds every event into the empty tables.
    const path = tmp.file('log-only.db');
    const log = openSqliteLog(path);
    await log.appendMany(events.map((e) => ({ stream: e.stream, type: e.type, schemaVersion: e.schemaVersion, payload: e.payload, time: e.time })));
    await log.close();
    const q = await openSqlite(path);
    expect(encodeSnapshot(await q.snapshot())).toBe(expected);
    expect(await q.verify()).toMatchObject({ ok: true });
    await q.close();
    expect(schemaOf(path)).toEqual(schemaOf(source));
  });
});

describe('automatic snapshots', () => {
  it('are saved every k mutations, and a failing one never fails the write', async () => {
    const path = tmp.file();
    const p = await openSqlite(path, { snapshotEvery: 3 });
    await populate(p, 2);
    const head = await p.log.head('state');
    const latest = await p.log.latestSnapshot('state');
    expect(latest?.seq).toBe(head - (head % 3));
    await p.close();

    const errors: unknown[] = [];
    const failing = {
      id: 'failing',
      seal: () => {
        throw new Error('no sealing today');
      },
      open: (s: string) => s,
    };
    const q = await openSqlite(path, { snapshotEvery: 1, snapshotCodec: failing, onBackgroundError: (e) => errors.push(e) });
    const item = await q.memory.write({ content: 'written all the same' });
    expect((await q.memory.get(item.id)).content).toBe('written all the same');
    expect(errors).toHaveLength(1);
    await q.close();
  });
});

describe('event integrity', () => {
  it('reports an event row changed behind the log, even one that still decodes', async () => {
    const path = tmp.file();
    const p = await openSqlite(path);
    await p.memory.write({ content: 'the original fact' });
    tamper(path, "UPDATE events SET payload = replace(payload, 'original', 'forged') WHERE seq = 1");
    await expect(p.log.read({ stream: 'state' })).rejects.toMatchObject({ name: 'CorruptionError', seq: 1 });
    await expect(p.rebuild()).rejects.toBeInstanceOf(CorruptionError);
    expect((await p.memory.recall({ query: 'original' })).length).toBe(1);
    await p.close();
  });

  it('refuses a malformed payload at a bare log append, and validates rows it did not check in full', async () => {
    const path = tmp.file();
    const p = await openSqlite(path);
    const bad = { item: { id: 'x' } };
    await expect(p.log.append({ stream: 'state', type: 'memory.written', payload: bad })).rejects.toBeInstanceOf(ValidationError);
    expect(await p.log.head('state')).toBe(0);
    // A row written behind the log, with a checksum that holds but never validated, is checked when folded.
    const text = JSON.stringify(bad);
    tamper(
      path,
      "INSERT INTO events (stream, seq, type, time, schema_version, payload, checksum, validated) VALUES ('state', 1, 'memory.written', '2026-01-01T00:00:00.000Z', 1, ?, ?, 0)",
      text,
      eventChecksum('memory.written', 1, text),
    );
    await expect(p.memory.write({ content: 'next' })).rejects.toMatchObject({ name: 'CorruptionError', seq: 1 });
    await expect(p.rebuild()).rejects.toMatchObject({ name: 'CorruptionError', seq: 1 });
    await p.close();
  });
});

describe('reopen', () => {
  it('keeps everything, continues the stream, and starts the clock past every stored HLC', async () => {
    const path = tmp.file();
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    const p = await openSqlite(path, { clock });
    await populate(p);
    const skill = await p.skills.get('skill-0');
    const before = encodeSnapshot(await p.snapshot());
    const head = await p.log.head('state');
    await p.close();

    // The physical clock went back a year.
    const q = await openSqlite(path, { clock: new ManualClock(Date.UTC(2029, 0, 1)) });
    expect(encodeSnapshot(await q.snapshot())).toBe(before);
    const updated = await q.skills.upsert({ slug: 'skill-0', body: 'new' });
    expect(compareHlc(updated.updatedHlc, skill.updatedHlc)).toBeGreaterThan(0);
    const fresh = await q.memory.write({ content: 'later' });
    expect(compareHlc(fresh.updatedHlc, skill.updatedHlc)).toBeGreaterThan(0);
    const events = await q.log.read({ stream: 'state', afterSeq: head });
    expect(events.map((e) => e.seq)).toEqual([head + 1, head + 2]);
    const replayed = await replay(q.log);
    expect(encodeSnapshot(await replayed.snapshot())).toBe(encodeSnapshot(await q.snapshot()));
    await q.close();
  });

  it('folds events appended to the state stream through a bare log', async () => {
    const path = tmp.file();
    const p = await openSqlite(path);
    const s = await p.sessions.create({ title: 'x' });
    const other = await openSqlite(':memory:');
    const o = await other.memory.write({ content: 'from elsewhere' });
    const [event] = await other.log.read({ stream: 'state' });
    await other.close();
    await p.log.append({ stream: 'state', type: event!.type, payload: event!.payload });
    // The next write of this provider sees it first.
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hi' });
    expect((await p.memory.get(o.id)).content).toBe('from elsewhere');
    await p.close();
    const q = await openSqlite(path);
    expect((await q.memory.get(o.id)).content).toBe('from elsewhere');
    await q.close();
  });
});
