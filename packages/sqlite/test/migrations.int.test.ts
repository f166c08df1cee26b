/**
 * The schema on real files: a new file is created in one step; a file an
 * earlier version wrote (schema 1 to 13) has its tables dropped and folded
 * again from its log, in one transaction that a crash leaves undone; a file
 * that is not SQLite, a SQLite file of another application, and a newer log
 * or derived version are refused with a clear error and left byte for byte
 * as they were.
 */
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Connection, DEFAULT_CONNECTION_OPTIONS } from '../src/connection.js';
import { APPLICATION_ID, DERIVED_VERSION, IncompatibleDatabaseError, LOG_VERSION, openSqlite, openSqliteLog } from '../src/index.js';
import { eventChecksum } from '../src/log.js';
import { inspectDatabase, prepareSchema } from '../src/schema/index.js';
import { DERIVED_SQL } from '../src/schema/derived.js';
import { LOG_SQL } from '../src/schema/log.js';
import { schema13File, tempDir } from './helpers.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

async function refused(path: string, reason: string, open: () => unknown = () => openSqlite(path)): Promise<IncompatibleDatabaseError> {
  const before = readFileSync(path);
  let caught: unknown;
  try {
    await open();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(IncompatibleDatabaseError);
  expect((caught as IncompatibleDatabaseError).code).toBe('incompatible');
  expect((caught as IncompatibleDatabaseError).reason).toBe(reason);
  expect(readFileSync(path).equals(before)).toBe(true);
  return caught as IncompatibleDatabaseError;
}

/** The definitions of every table and index of a file, by name. */
function schemaOf(db: Database.Database): Record<string, string | null> {
  const rows = db.prepare(`SELECT name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string; sql: string | null }[];
  return Object.fromEntries(rows.map((row) => [row.name, row.sql]));
}

/** Writes `key` of the file's `store_meta`, checkpointed into the file. */
function setMeta(path: string, key: string, value: number): void {
  const db = new Database(path);
  db.prepare('UPDATE store_meta SET value = ? WHERE key = ?').run(String(value), key);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

describe('the schema', () => {
  it('creates a new file in one step, the log and the derived tables of the script, identified by its application id', async () => {
    const path = tmp.file();
    await (await openSqlite(path)).close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const meta = Object.fromEntries((db.prepare('SELECT key, value FROM store_meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
    expect(meta).toEqual({ log_identity: expect.stringMatching(/^[0-9a-f]{32}$/), log_version: String(LOG_VERSION), derived_version: String(DERIVED_VERSION) });
    const script = new Database(':memory:');
    script.exec(LOG_SQL + DERIVED_SQL);
    expect(schemaOf(db)).toEqual(schemaOf(script));
    script.close();
    db.close();
  });

  it("has the tables, columns and indexes schema 13 had, but its history runs, its record of migrations, the origin of received events, the sessions' summary and fields clock, the turns' append clock and the skills' content clock and outcomes", async () => {
    const fresh = tmp.file();
    await (await openSqlite(fresh)).close();
    const old = schema13File(tmp.file('old.db'));
    const shapes = [fresh, old].map((path) => {
      const db = new Database(path, { readonly: true });
      const rows = db
        .prepare(`SELECT type, name, sql FROM sqlite_schema WHERE name NOT IN ('history_runs', 'agentstate_migrations', 'events_origin') ORDER BY name`)
        .all() as {
        type: string;
        name: string;
        sql: string | null;
      }[];
      const shape = rows.map((row) =>
        row.type === 'table' && !/^CREATE VIRTUAL/.test(row.sql ?? '')
          ? {
              name: row.name,
              // Column positions are left out: the columns added since stand before the envelope's columns.
              columns: (db.pragma(`table_info("${row.name}")`) as { cid: number; name: string }[])
                .filter(
                  (column) =>
                    (!column.name.startsWith('origin') || row.name !== 'events') &&
                    ((column.name !== 'summary' && column.name !== 'fields_clock') || row.name !== 'sessions') &&
                    (column.name !== 'appended_hlc' || row.name !== 'turns') &&
                    ((column.name !== 'content_clock' && column.name !== 'outcomes') || row.name !== 'skills'),
                )
                .map(({ cid: _cid, ...column }) => column),
              withoutRowid: /WITHOUT ROWID\s*$/.test(row.sql ?? ''),
            }
          : { name: row.name, sql: row.sql?.replace(/\s+/g, ' ').replace(/"/g, '') },
      );
      db.close();
      return shape;
    });
    expect(shapes[0]).toEqual(shapes[1]);
  });

  it('folds the tables of a file of schema 13 again from its log, dropping what that schema alone had', async () => {
    const path = schema13File(tmp.file());
    const before = new Database(path, { readonly: true });
    const identity = (before.prepare(`SELECT value FROM store_meta WHERE key = 'log_identity'`).get() as { value: string }).value;
    const events = before.prepare('SELECT * FROM events ORDER BY position').all();
    before.close();
    const p = await openSqlite(path);
    const sessions = await p.sessions.list();
    await p.close();
    expect(sessions.length).toBeGreaterThan(0);
    const db = new Database(path, { readonly: true });
    const script = new Database(':memory:');
    script.exec(LOG_SQL + DERIVED_SQL);
    expect(schemaOf(db)).toEqual(schemaOf(script));
    // The log and the store's identity are kept as they were; the snapshot, derived, is gone.
    // Log version 2 adds the origin of received events: none here.
    expect(db.prepare('SELECT * FROM events ORDER BY position').all()).toEqual(
      events.map((row) => ({ ...(row as object), origin: null, origin_seq: null, origin_time: null })),
    );
    expect((db.prepare(`SELECT value FROM store_meta WHERE key = 'log_identity'`).get() as { value: string }).value).toBe(identity);
    expect(db.prepare('SELECT count(*) AS n FROM snapshots').get()).toEqual({ n: 0 });
    script.close();
    db.close();
  });

  it('opens a file of schema 1 (events only, no identity), gives it an identity and folds its tables', async () => {
    const path = tmp.file();
    const source = await openSqlite(':memory:');
    const s = await source.sessions.create({ title: 'kept' });
    await source.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hello' });
    const events = await source.log.read({ stream: 'state' });
    await source.close();
    const raw = new Database(path);
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    raw.exec(`CREATE TABLE agentstate_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL);
      INSERT INTO agentstate_migrations VALUES (1, 'log', 'x', 'then');
      ${LOG_SQL.replace(/ALTER TABLE[\s\S]*$/, '')}
      CREATE TABLE snapshots (position INTEGER PRIMARY KEY, stream TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL, UNIQUE (stream, seq));`);
    for (const e of events) {
      const payload = JSON.stringify(e.payload);
      raw
        .prepare('INSERT INTO events (stream, seq, type, time, schema_version, payload, checksum) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(e.stream, e.seq, e.type, e.time, e.schemaVersion, payload, eventChecksum(e.type, e.schemaVersion, payload));
    }
    raw.close();

    const p = await openSqlite(path);
    expect((await p.sessions.get(s.id)).title).toBe('kept');
    expect((await p.sessions.turns(s.id)).map((t) => t.content)).toEqual(['hello']);
    expect(await p.log.identity()).toMatch(/^[0-9a-f]{32}$/);
    const next = await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', content: 'again' });
    expect(next.seq).toBe(2);
    await p.checkpoints.put({ threadId: 't', checkpointId: '01', checkpoint: { kept: true } });
    expect((await p.checkpoints.get({ threadId: 't' }))?.checkpoint.checkpoint).toEqual({ kept: true });
    expect((await p.verify()).ok).toBe(true);
    await p.close();
  });

  it('leaves a file of schema 13 as it was when the process dies while folding it, and folds it on the next open', async () => {
    const path = schema13File(tmp.file());
    const before = new Database(path, { readonly: true });
    const tables = schemaOf(before);
    before.close();
    const crash = `import { openSqlite } from '@agentstate/sqlite';
await openSqlite(process.argv[1], { onProgress: () => process.exit(7) });`;
    const cwd = fileURLToPath(new URL('..', import.meta.url));
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', crash, path], { cwd, encoding: 'utf8', timeout: HANG_GUARD_MS });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(7);
    const after = new Database(path, { readonly: true });
    expect(schemaOf(after)).toEqual(tables);
    after.close();
    // A failure inside the fold is undone the same way, and the error is the caller's.
    await expect(
      openSqlite(path, {
        onProgress: () => {
          throw new Error('stop here');
        },
      }),
    ).rejects.toThrow('stop here');
    const again = new Database(path, { readonly: true });
    expect(schemaOf(again)).toEqual(tables);
    again.close();
    const p = await openSqlite(path);
    expect((await p.sessions.list()).length).toBeGreaterThan(0);
    await p.close();
  });

  it('lets a log opened on its own bring a file of schema 13 up to date, leaving its tables for the next provider to fold', async () => {
    const path = schema13File(tmp.file());
    const reference = await openSqlite(schema13File(tmp.file('reference.db')));
    const expected = await reference.snapshot();
    await reference.close();
    const log = openSqliteLog(path);
    expect(await log.head('state')).toBe(expected.seq);
    await log.close();
    expect((await refused(path, 'behind-log', () => openSqlite(path, { readonly: true }))).message).toMatch(/open it writable once/);
    const progress: number[][] = [];
    const p = await openSqlite(path, { onProgress: (done, total) => progress.push([done, total]) });
    expect(await p.snapshot()).toEqual(expected);
    await p.close();
    expect(progress).toEqual([[expected.seq, expected.seq]]);
  });

  it('refuses a file that is not SQLite, unchanged', async () => {
    const path = tmp.file('notes.txt');
    writeFileSync(path, 'these are not the pages you are looking for\n'.repeat(200));
    await refused(path, 'not-sqlite');
  });

  it('refuses a SQLite database of another application, unchanged', async () => {
    const path = tmp.file('other.db');
    const db = new Database(path);
    db.exec("CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO accounts (name) VALUES ('x')");
    db.close();
    await refused(path, 'not-agentstate');
  });

  it.each([
    ['log_version', LOG_VERSION],
    ['derived_version', DERIVED_VERSION],
  ])('refuses a file whose %s is newer, unchanged', async (key, version) => {
    const path = tmp.file();
    await (await openSqlite(path)).close();
    setMeta(path, key, version + 1);
    expect((await refused(path, 'newer-schema')).message).toMatch(/newer than this library's .*: upgrade @agentstate\/sqlite/);
    await refused(path, 'newer-schema', () => openSqliteLog(path));
    await refused(path, 'newer-schema', () => openSqlite(path, { readonly: true }));
  });

  it('lets two connections that both found the file new create it once', async () => {
    const path = tmp.file();
    const a = Connection.open(path, DEFAULT_CONNECTION_OPTIONS);
    const b = Connection.open(path, DEFAULT_CONNECTION_OPTIONS);
    a.configure(DEFAULT_CONNECTION_OPTIONS);
    b.configure(DEFAULT_CONNECTION_OPTIONS);
    const foundByA = inspectDatabase(a);
    const foundByB = inspectDatabase(b);
    expect(foundByA.fresh && foundByB.fresh).toBe(true);
    prepareSchema(a, foundByA);
    prepareSchema(b, foundByB);
    expect(inspectDatabase(b)).toEqual({ fresh: false, log: LOG_VERSION, derived: DERIVED_VERSION });
    await a.close();
    await b.close();
  });
});
