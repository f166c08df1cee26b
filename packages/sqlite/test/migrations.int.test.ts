/**
 * Migrations on real files: a new file gets every version; a file of each
 * earlier schema migrates forward and keeps its data; a file that is not
 * SQLite, a SQLite file of another application, a newer schema and a changed
 * migration are refused with a clear error and left byte for byte as they were.
 */
import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Connection, DEFAULT_CONNECTION_OPTIONS } from '../src/connection.js';
import { APPLICATION_ID, IncompatibleDatabaseError, openSqlite, openSqliteLog, SCHEMA_VERSION } from '../src/index.js';
import { eventChecksum } from '../src/log.js';
import { appliedVersions, migrate, MIGRATIONS } from '../src/migrations/index.js';
import { tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

async function refused(path: string, reason: string): Promise<void> {
  const before = readFileSync(path);
  let caught: unknown;
  try {
    await openSqlite(path);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(IncompatibleDatabaseError);
  expect((caught as IncompatibleDatabaseError).code).toBe('incompatible');
  expect((caught as IncompatibleDatabaseError).reason).toBe(reason);
  expect(readFileSync(path).equals(before)).toBe(true);
}

describe('migrations', () => {
  it('are numbered 1…n in order', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it('bring a new file to the latest version, identified by its application id', async () => {
    const path = tmp.file();
    const p = await openSqlite(path);
    await p.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    const conn = Connection.open(path, DEFAULT_CONNECTION_OPTIONS);
    expect(appliedVersions(conn)).toEqual(MIGRATIONS.map((m) => m.version));
    await conn.close();
  });

  it.each(MIGRATIONS.slice(0, -1).map((m) => m.version))('migrate a file of schema version %i forward, keeping its events', async (version) => {
    const path = tmp.file();
    const conn = Connection.open(path, DEFAULT_CONNECTION_OPTIONS);
    conn.configure(DEFAULT_CONNECTION_OPTIONS);
    migrate(conn, { target: version });
    expect(appliedVersions(conn)).toEqual(MIGRATIONS.slice(0, version).map((m) => m.version));
    await conn.close();

    // A log-only file (version 1 has the log): write a session through a provider on another file, copy its events.
    const source = await openSqlite(':memory:');
    const s = await source.sessions.create({ title: 'kept' });
    await source.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hello' });
    const events = await source.log.read({ stream: 'state' });
    await source.close();
    const raw = new Database(path);
    for (const e of events) {
      raw
        .prepare('INSERT INTO events (stream, seq, type, time, schema_version, payload, checksum) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(e.stream, e.seq, e.type, e.time, e.schemaVersion, JSON.stringify(e.payload), eventChecksum(e.type, e.schemaVersion, JSON.stringify(e.payload)));
    }
    raw.close();

    const p = await openSqlite(path);
    expect((await p.sessions.get(s.id)).title).toBe('kept');
    expect((await p.sessions.turns(s.id)).map((t) => t.content)).toEqual(['hello']);
    const next = await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', content: 'again' });
    expect(next.seq).toBe(2);
    await p.checkpoints.put({ threadId: 't', checkpointId: '01', checkpoint: { kept: true } });
    expect((await p.checkpoints.get({ threadId: 't' }))?.checkpoint.checkpoint).toEqual({ kept: true });
    expect(await p.log.head('state')).toBe(4);
    await p.close();
  });

  it('refuse a file that is not SQLite, unchanged', async () => {
    const path = tmp.file('notes.txt');
    writeFileSync(path, 'these are not the pages you are looking for\n'.repeat(200));
    await refused(path, 'not-sqlite');
  });

  it('refuse a SQLite database of another application, unchanged', async () => {
    const path = tmp.file('other.db');
    const db = new Database(path);
    db.exec("CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO accounts (name) VALUES ('x')");
    db.close();
    await refused(path, 'not-agentstate');
  });

  it('refuse a file from a newer version, unchanged', async () => {
    const path = tmp.file();
    await (await openSqlite(path)).close();
    const db = new Database(path);
    db.prepare("INSERT INTO agentstate_migrations (version, name, checksum, applied_at) VALUES (?, 'future', 'x', 'now')").run(SCHEMA_VERSION + 1);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    await refused(path, 'newer-schema');
    expect(() => openSqliteLog(path)).toThrow(/newer/);
  });

  it('refuse a file whose recorded migration differs, unchanged', async () => {
    const path = tmp.file();
    await (await openSqlite(path)).close();
    const db = new Database(path);
    db.prepare("UPDATE agentstate_migrations SET checksum = 'edited' WHERE version = 2").run();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    await refused(path, 'migration-changed');
  });

  it('refuse a file whose recorded migrations have a gap, unchanged', async () => {
    const path = tmp.file();
    await (await openSqlite(path)).close();
    const db = new Database(path);
    db.prepare('DELETE FROM agentstate_migrations WHERE version = 2').run();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    await refused(path, 'migration-changed');
  });

  it('let two connections migrate the same new file at once', async () => {
    const path = tmp.file();
    const a = Connection.open(path, DEFAULT_CONNECTION_OPTIONS);
    const b = Connection.open(path, DEFAULT_CONNECTION_OPTIONS);
    a.configure(DEFAULT_CONNECTION_OPTIONS);
    b.configure(DEFAULT_CONNECTION_OPTIONS);
    migrate(a, { target: 1 });
    migrate(b);
    migrate(a);
    expect(appliedVersions(a)).toEqual(MIGRATIONS.map((m) => m.version));
    await a.close();
    await b.close();
  });
});
