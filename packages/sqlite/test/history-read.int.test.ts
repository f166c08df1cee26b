/**
 * History on a SQLite file reads a record's events through the history index
 * in one range read (`recordEvents`), each row by its key where `position - seq`
 * is the same at the record's first and last event: the versions equal the
 * in-memory provider's for the same writes, whether rows are found by key, by
 * seq (another stream's events between), or by seq after a miss by key, and
 * with each event's linkage (read as one value); an index row naming an event
 * the log lacks, or an event row changed since it was written (its linkage
 * included), is a `CorruptionError`. A long session's history reads its
 * scattered pages into a few reused buffers, not through the memory map, and
 * leaves the handle's map and cache as they were.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import type { Provider } from '@agentstate/core';
import { CorruptionError, createInMemoryProvider, ManualClock, seededEntropy } from '@agentstate/core';
import { Connection, DEFAULT_CONNECTION_OPTIONS } from '../src/connection.js';
import { openSqlite } from '../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A session with turns interleaved with other writes, and a memory item rewritten: records whose events are not in one run. */
async function populate(p: Provider): Promise<{ session: string; item: string }> {
  const session = await p.sessions.create({ title: 'long' });
  const item = await p.memory.write({ key: 'plan', content: 'Ship on Friday' });
  for (let i = 0; i < 20; i += 1) {
    await p.sessions.appendTurn({ sessionId: session.id, role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` });
    await p.skills.upsert({ slug: `skill-${i % 3}`, body: `body ${i}` });
    if (i % 4 === 0) await p.memory.write({ key: 'plan', content: `Ship in ${i} days` });
  }
  return { session: session.id, item: item.id };
}

function file(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-history-read-'));
  dirs.push(dir);
  return join(dir, 'state.db');
}

describe('history on a SQLite file', () => {
  it('reads every version as the in-memory provider does', async () => {
    const path = file();
    const sqlite = await openSqlite(path, { clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(9), instanceId: 'a' });
    const memory = createInMemoryProvider({ clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(9), instanceId: 'a' });
    const ids = await populate(sqlite);
    await populate(memory);
    for (const id of [ids.session, ids.item]) {
      const versions = await sqlite.history(id);
      expect(versions.length).toBeGreaterThan(5);
      expect(versions).toEqual(await memory.history(id));
    }
    await sqlite.close();
  });

  it("reads the same versions when another stream's events sit between the record's, and when a row is not at its usual key", async () => {
    const clock = () => new ManualClock(Date.UTC(2026, 0, 1));
    const path = file();
    const sqlite = await openSqlite(path, { clock: clock(), entropy: seededEntropy(9), instanceId: 'a' });
    const memory = createInMemoryProvider({ clock: clock(), entropy: seededEntropy(9), instanceId: 'a' });
    const ids = await populate(sqlite);
    await populate(memory);
    const expected = await Promise.all([ids.session, ids.item].map((id) => memory.history(id)));
    const read = () => Promise.all([ids.session, ids.item].map((id) => sqlite.history(id)));
    expect(await read()).toEqual(expected);
    // Another stream's event after every one of the records': the log's ends differ, each record's do not.
    await sqlite.log.append({ stream: 'other', type: 'x', payload: {} });
    expect(await read()).toEqual(expected);

    // Another stream's event after the first ones: position - seq differs at the records' first and last events.
    await sqlite.close();
    const db = new Database(path);
    // The session's turn appends: a live commit records them in the turns table (`appended_seq`).
    const seqs = db.prepare('SELECT appended_seq AS seq FROM turns WHERE session_id = ? ORDER BY appended_seq').all(ids.session) as { seq: number }[];
    const middle = seqs[Math.floor(seqs.length / 2)]!.seq;
    const rows = db
      .prepare("SELECT position, stream FROM events WHERE position > (SELECT position FROM events WHERE stream = 'state' AND seq = ?) ORDER BY position DESC")
      .all(middle) as { position: number; stream: string }[];
    // Shift every later row one key up (from the top, so keys stay unique) and put another stream's row in the gap.
    for (const row of rows) db.prepare('UPDATE events SET position = position + 1 WHERE position = ?').run(row.position);
    db.prepare(
      "INSERT INTO events (position, stream, seq, type, time, schema_version, payload, checksum) VALUES (?, 'other', 2, 'x', '2026-01-01T00:00:00.000Z', 1, '{}', '-')",
    ).run(rows.at(-1)!.position);
    db.close();
    let reopened = await openSqlite(path, { readonly: true });
    expect(await Promise.all([ids.session, ids.item].map((id) => reopened.history(id)))).toEqual(expected);
    await reopened.close();

    // One row of the session moved far from its usual key (the offset is the same at both ends): found by its seq.
    const move = new Database(path);
    move.prepare("DELETE FROM events WHERE stream = 'other'").run();
    for (const row of [...rows].reverse().filter((r) => r.stream === 'state'))
      move.prepare('UPDATE events SET position = position - 1 WHERE position = ?').run(row.position + 1);
    move.prepare("UPDATE events SET position = position + 1000000 WHERE stream = 'state' AND seq = ?").run(middle);
    move.close();
    reopened = await openSqlite(path, { readonly: true });
    expect(await Promise.all([ids.session, ids.item].map((id) => reopened.history(id)))).toEqual(expected);
    await reopened.close();

    // The same row missing altogether: the log has no such event.
    const drop = new Database(path);
    drop.prepare("DELETE FROM events WHERE stream = 'state' AND seq = ?").run(middle);
    drop.close();
    reopened = await openSqlite(path, { readonly: true });
    await expect(reopened.history(ids.session)).rejects.toThrow(/log has no such event/);
    await reopened.close();
  });

  it('shows the linkage each event carries, as stored, and refuses a row whose linkage changed since', async () => {
    // Text the JSON of the linkage must carry back as stored: quotes, a backslash, accents, a character outside the BMP.
    const eventMeta = { actor: 'agent "7" \\ ops', traceId: 'trace-é', spanId: 'span', causationId: 'cause', originInstanceId: 'origin', principal: 'user:🎉' };
    const options = () => ({ clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(9), instanceId: 'a', eventMeta });
    const path = file();
    const sqlite = await openSqlite(path, options());
    const memory = createInMemoryProvider(options());
    const ids = await populate(sqlite);
    await populate(memory);
    for (const id of [ids.session, ids.item]) {
      const versions = await sqlite.history(id);
      expect(versions.map((v) => [v.actor, v.principal, v.originInstanceId])).toEqual(versions.map(() => [eventMeta.actor, eventMeta.principal, 'origin']));
      expect(versions).toEqual(await memory.history(id));
    }
    await sqlite.close();

    // A later event without linkage beside the earlier ones with it.
    const plain = await openSqlite(path, { instanceId: 'a' });
    await plain.memory.write({ key: 'plan', content: 'Ship on Monday' });
    const versions = await plain.history(ids.item);
    expect(versions.at(-2)).toMatchObject({ actor: eventMeta.actor, principal: eventMeta.principal, originInstanceId: 'origin' });
    expect(Object.keys(versions.at(-1)!).filter((key) => ['actor', 'principal', 'originInstanceId'].includes(key))).toEqual([]);
    await plain.close();

    const db = new Database(path);
    db.prepare("UPDATE events SET trace_id = 'another trace' WHERE stream = 'state' AND seq = ?").run(versions.at(-2)!.seq);
    db.close();
    const reopened = await openSqlite(path, { readonly: true });
    await expect(reopened.history(ids.item)).rejects.toThrow(CorruptionError);
    await reopened.close();
  });

  it("maps the file again after such a read, with the handle's page cache back at its size, and leaves an open transaction's as they are", () => {
    const conn = Connection.open(file(), DEFAULT_CONNECTION_OPTIONS);
    conn.configure(DEFAULT_CONNECTION_OPTIONS);
    const settings = () => [conn.db.pragma('mmap_size', { simple: true }), conn.db.pragma('cache_size', { simple: true })];
    const usual = settings();
    expect(usual).toEqual([2 ** 30, -65_536]);
    expect(conn.readScattered(settings)).toEqual([0, -256]);
    expect(settings()).toEqual(usual);
    expect(() =>
      conn.readScattered(() => {
        throw new Error('the read failed');
      }),
    ).toThrow('the read failed');
    expect(settings()).toEqual(usual);
    expect(conn.read(() => conn.readScattered(settings))).toEqual(usual);
    conn.closeHandles();
  });

  it('refuses an index row naming an event the log lacks, and an event row changed since', async () => {
    const path = file();
    const p = await openSqlite(path);
    const { item } = await populate(p);
    await p.close();
    const db = new Database(path);
    db.prepare('INSERT INTO record_events (record_id, seq) VALUES (?, ?)').run(item, 10_000);
    db.close();
    let reopened = await openSqlite(path);
    await expect(reopened.history(item)).rejects.toThrow(CorruptionError);
    await expect(reopened.history(item)).rejects.toThrow(/log has no such event/);
    await reopened.close();

    const fix = new Database(path);
    fix.prepare('DELETE FROM record_events WHERE seq = 10000').run();
    const [seq] = (fix.prepare('SELECT seq FROM record_events WHERE record_id = ? ORDER BY seq LIMIT 1').all(item) as { seq: number }[]).map((r) => r.seq);
    fix.prepare("UPDATE events SET payload = replace(payload, 'Friday', 'Sunday') WHERE stream = 'state' AND seq = ?").run(seq);
    fix.close();
    reopened = await openSqlite(path);
    await expect(reopened.history(item)).rejects.toThrow(CorruptionError);
    await reopened.close();
  });
});
