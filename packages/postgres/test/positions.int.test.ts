/**
 * The high-water-mark reader (docs/contract.md §7, "Positions") against a
 * real server: raw writer transactions that take the writers' lock, take
 * positions and commit or roll back in random interleavings, while a reader
 * follows the `state` stream with `read({ afterSeq })`. It never skips or
 * repeats an event: what it delivered is exactly the committed events, in
 * increasing position. An export of a gapped log numbers it densely.
 */
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { exportLog, formatInstant, type Log, ManualClock, STATE_STREAM } from '@agentstate/core';
import { EVENT_COLUMNS, ExportReader, prepareEvent } from '@agentstate/core/backend';
import { openPostgres, openPostgresLog } from '../src/index.js';
import type { PostgresProvider } from '../src/index.js';
import { fresh } from './helpers.js';

/** The instant the writers' clocks start from. */
const T0 = Date.UTC(2026, 0, 1, 12);

const WRITERS = 3;
const WRITERS_LOCK_KEY = 1_634_953_331;

/** One step of a writer: take a position (beginning its transaction when it has none), or end its transaction. */
const arbSteps = fc.array(fc.record({ writer: fc.nat(WRITERS - 1), end: fc.boolean(), commit: fc.boolean() }), { minLength: 1, maxLength: 25 });

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

/** A provider on a fresh schema, and `burn`, which takes a position as a write that rolled back would. */
async function gapped(): Promise<{ provider: PostgresProvider; burn: () => Promise<unknown>; close: () => Promise<void> }> {
  const { provider, url, schema, close } = await fresh();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  return {
    provider,
    burn: () => admin.query(`SELECT nextval('"${schema}".positions')`),
    close: async () => {
      await admin.end();
      await close();
    },
  };
}

/** The export of `log`, read `batchSize` events at a time. */
async function exported(log: Log, batchSize?: number): Promise<string> {
  let text = '';
  await exportLog(
    log,
    (chunk) => {
      text += chunk;
    },
    { batchSize },
  );
  return text;
}

