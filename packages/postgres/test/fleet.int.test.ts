/**
 * A fleet of processes on one schema, through the built package: eight
 * writer processes making 300 mixed writes each at once (turns, memory,
 * upserts of and outcomes on shared skills) lose and duplicate nothing;
 * and a reader tailing the log while four writer processes run sees every
 * event exactly once, in position order.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { openPostgresLog } from '../src/index.js';
import { dropSchema, freshSchema, testServer } from './cluster.js';
import { expectExactly, finished, requireBuilt, startWriter } from './writers.js';

beforeAll(requireBuilt);

describe('a fleet of processes on one PostgreSQL schema', () => {
  it('8 processes × 300 mixed writes at once: nothing lost or duplicated, positions increasing, outcomes exact, tables = replay', async () => {
    const { url } = await testServer();
    const schema = freshSchema('fleet');
    const writers = Array.from({ length: 8 }, (_, w) => startWriter(url, schema, `w${w}`, 300));
    const acks = await finished(writers);
    expect(acks.map((a) => a.lines.length)).toEqual(Array(8).fill(300));
    await expectExactly(url, schema, acks);
    await dropSchema(url, schema);
  });

  it('a reader tailing the log while 4 writer processes run sees every event exactly once, in seq order', async () => {
    const { url } = await testServer();
    const schema = freshSchema('tail');
    const reader = await openPostgresLog(url, { schema, max: 1 });
    const writers = Array.from({ length: 4 }, (_, w) => startWriter(url, schema, `t${w}`, 150));
    let running = true;
    const all = finished(writers).finally(() => {
      running = false;
    });
    const seen: number[] = [];
    for (;;) {
      const stopped = !running;
      const events = await reader.read({ stream: 'state', afterSeq: seen.at(-1) ?? 0, limit: 25 });
      for (const event of events) seen.push(event.seq);
      if (stopped && events.length === 0) break;
    }
    const acks = await all;
    expect(seen).toEqual((await reader.read({ stream: 'state' })).map((e) => e.seq));
    expect(seen).toHaveLength(4 * 150);
    // The tail saw the log grow, not one read at the end.
    expect(seen.length).toBeGreaterThan(25);
    await reader.close();
    await expectExactly(url, schema, acks);
    await dropSchema(url, schema);
  });
});
