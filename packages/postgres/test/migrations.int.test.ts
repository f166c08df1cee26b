/**
 * Schema identification and the disposable derived part: a fresh schema is
 * created in one step, processes opening it together never race, a schema
 * whose derived part has another version (one written by the migrations of
 * earlier versions among them) folds again from its log and reads the
 * same, and a foreign or newer schema is refused with an
 * `IncompatibleDatabaseError`, left exactly as it was.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createInMemoryProvider, NotFoundError, sync, ValidationError } from '@agentstate/core';
import { IncompatibleDatabaseError, openPostgres, openPostgresLog } from '../src/index.js';
import type { PostgresProvider } from '../src/index.js';
import { DERIVED_TABLES, DERIVED_VERSION, LOG_VERSION, ORIGIN_UPGRADE_SINCE, VERSIONS_TABLE } from '../src/schema-script.js';
import { dropSchema, freshSchema, testServer } from './cluster.js';

async function query<R>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result: pg.QueryResult | pg.QueryResult[] = await client.query(text);
    return (Array.isArray(result) ? result[result.length - 1]!.rows : result.rows) as R[];
  } finally {
    await client.end();
  }
}

/** Every table of a schema with its columns, to prove a refused open changed nothing. */
async function layout(url: string, schema: string): Promise<unknown> {
  return query(url, `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = '${schema}' ORDER BY 1, 2`);
}

async function versions(url: string, schema: string): Promise<Record<string, number>> {
  const rows = await query<{ part: string; version: number }>(url, `SELECT part, version FROM "${schema}".${VERSIONS_TABLE}`);
  return Object.fromEntries(rows.map((r) => [r.part, r.version]));
}

/** A fresh schema written by this library: one memory item. */
async function writtenSchema(name: string): Promise<{ url: string; schema: string }> {
  const { url } = await testServer();
  const schema = freshSchema(name);
  const provider = await openPostgres(url, { schema });
  await provider.memory.write({ content: 'kept across the upgrade' });
  await provider.close();
  return { url, schema };
}

/**
 * Opens a schema that an open upgrades in place: it folds nothing, keeps every derived table (their oids) and
 * records this library's versions.
 */
async function openInPlace(url: string, schema: string): Promise<PostgresProvider> {
  const tables = `SELECT c.oid::int FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '${schema}' AND c.relname IN (${DERIVED_TABLES.map((t) => `'${t}'`).join(', ')}) ORDER BY 1`;
  const before = await query(url, tables);
  const progress: unknown[] = [];
  const provider = await openPostgres(url, { schema, onProgress: (done, total) => progress.push({ done, total }) });
  expect(progress).toEqual([]);
  expect(await query(url, tables)).toEqual(before);
  expect(await versions(url, schema)).toEqual({ log: LOG_VERSION, derived: DERIVED_VERSION });
  return provider;
}

async function refusal(url: string, schema: string): Promise<IncompatibleDatabaseError> {
  const error = await openPostgres(url, { schema }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IncompatibleDatabaseError);
  expect((error as IncompatibleDatabaseError).code).toBe('incompatible');
  return error as IncompatibleDatabaseError;
}

/** How many triggers `events` has, and whether the function the old notify trigger ran is there. */
async function notifyTrigger(url: string, schema: string): Promise<{ triggers: number; functions: number }> {
  const [row] = await query<{ triggers: number; functions: number }>(
    url,
    `SELECT (SELECT count(*)::int FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = '${schema}' AND c.relname = 'events') AS triggers,
            (SELECT count(*)::int FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = '${schema}' AND p.proname = 'notify_events') AS functions`,
  );
  return row!;
}

const fixture = (name: string): string => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');

/** Loads the schema migrations 1 to 5 wrote (`fixtures/schema-005.sql`) under the name `schema`. */
async function loadOldSchema(url: string, schema: string): Promise<void> {
  await query(url, fixture('schema-005.sql').replaceAll('fixture_005', schema));
}

/** What the old schema answered to {@link reads} when main's code wrote it. */
const OLD_READS: unknown = JSON.parse(fixture('schema-005.reads.json'));

