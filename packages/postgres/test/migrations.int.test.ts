/**
 * Schema identification and migrations: a fresh schema is created at the
 * latest version, processes opening it together never race, an older
 * schema migrates, and a foreign or newer one (or a changed migration) is
 * refused with an `IncompatibleDatabaseError`, left exactly as it was.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@agentstate/core';
import { IncompatibleDatabaseError, MIGRATIONS_TABLE, openPostgres, SCHEMA_VERSION } from '../src/index.js';
import { Database } from '../src/database.js';
import { MIGRATIONS, migrate } from '../src/migrations/index.js';
import type { Migration } from '../src/migrations/index.js';
import { dropSchema, freshSchema, testServer } from './cluster.js';

async function query<R>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as R[];
  } finally {
    await client.end();
  }
}

/** Every table of a schema with its columns, to prove a refused open changed nothing. */
async function layout(url: string, schema: string): Promise<unknown> {
  return query(url, `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = '${schema}' ORDER BY 1, 2`);
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

describe('PostgreSQL schema migrations', () => {
  it('creates a fresh schema at the latest version, and reopening applies nothing', async () => {
    const { url } = await testServer();
    const schema = freshSchema('mig');
    await (await openPostgres(url, { schema })).close();
    await (await openPostgres(url, { schema })).close();
    const rows = await query<{ version: number }>(url, `SELECT version FROM "${schema}".${MIGRATIONS_TABLE} ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    await dropSchema(url, schema);
  });

  it('lets eight processes open a fresh schema at once: one migrates, every one works', async () => {
    const { url } = await testServer();
    const schema = freshSchema('race');
    const providers = await Promise.all(Array.from({ length: 8 }, () => openPostgres(url, { schema, max: 2 })));
    await Promise.all(providers.map((p, i) => p.memory.write({ content: `fact ${i}` })));
    expect(await providers[0]!.memory.recall({ query: 'fact', limit: 100 })).toHaveLength(8);
    expect(await providers[0]!.log.head('state')).toBe(8);
    await Promise.all(providers.map((p) => p.close()));
    const rows = await query(url, `SELECT version FROM "${schema}".${MIGRATIONS_TABLE}`);
    expect(rows).toHaveLength(SCHEMA_VERSION);
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

  it('refuses a schema of a newer version, and one whose applied migration changed, unchanged', async () => {
    const { url } = await testServer();
    const schema = freshSchema('newer');
    await (await openPostgres(url, { schema })).close();
    await query(url, `INSERT INTO "${schema}".${MIGRATIONS_TABLE} (version, name, checksum) VALUES (${SCHEMA_VERSION + 1}, 'future', 'x')`);
    const before = await layout(url, schema);
    expect((await refusal(url, schema)).reason).toBe('newer-schema');
    expect(await layout(url, schema)).toEqual(before);
    await query(url, `DELETE FROM "${schema}".${MIGRATIONS_TABLE} WHERE version = ${SCHEMA_VERSION + 1}`);
    await query(url, `UPDATE "${schema}".${MIGRATIONS_TABLE} SET checksum = 'edited' WHERE version = 1`);
    expect((await refusal(url, schema)).reason).toBe('migration-changed');
    await dropSchema(url, schema);
  });

  it('migrates an older schema forward, keeping its data', async () => {
    const { url } = await testServer();
    const schema = freshSchema('older');
    const provider = await openPostgres(url, { schema });
    await provider.memory.write({ content: 'kept across the migration' });
    await provider.close();
    // A later version of the library: one more migration.
    const next: Migration = { version: MIGRATIONS.length + 1, name: 'next', sql: 'CREATE TABLE {schema}.added (id int)' };
    const db = new Database(new pg.Pool({ connectionString: url, max: 1 }), schema, true);
    expect(await migrate(db, { migrations: [...MIGRATIONS, next] })).toEqual([next.version]);
    expect(await migrate(db, { migrations: [...MIGRATIONS, next] })).toEqual([]);
    await db.close();
    const rows = await query<{ content: string }>(url, `SELECT content FROM "${schema}".memory`);
    expect(rows.map((r) => r.content)).toEqual(['kept across the migration']);
    expect(await query(url, `SELECT * FROM "${schema}".added`)).toEqual([]);
    await dropSchema(url, schema);
  });

  it('keeps the snapshots of a version 1 schema when their data becomes bytes (migration 3)', async () => {
    const { url } = await testServer();
    const schema = freshSchema('snap');
    const db = new Database(new pg.Pool({ connectionString: url, max: 1 }), schema, true);
    await migrate(db, { target: 1 });
    await db.rows(`INSERT INTO "${schema}".snapshots (stream, seq, data) VALUES ('state', 0, $1)`, ['{"kept": "😀 שלום"}']);
    await db.close();
    const provider = await openPostgres(url, { schema });
    expect(await provider.log.latestSnapshot('state')).toEqual({ stream: 'state', seq: 0, data: '{"kept": "😀 שלום"}' });
    await provider.close();
    await dropSchema(url, schema);
  });

  it('refuses a schema name that is not a plain identifier, before connecting', async () => {
    await expect(openPostgres('postgres://127.0.0.1:1/none', { schema: 'x"; DROP TABLE y; --' })).rejects.toBeInstanceOf(ValidationError);
  });
});
