/**
 * The server crashes under load: it is stopped with `pg_ctl stop -m
 * immediate` while writer processes are in their write loops, and started
 * again. During the outage a write fails with a typed, retryable
 * `ConnectionLostError` (never a hang); afterwards the clients recover,
 * every acknowledged write is there, none is applied twice or half, and the
 * tables equal a replay of the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionLostError, openPostgres } from '../src/index.js';
import { dropSchema, freshSchema } from './cluster.js';
import { type OwnCluster, startCluster } from './start-cluster.js';
import { expectExactly, finished, requireBuilt, startWriter } from './writers.js';

beforeAll(requireBuilt);

// The test crashes its server: a cluster of its own, not the run's that other files use. Where the tests are given a
// server by URL (no binaries to start one), it is skipped; CI has the binaries.
const givenServer = process.env.AGENTSTATE_TEST_POSTGRES_URL !== undefined && process.env.AGENTSTATE_TEST_POSTGRES_URL !== '';
let own: OwnCluster | undefined;
afterAll(async () => {
  await own?.stop();
});

describe('a PostgreSQL server crashing under load', () => {
  it.skipIf(givenServer)('loses no acknowledged write, applies none twice or half, and its clients fail with a retryable error, then recover', async () => {
    // The test clusters run with synchronous_commit off, which may lose the last commits in a crash; a real deployment keeps it on.
    own = await startCluster(['synchronous_commit=on']);
    const server = own;
    const { url } = server;
    const schema = freshSchema('crash');
    // The library's own timeouts: a shorter one would fail on a loaded machine, and the outage is met as a refused connection.
    const observer = await openPostgres(url, { schema, max: 1 });
    const before = await observer.memory.write({ content: 'before the crash' });
    let acked = 0;
    let crashAt: () => void = () => undefined;
    const loaded = new Promise<void>((resolve) => {
      crashAt = resolve;
    });
    const writers = Array.from({ length: 3 }, (_, w) =>
      startWriter(url, schema, `c${w}`, 200, () => {
        acked += 1;
        if (acked === 90) crashAt();
      }),
    );
    await loaded;
    server.crash();
    const ackedAtCrash = acked;
    // During the outage a write fails with a typed, retryable error: the server comes back only after it has.
    const error = await observer.memory.write({ content: 'during the outage' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectionLostError);
    expect((error as ConnectionLostError).retryable).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    server.restart();
    const acks = await finished(writers);
    expect(ackedAtCrash).toBeLessThan(600);
    // The writers met the outage as retryable network errors, then finished.
    expect(acks.reduce((n, a) => n + (a.retries.get('network') ?? 0), 0)).toBeGreaterThan(0);
    expect(acks.map((a) => a.lines.length)).toEqual([200, 200, 200]);
    // The observer recovers too: its pool replaces the connections the crash cut.
    const after = await observer.memory.write({ content: 'after the restart' });
    await observer.close();
    await expectExactly(url, schema, [
      ...acks,
      {
        lines: [
          ['memory', before.id],
          ['memory', after.id],
        ],
        retries: new Map(),
      },
    ]);
    await dropSchema(url, schema);
  });
});
