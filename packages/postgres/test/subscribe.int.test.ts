/**
 * The live tail: a subscriber sees every event after its start exactly
 * once and in seq order while writers run — those committed before it
 * listened (caught up), those during, and those after its listening
 * connection was killed (re-listened and caught up).
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Log, LogEvent } from '@agentstate/core';
import { exportLog, STATE_STREAM } from '@agentstate/core';
import { EVENTS_CHANNEL, importPostgres, LISTENERS_LOCK_KEY, listenSql, openPostgres, openPostgresLog } from '../src/index.js';
import type { PostgresProvider, Subscription } from '../src/index.js';
import { fresh } from './helpers.js';

/** A poll too slow to matter: the events must come by notification. */
const NO_POLL = 600_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Collects a subscription's events until `count` arrived. */
async function collect(subscription: Subscription, count: number): Promise<LogEvent[]> {
  const seen: LogEvent[] = [];
  if (count === 0) return seen;
  for await (const event of subscription) {
    seen.push(event);
    if (seen.length === count) break;
  }
  return seen;
}

async function writer(provider: PostgresProvider, n: number, label: string): Promise<void> {
  const session = await provider.sessions.create({ title: label });
  for (let i = 0; i < n; i += 1) await provider.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `${label} ${i}` });
}

function expectDense(events: readonly LogEvent[], from: number, to: number): void {
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: to - from + 1 }, (_, i) => from + i));
}