/** Reads of every kind of record the fixture holds, as plain JSON. */
async function reads(p: PostgresProvider): Promise<unknown> {
  const sessions = [...(await p.sessions.list({ limit: 100 }))];
  const turns: Record<string, unknown> = {};
  for (const s of sessions) turns[s.id] = [...(await p.sessions.turns(s.id, { limit: 100 }))];
  const theme = await p.memory.getByKey('theme');
  return JSON.parse(
    JSON.stringify({
      sessions,
      turns,
      sessionSearch: [...(await p.sessions.search({ query: 'cafe', scope: [] }))].map((h) => h.turn.id),
      skills: [...(await p.skills.list({ limit: 100 }))],
      skillSearch: [...(await p.skills.search('redeploy'))].map((s) => s.slug),
      memory: [...(await p.memory.recall({ limit: 100 }))],
      memoryLexical: [...(await p.memory.recall({ query: 'lisbon' }))].map((h) => h.id),
      themeHistory: await p.history(theme.id),
      checkpoints: await p.checkpoints.list({ threadId: 't1' }),
      latestCheckpoint: await p.checkpoints.get({ threadId: 't1', namespace: '' }),
      notes: await p.log.read({ stream: 'notes' }),
      head: await p.log.head('state'),
    }),
  );
}

describe('PostgreSQL schema creation', () => {
  it('creates a fresh schema at both versions in one step, and reopening folds nothing', async () => {
    const { url } = await testServer();
    const schema = freshSchema('fresh');
    const progress: unknown[] = [];
    const first = await openPostgres(url, { schema, onProgress: (done, total) => progress.push({ done, total }) });
    await first.memory.write({ content: 'kept across opens' });
    await first.close();
    const again = await openPostgres(url, { schema, onProgress: (done, total) => progress.push({ done, total }) });
    expect((await again.memory.recall({ query: 'kept' })).map((h) => h.content)).toEqual(['kept across opens']);
    await again.close();
    expect(progress).toEqual([]);
    expect(await versions(url, schema)).toEqual({ log: LOG_VERSION, derived: DERIVED_VERSION });
    expect(await query(url, `SELECT 1 FROM pg_tables WHERE schemaname = '${schema}' AND tablename = 'agentstate_migrations'`)).toEqual([]);
    await dropSchema(url, schema);
  });

  it('refuses a missing schema with create: false, creating nothing, and opens it once it exists', async () => {
    const { url } = await testServer();
    const schema = freshSchema('nocreate');
    for (const open of [openPostgres, openPostgresLog]) {
      const refused = await open(url, { schema, create: false }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(NotFoundError);
      expect(refused).toMatchObject({ entity: 'schema', key: schema });
    }
    expect(await query(url, `SELECT 1 FROM pg_namespace WHERE nspname = '${schema}'`)).toEqual([]);
    await (await openPostgres(url, { schema })).close();
    await (await openPostgres(url, { schema, create: false })).close();
    await (await openPostgresLog(url, { schema, create: false })).close();
    await dropSchema(url, schema);
  });

  it('lets eight processes open a fresh schema at once: one creates it, every one works', async () => {
    const { url } = await testServer();
    const schema = freshSchema('race');
    const providers = await Promise.all(Array.from({ length: 8 }, () => openPostgres(url, { schema, max: 2 })));
    await Promise.all(providers.map((p, i) => p.memory.write({ content: `fact ${i}` })));
    expect(await providers[0]!.memory.recall({ query: 'fact', limit: 100 })).toHaveLength(8);
    expect(await providers[0]!.log.head('state')).toBe(8);
    await Promise.all(providers.map((p) => p.close()));
    await dropSchema(url, schema);
  });

  it('refuses a schema holding another application\u2019s tables, unchanged', async () => {
    const { url } = await testServer();
    const schema = freshSchema('foreign');
    await query(url, `CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".users (id int PRIMARY KEY, name text)`);
    const before = await layout(url, schema);
    expect((await refusal(url, schema)).reason).toBe('not-agentstate');
    expect(await layout(url, schema)).toEqual(before);
    await dropSchema(url, schema);
  });

  it('refuses a schema whose log is of a newer version, or written by a newer migration, unchanged', async () => {
    const { url } = await testServer();
    const schema = freshSchema('newer');
    await (await openPostgres(url, { schema })).close();
    await query(url, `UPDATE "${schema}".${VERSIONS_TABLE} SET version = ${LOG_VERSION + 1} WHERE part = 'log'`);
    const before = await layout(url, schema);
    expect((await refusal(url, schema)).reason).toBe('newer-schema');
    expect(await layout(url, schema)).toEqual(before);
    await dropSchema(url, schema);

    await loadOldSchema(url, schema);
    await query(url, `INSERT INTO "${schema}".agentstate_migrations (version, name, checksum) VALUES (6, 'future', 'x')`);
    const old = await layout(url, schema);
    expect((await refusal(url, schema)).reason).toBe('newer-schema');
    expect(await layout(url, schema)).toEqual(old);
    await dropSchema(url, schema);
  });

  it('refuses a schema name that is not a plain identifier, before connecting', async () => {
    await expect(openPostgres('postgres://127.0.0.1:1/none', { schema: 'x"; DROP TABLE y; --' })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('A derived part of another version', () => {
  it('folds a schema written by migrations 1 to 5 again from its log: it reads the same and verifies', async () => {
    const { url } = await testServer();
    const schema = freshSchema('old');
    await loadOldSchema(url, schema);
    const progress: { done: number; total: number }[] = [];
    const provider = await openPostgres(url, { schema, onProgress: (done, total) => progress.push({ done, total }) });
    expect(progress.at(-1)).toEqual({ done: 19, total: 19 });
    expect(await reads(provider)).toEqual(OLD_READS);
    const report = await provider.verify();
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    // Stored snapshots are derived: the old one is gone, and the log's identity stayed.
    expect(await provider.log.latestSnapshot('state')).toBeUndefined();
    await provider.close();
    expect(await versions(url, schema)).toEqual({ log: LOG_VERSION, derived: DERIVED_VERSION });
    expect(await query(url, `SELECT 1 FROM pg_tables WHERE schemaname = '${schema}' AND tablename = 'agentstate_migrations'`)).toEqual([]);
    await dropSchema(url, schema);
  });

  it('drops every derived structure of another version and folds it again, leaving the log as it was', async () => {
    const { url } = await testServer();
    const schema = freshSchema('stale');
    await loadOldSchema(url, schema);
    await (await openPostgres(url, { schema })).close();
    const log = await query(url, `SELECT * FROM "${schema}".events ORDER BY stream, seq`);
    // A derived part of another version, whose rows are not the fold of the log.
    await query(
      url,
      `UPDATE "${schema}".${VERSIONS_TABLE} SET version = ${DERIVED_VERSION + 1} WHERE part = 'derived';
       DELETE FROM "${schema}".memory; CREATE INDEX stray ON "${schema}".memory (kind);`,
    );
    const progress: unknown[] = [];
    const provider = await openPostgres(url, { schema, onProgress: (done, total) => progress.push({ done, total }) });
    expect(progress).toEqual([{ done: 19, total: 19 }]);
    expect(await reads(provider)).toEqual(OLD_READS);
    expect((await provider.verify()).ok).toBe(true);
    await provider.close();
    expect(await versions(url, schema)).toEqual({ log: LOG_VERSION, derived: DERIVED_VERSION });
    expect(await query(url, `SELECT 1 FROM pg_indexes WHERE schemaname = '${schema}' AND indexname = 'stray'`)).toEqual([]);
    expect(await query(url, `SELECT * FROM "${schema}".events ORDER BY stream, seq`)).toEqual(log);
    await dropSchema(url, schema);
  });

  it('adds the origin columns to a log of version 3 whose tables are current in place, folding nothing, and then syncs', async () => {
    const { url, schema } = await writtenSchema('origins');
    await query(
      url,
      `DROP INDEX "${schema}".events_origin; ALTER TABLE "${schema}".events DROP COLUMN origin, DROP COLUMN origin_seq, DROP COLUMN origin_time;
       UPDATE "${schema}".${VERSIONS_TABLE} SET version = ${ORIGIN_UPGRADE_SINCE} WHERE part = 'log';`,
    );
    const provider = await openInPlace(url, schema);
    const other = createInMemoryProvider();
    await other.memory.write({ content: 'written elsewhere' });
    expect(await sync(provider, other)).toEqual({ toA: 1, toB: 1, merged: 0, batches: 2 });
    expect(await query(url, `SELECT origin, origin_seq::int AS seq FROM "${schema}".events WHERE origin IS NOT NULL`)).toEqual([
      { origin: await other.replicaId(), seq: 1 },
    ]);
    expect((await provider.verify()).ok).toBe(true);
    await provider.close();
    await other.close();
    await dropSchema(url, schema);
  });

  it('drops the write functions of a derived part of version 6 in place, folding nothing, and then appends', async () => {
    const { url, schema } = await writtenSchema('functions');
    const names = `SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = '${schema}' ORDER BY 1`;
    // Version 6's functions, by their signatures: the upgrade drops them by these.
    const stub = (signature: string) => `CREATE FUNCTION "${schema}".${signature} RETURNS void LANGUAGE sql AS 'SELECT NULL'`;
    await query(
      url,
      `${stub('lock_session(text)')}; ${stub('bump_session(text, bigint, bigint, text, text)')};
       ${stub('put_turn(text, bigint, text, text, text, text, text, text, bigint, text, bigint, bigint, text, boolean, text, text[])')};
       UPDATE "${schema}".${VERSIONS_TABLE} SET version = 6 WHERE part = 'derived';`,
    );
    expect(await query(url, names)).toHaveLength(4);
    const provider = await openInPlace(url, schema);
    expect(await query(url, names)).toEqual([{ proname: 'settled_position' }]);
    const session = await provider.sessions.create({ title: 'after the upgrade' });
    expect((await provider.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'appended' })).seq).toBe(1);
    await provider.close();
    await dropSchema(url, schema);
  });

  it('lets two processes open an old schema at once: one folds it, both read the same', async () => {
    const { url } = await testServer();
    const schema = freshSchema('twice');
    await loadOldSchema(url, schema);
    const progress: number[][] = [[], []];
    const providers = await Promise.all([0, 1].map((i) => openPostgres(url, { schema, max: 2, onProgress: (done) => progress[i]!.push(done) })));
    expect(progress.map((p) => p.length).sort()).toEqual([0, 1]);
    for (const provider of providers) expect(await reads(provider)).toEqual(OLD_READS);
    await Promise.all(providers.map((p) => p.close()));
    await dropSchema(url, schema);
  });

  it('upgrades the log of an old schema in place, and a log opened alone folds the derived part it made again', async () => {
    const { url } = await testServer();
    const schema = freshSchema('notify');
    await loadOldSchema(url, schema);
    expect(await notifyTrigger(url, schema)).toEqual({ triggers: 1, functions: 1 });
    const log = await openPostgresLog(url, { schema });
    expect(await log.head('state')).toBe(19);
    await log.close();
    // No trigger notifies from inside a write any more: writers wake subscribers after they commit.
    expect(await notifyTrigger(url, schema)).toEqual({ triggers: 0, functions: 0 });
    // The tables are always the fold of the log: the provider opens on a current schema, with nothing to fold.
    const progress: unknown[] = [];
    const provider = await openPostgres(url, { schema, onProgress: (done, total) => progress.push({ done, total }) });
    expect(progress).toEqual([]);
    expect(await reads(provider)).toEqual(OLD_READS);
    await provider.close();
    await dropSchema(url, schema);
  });

  it('creates no notify trigger on a fresh schema, and drops the one a log of version 2 has on open', async () => {
    const { url, schema } = await writtenSchema('unnotify');
    expect(await notifyTrigger(url, schema)).toEqual({ triggers: 0, functions: 0 });
    // As a schema of log version 2 was: a trigger notifying from inside every insert into events.
    await query(
      url,
      `CREATE FUNCTION "${schema}".notify_events() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('agentstate_events', TG_TABLE_SCHEMA); RETURN NULL; END $$;
       CREATE TRIGGER events_notify AFTER INSERT ON "${schema}".events FOR EACH STATEMENT EXECUTE FUNCTION "${schema}".notify_events();
       UPDATE "${schema}".${VERSIONS_TABLE} SET version = 2 WHERE part = 'log'`,
    );
    const provider = await openPostgres(url, { schema });
    expect((await provider.memory.recall({ query: 'kept' })).map((h) => h.content)).toEqual(['kept across the upgrade']);
    await provider.close();
    expect(await notifyTrigger(url, schema)).toEqual({ triggers: 0, functions: 0 });
    expect(await versions(url, schema)).toEqual({ log: LOG_VERSION, derived: DERIVED_VERSION });
    await dropSchema(url, schema);
  });
});
