/**
 * Connection faults: a server that cannot be reached is a typed, retryable
 * error at open, never a hang; one that accepts the connection and never
 * answers fails within `connectTimeoutMs`; a write stuck behind another
 * transaction's lock fails after `statementTimeoutMs` with a retryable
 * `StatementTimeoutError` and applies nothing; the pool made from a URL runs
 * its sessions with `jit` off; a closed provider refuses
 * further calls with a `ClosedError`; an application's pool is left open by
 * `close`.
 */
import type { Socket } from 'node:net';
import { createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ClosedError } from '@agentstate/core';
import { ConnectionLostError, openPostgres, StatementTimeoutError } from '../src/index.js';
import { Database, openPool } from '../src/database.js';
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

/** A server on 127.0.0.1 that accepts connections and never says a word, as a stalled server or a dropped route would. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 1,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('PostgreSQL connections', () => {
  it('gives up on a server that never answers after connectTimeoutMs, with a retryable error', async () => {
    const silent = await silentServer();
    try {
      const started = performance.now();
      // Longer than the library's default (10 s): a wait at least this long shows the option was honoured, with no
      // upper bound that a loaded machine could overrun.
      const error = await openPostgres(`postgres://postgres@127.0.0.1:${silent.port}/postgres`, { connectTimeoutMs: 10_500 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      const elapsed = performance.now() - started;
      // Waiting for a connection timed out: the same retryable error as a statement that timed out.
      expect(error).toBeInstanceOf(StatementTimeoutError);
      expect((error as StatementTimeoutError).retryable).toBe(true);
      // Honoured: not the driver's default (none: no error at all) nor the library's (10 s).
      expect(elapsed).toBeGreaterThanOrEqual(10_450);
    } finally {
      await silent.close();
    }
  });

  it('fails a write stuck behind a held lock after statementTimeoutMs, retryable, and applies nothing', async () => {
    const { url } = await testServer();
    const schema = freshSchema('timeout');
    // Only the writes under test run with the short timeout: creating the schema or verifying it may take longer on a loaded machine.
    const provider = await openPostgres(url, { schema, max: 2 });
    await provider.memory.write({ content: 'before the lock' });
    const timed = await openPostgres(url, { schema, max: 2, statementTimeoutMs: 500 });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // Another process holds the writers' lock exclusive (as a purge does) for longer than the timeout.
      await admin.query('BEGIN');
      await admin.query(`SELECT pg_advisory_xact_lock(1634953331, hashtext('"${schema}"'))`);
      // The lock is held until after the write returns: only the statement timeout can end it.
      const error = await timed.memory.write({ content: 'behind the lock' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StatementTimeoutError);
      expect((error as StatementTimeoutError).retryable).toBe(true);
      await admin.query('ROLLBACK');
      expect(await provider.log.head('state')).toBe(1);
      // The retry goes through once the lock is released.
      await timed.memory.write({ content: 'behind the lock' });
      expect((await provider.memory.recall({ query: 'lock' })).map((h) => h.content).sort()).toEqual(['before the lock', 'behind the lock']);
      expect((await provider.verify()).ok).toBe(true);
    } finally {
      await admin.end();
      await timed.close();
      await provider.close();
      await dropSchema(url, schema);
    }
  });

  it('runs the sessions of the pool it makes from a URL with jit off', async () => {
    const { url } = await testServer();
    const { pool } = openPool(url, { max: 2 });
    // Two sessions at once: each new connection, not the first alone.
    const clients = await Promise.all([pool.connect(), pool.connect()]);
    try {
      const settings = await Promise.all(clients.map((client) => client.query<{ jit: string }>('SHOW jit')));
      expect(settings.map((result) => result.rows)).toEqual([[{ jit: 'off' }], [{ jit: 'off' }]]);
    } finally {
      for (const client of clients) client.release();
      await pool.end();
    }
  });

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
