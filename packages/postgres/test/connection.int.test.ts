/**
 * Connection faults: a server that cannot be reached is a typed, retryable
 * error at open, never a hang; a closed provider refuses further calls with
 * a `ClosedError`; an application's pool is left open by `close`.
 */
import { createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ClosedError } from '@agentstate/core';
import { ConnectionLostError, openPostgres } from '../src/index.js';
import { Database } from '../src/database.js';
import { dropSchema, freshSchema, testServer } from './cluster.js';

/** A port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 1));
    });
  });
}

describe('PostgreSQL connections', () => {
  it('fails to open with a retryable ConnectionLostError when the server cannot be reached', async () => {
    const port = await closedPort();
    const error = await openPostgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { connectTimeoutMs: 2_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectionLostError);
    expect((error as ConnectionLostError).retryable).toBe(true);
  });

  it('refuses calls after close with a ClosedError, and leaves an application pool open', async () => {
    const { url } = await testServer();
    const schema = freshSchema('pool');
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const provider = await openPostgres(pool, { schema });
    await provider.memory.write({ content: 'before close' });
    await provider.close();
    await expect(provider.memory.recall({ query: 'before' })).rejects.toBeInstanceOf(ClosedError);
    await expect(provider.log.head('state')).rejects.toBeInstanceOf(ClosedError);
    // The application's pool still works.
    expect((await pool.query(`SELECT count(*)::int AS n FROM "${schema}".memory`)).rows[0]).toEqual({ n: 1 });
    await pool.end();
    await dropSchema(url, schema);
  });

  it('turns a connection cut inside a transaction, between statements, into a ConnectionLostError, not a crash of the process', async () => {
    const { url } = await testServer();
    const db = new Database(new pg.Pool({ connectionString: url, max: 1 }), 'public', true);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const error = await db
      .transaction(async (sql) => {
        const [{ pid }] = (await sql.rows<{ pid: number }>('SELECT pg_backend_pid() AS pid')) as [{ pid: number }];
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        // The client learns of the cut while no query of it runs: an error event with no listener would end the process.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await sql.rows('SELECT 1');
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ConnectionLostError);
    // The pool replaced the cut connection.
    expect(await db.rows('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await admin.end();
    await db.close();
  });
});