describe('subscribe', () => {
  it('delivers every event exactly once in seq order while 4 writers run, including those before it listened', async () => {
    const { provider, url, schema, close } = await fresh();
    cleanups.push(close);
    // Events already committed when the subscription starts after seq 0 are caught up.
    await writer(provider, 5, 'early');
    const subscription = provider.subscribe({ afterSeq: 0, pollMs: NO_POLL });
    cleanups.push(() => subscription.close());
    const writers = await Promise.all([0, 1, 2, 3].map(() => openPostgres(url, { schema, max: 2 })));
    for (const w of writers) cleanups.push(() => w.close());
    const perWriter = 40;
    // Each writer creates a session (1 event) and appends its turns.
    const total = 6 + 4 * (perWriter + 1);
    const seen = collect(subscription, total);
    await Promise.all(writers.map((w, i) => writer(w, perWriter, `w${i}`)));
    const events = await seen;
    expectDense(events, 1, total);
    expect(await provider.log.head(STATE_STREAM)).toBe(total);
    expect(subscription.lastSeq).toBe(total);
  });

  it('starts at the head by default, and follows another stream when asked', async () => {
    const { provider, close } = await fresh();
    cleanups.push(close);
    await writer(provider, 3, 'before');
    const head = await provider.log.head(STATE_STREAM);
    const subscription = provider.log.subscribe({ pollMs: NO_POLL });
    cleanups.push(() => subscription.close());
    const seen = collect(subscription, 2);
    // The subscription reads its starting head before the writes: written earlier, they would be before its start.
    await waitFor(async () => subscription.lastSeq === head);
    await writer(provider, 1, 'after');
    expectDense(await seen, head + 1, head + 2);

    const other = provider.log.subscribe({ stream: 'audit', afterSeq: 0, pollMs: NO_POLL });
    cleanups.push(() => other.close());
    const audit = collect(other, 2);
    await provider.log.append({ stream: 'audit', type: 'note', payload: { n: 1 } });
    await provider.log.append({ stream: 'audit', type: 'note', payload: { n: 2 } });
    expect((await audit).map((e) => [e.stream, e.seq, e.payload])).toEqual([
      ['audit', 1, { n: 1 }],
      ['audit', 2, { n: 2 }],
    ]);
  });

  it('re-listens and catches up when its listening connection is killed', async () => {
    const { provider, url, schema, close } = await fresh();
    cleanups.push(close);
    const subscription = provider.subscribe({ afterSeq: 0, reconnectMs: 50, pollMs: NO_POLL });
    cleanups.push(() => subscription.close());
    const seen = collect(subscription, 1 + 10 + 1 + 10);
    await writer(provider, 10, 'first');
    await waitFor(async () => subscription.lastSeq === 11);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const killed = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1', [listenSql(schema)]);
      expect(killed.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    // Written while the listener is gone: announced to nobody, read on the catch-up.
    await writer(provider, 10, 'second');
    expectDense(await seen, 1, 22);
  });

  it('is woken by every write path of other processes, with no trigger on events: an import, a store write, a purge, a bare append', async () => {
    const source = await fresh();
    cleanups.push(source.close);
    await writer(source.provider, 2, 'exported');
    let text = '';
    await exportLog(source.provider.log as Log, (chunk) => {
      text += chunk;
    });
    const { provider, url, schema, close } = await fresh();
    cleanups.push(close);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const found = await admin.query(
        `SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relname = 'events'`,
        [schema],
      );
      expect(found.rows).toEqual([]);
    } finally {
      await admin.end();
    }
    const subscription = provider.subscribe({ afterSeq: 0, pollMs: NO_POLL });
    cleanups.push(() => subscription.close());
    const state = subscription[Symbol.asyncIterator]();
    const audit = provider.log.subscribe({ stream: 'audit', afterSeq: 0, pollMs: NO_POLL });
    cleanups.push(() => audit.close());
    const seqs = async (events: AsyncIterator<LogEvent>, count: number): Promise<number[]> => {
      const out: number[] = [];
      while (out.length < count) out.push(((await events.next()).value as LogEvent).seq);
      return out;
    };

    await importPostgres(url, text.split('\n').slice(0, -1), { schema });
    expect(await seqs(state, 3)).toEqual([1, 2, 3]);
    const other = await openPostgres(url, { schema, max: 2 });
    cleanups.push(() => other.close());
    const item = await other.memory.write({ content: 'woken' });
    expect(await seqs(state, 1)).toEqual([4]);
    await other.purge({ id: item.id, reason: 'test' });
    expect(await seqs(state, 1)).toEqual([5]);
    const bare = await openPostgresLog(url, { schema });
    cleanups.push(() => bare.close());
    await bare.appendMany([{ stream: 'audit', type: 'note', payload: { n: 1 } }]);
    expect(await seqs(audit[Symbol.asyncIterator](), 1)).toEqual([1]);
  });

  it('announces a write that appended while a listener is registered, no write that appended nothing, and a burst at most once per interval', async () => {
    const { provider, url, schema, close } = await fresh();
    cleanups.push(close);
    const session = await provider.sessions.create({ title: 'announced' });
    await provider.memory.write({ content: 'once', operationId: 'write-1' });
    await provider.close();
    // Counts this schema's notifications from here on; the listener's own marker, committed after every
    // notification of the writes below, arrives after them.
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    cleanups.push(() => listener.end());
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    /** How many notifications `write` and the close after it sent, and the milliseconds they took. */
    const announced = async (write: (db: PostgresProvider) => Promise<unknown>): Promise<{ count: number; ms: number }> => {
      heard.length = 0;
      const db = await openPostgres(url, { schema });
      const start = performance.now();
      await write(db);
      await db.close(); // sends its notifications first
      const ms = performance.now() - start;
      await listener.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, 'marker']);
      await waitFor(async () => heard.includes('marker'));
      return { count: heard.filter((payload) => payload === schema).length, ms };
    };
    // Listening without the listeners' lock: no writer knows of the listener, and none notifies.
    const twice = (db: PostgresProvider) => db.memory.write({ content: 'twice' });
    expect((await announced(twice)).count).toBe(0);
    await listener.query(listenSql(schema));
    expect((await announced((db) => db.sessions.appendTurns(session.id, []))).count).toBe(0);
    expect((await announced((db) => db.memory.write({ content: 'once', operationId: 'write-1' }))).count).toBe(0);
    expect((await announced(twice)).count).toBe(1);
    // A burst of writes sends one at its start and at most one per 10 ms after, however fast the writes, and the close one
    // for the commits since the last, without waiting out its interval.
    const burst = await announced(async (db) => {
      for (let i = 0; i < 40; i += 1) await db.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `burst ${i}` });
    });
    expect(burst.count).toBeGreaterThanOrEqual(1);
    expect(burst.count).toBeLessThanOrEqual(Math.floor(burst.ms / 10) + 2);
    // Unregistered, it is not woken again.
    await listener.query(`SELECT pg_advisory_unlock_shared(${LISTENERS_LOCK_KEY}, hashtext($1))`, [`"${schema}"`]);
    expect((await announced(twice)).count).toBe(0);
  });

  it('ends a waiting iteration on close', async () => {
    const { provider, close } = await fresh();
    cleanups.push(close);
    const subscription = provider.subscribe();
    const loop = collect(subscription, 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await subscription.close();
    expect(await loop).toEqual([]);
  });
});

/** Resolves once `check` holds; no deadline of its own, since a busy machine may take long (the test's timeout catches a hang). */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}
