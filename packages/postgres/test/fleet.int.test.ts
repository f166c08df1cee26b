/**
 * A fleet of processes on one schema, through the built package: sixteen
 * writer processes making 300 mixed writes each at once (turns, memory with
 * keys, deletes, upserts of and outcomes on shared skills), four of them
 * killed with SIGKILL mid-way and the server stopped as a crash would stop
 * it (`pg_ctl stop -m immediate`) and started again once. The writers retry
 * what fails retryably under the same operation ids, as a user would:
 * afterwards nothing acknowledged is lost or doubled, nothing
 * unacknowledged is there twice, outcome counts are exact, turn numbers
 * dense per session, the tables equal a replay of the log and `verify`
 * finds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, freshSchema } from './cluster.js';
import { type OwnCluster, startCluster } from './start-cluster.js';
import type { Writer } from './writers.js';
import { expectExactly, finished, requireBuilt, startWriter } from './writers.js';

beforeAll(requireBuilt);

const WRITERS = 16;
const WRITES = 300;
/** Writers killed, each once it has this many acknowledgements. */
const KILLED = 4;
const KILL_AT = 100;
/** The server crashes once the fleet has this many acknowledgements. */
const CRASH_AT = 1_500;
/** A guard against a hang, not a bound on speed: on a loaded 2-core machine the fleet takes well over the default. */
const HANG_GUARD_MS = 1_800_000;

// The test crashes its server: a cluster of its own, not the run's that other files use. Where the tests are given a
// server by URL (no binaries to start one), it is skipped; CI has the binaries.
const givenServer = process.env.AGENTSTATE_TEST_POSTGRES_URL !== undefined && process.env.AGENTSTATE_TEST_POSTGRES_URL !== '';
let own: OwnCluster | undefined;
afterAll(async () => {
  await own?.stop();
});

describe('a fleet of processes on one PostgreSQL schema', () => {
  it.skipIf(givenServer)(
    `${WRITERS} processes × ${WRITES} mixed writes, ${KILLED} killed and the server crashed once: nothing acknowledged lost or doubled, outcomes exact, tables = replay`,
    async () => {
      // The test clusters run with synchronous_commit off, which may lose the last commits in a crash; a real deployment keeps it on.
      own = await startCluster(['synchronous_commit=on']);
      const server = own;
      const { url } = server;
      const schema = freshSchema('fleet');
      const killed = new Set<Writer>();
      let total = 0;
      let restarted: Promise<void> | undefined;
      const writers: Writer[] = [];
      for (let w = 0; w < WRITERS; w += 1) {
        const writer = startWriter(url, schema, `w${w}`, WRITES, (acks) => {
          total += 1;
          if (w < KILLED && acks.lines.length === KILL_AT) {
            killed.add(writer);
            writer.child.kill('SIGKILL');
          }
          if (total === CRASH_AT) {
            server.crash();
            restarted = new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => server.restart());
          }
        });
        writers.push(writer);
      }
      const acks = await finished(writers, killed);
      await restarted;
      expect(restarted).toBeDefined();
      expect(killed.size).toBe(KILLED);
      // A killed writer's acknowledgements already in the pipe when it died still count.
      for (const [w, a] of acks.entries()) expect(a.lines.length, `w${w}`).toBe(killed.has(writers[w]!) ? Math.min(a.lines.length, WRITES - 1) : WRITES);
      expect(acks.slice(0, KILLED).map((a) => a.lines.length >= KILL_AT)).toEqual(Array(KILLED).fill(true));
      // The writers met the outage as retryable network errors, then finished.
      expect(acks.reduce((n, a) => n + (a.retries.get('network') ?? 0), 0)).toBeGreaterThan(0);
      await expectExactly(url, schema, acks, KILLED);
      await dropSchema(url, schema);
    },
    HANG_GUARD_MS,
  );
});