describe('the high-water-mark reader', () => {
  it('property: whatever the interleaving of writers taking positions, committing and rolling back, a follower delivers exactly the committed events, each once, in increasing position', async () => {
    const { url, schema, close } = await fresh();
    const reader = await openPostgresLog(url, { schema, max: 1 });
    const clients = await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        return client;
      }),
    );
    try {
      await fc.assert(
        fc.asyncProperty(arbSteps, async (steps) => {
          const start = await reader.head(STATE_STREAM);
          const open = Array.from({ length: WRITERS }, () => [] as number[]);
          const committed: number[] = [];
          const delivered: number[] = [];
          let stopped = false;
          const follower = (async () => {
            for (;;) {
              const stopping = stopped;
              const events = await reader.read({ stream: STATE_STREAM, afterSeq: delivered.at(-1) ?? start });
              delivered.push(...events.map((e) => e.seq));
              if (stopping) return;
              await tick();
            }
          })();
          const end = async (w: number, commit: boolean): Promise<void> => {
            await clients[w]!.query(commit ? 'COMMIT' : 'ROLLBACK');
            if (commit) committed.push(...open[w]!);
            open[w] = [];
          };
          for (const step of [...steps, ...clients.map((_, writer) => ({ writer, end: true, commit: true }))]) {
            const client = clients[step.writer]!;
            const taken = open[step.writer]!;
            if (step.end) {
              if (taken.length > 0) await end(step.writer, step.commit);
            } else {
              if (taken.length === 0) await client.query(`BEGIN; SELECT pg_advisory_xact_lock_shared(${WRITERS_LOCK_KEY}, hashtext('"${schema}"'))`);
              const [{ seq }] = (await client.query(`SELECT nextval('"${schema}".positions')::int AS seq`)).rows as [{ seq: number }];
              const { values } = prepareEvent(
                { stream: STATE_STREAM, type: 'test.step', payload: {} },
                seq,
                () => '2026-01-01T00:00:00.000Z',
                () => undefined,
              );
              await client.query(
                `INSERT INTO "${schema}".events (${EVENT_COLUMNS}, validated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, true)`,
                values,
              );
              taken.push(seq);
            }
            await tick();
          }
          stopped = true;
          await follower;
          expect(delivered).toEqual([...committed].sort((a, b) => a - b));
        }),
        { numRuns: 25 },
      );
    } finally {
      for (const client of clients) await client.end();
      await reader.close();
      await close();
    }
  });

  it('an export raises a time that goes back along the positions to the latest before it, and reads back', async () => {
    const { provider, url, schema, close } = await fresh({ clock: new ManualClock(T0 + 10_000) });
    // A second writer whose clock is ten seconds behind: its later position carries an earlier time.
    const behind = await openPostgres(url, { schema, clock: new ManualClock(T0) });
    try {
      await provider.memory.write({ content: 'ahead' });
      await behind.memory.write({ content: 'behind' });
      const times = (await provider.log.read({ stream: STATE_STREAM })).map((e) => e.time);
      expect(times).toEqual([formatInstant(T0 + 10_000), formatInstant(T0)]);
      let text = '';
      await exportLog(provider.log, (chunk) => {
        text += chunk;
      });
      const lines = text.trim().split('\n');
      const state = lines.map((l) => JSON.parse(l) as { stream?: string; time?: string }).filter((l) => l.stream === STATE_STREAM);
      expect(state.map((l) => l.time)).toEqual([formatInstant(T0 + 10_000), formatInstant(T0 + 10_000)]);
      const reader = new ExportReader();
      for (const line of lines) reader.read(line);
      reader.finish();
      expect(
        reader.state
          .capture()
          .memory.map((m) => m.content)
          .sort(),
      ).toEqual(['ahead', 'behind']);
    } finally {
      await behind.close();
      await close();
    }
  });

  it('an export of a log with gaps numbers its events densely, erasedBy marks with them', async () => {
    const { provider, burn, close } = await gapped();
    try {
      const item = await provider.memory.write({ content: 'forget me' });
      await burn();
      await provider.memory.update(item.id, { content: 'forget me too' });
      await burn();
      await burn();
      const purge = await provider.purge({ id: item.id, reason: 'asked' });
      const seqs = (await provider.log.read({ stream: STATE_STREAM })).map((e) => e.seq);
      expect(seqs).toEqual([1, 3, 6]);
      expect(purge.seq).toBe(6);
      const text = await exported(provider.log);
      // Batches of one: the marks point past their batch, to positions read ahead.
      expect(await exported(provider.log, 1)).toBe(text);
      const lines = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { stream?: string; seq?: number; payload?: { erasedBy?: number } })
        .filter((l) => l.stream === STATE_STREAM);
      expect(lines.map((l) => [l.seq, l.payload?.erasedBy])).toEqual([
        [1, 3],
        [2, 3],
        [3, undefined],
      ]);
      expect((await provider.verify()).ok).toBe(true);
      expect((await provider.at({ seq: 5 })).seq).toBe(5);
      expect(await (await provider.at({ seq: 5 })).memory.getAny(item.id)).toMatchObject({ content: '[erased]' });
    } finally {
      await close();
    }
  });

  it('an export of a log with gaps and no erasedBy mark reads each event once', async () => {
    const { provider, burn, close } = await gapped();
    try {
      for (let i = 0; i < 5; i += 1) {
        await provider.memory.write({ content: `fact ${i}` });
        await burn();
      }
      const log = provider.log;
      let read = 0;
      const counted = Object.assign(Object.create(log) as typeof log, {
        read: async (options: Parameters<typeof log.read>[0]) => {
          const events = await log.read(options);
          if (options.stream === STATE_STREAM) read += events.length;
          return events;
        },
      });
      const lines = (await exported(counted, 2)).trim().split('\n');
      expect(lines.map((l) => (JSON.parse(l) as { seq?: number }).seq)).toEqual([1, 2, 3, 4, 5, undefined]);
      expect(read).toBe(5);
    } finally {
      await close();
    }
  });
});
