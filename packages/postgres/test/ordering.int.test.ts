/**
 * Ordering under concurrency: several providers (separate pools, as
 * separate processes would have) write to one schema at once while a reader
 * follows the log. Writers run in parallel and commit out of position
 * order; the reader reads up to the high-water mark, so it sees every event
 * exactly once, in order, never skipping one that commits later with a
 * lower position; the tables equal a replay of the log.
 */
import { describe, expect, it } from 'vitest';
import type { Clock } from '@agentstate/core';
import { createInMemoryProvider, encodeSnapshot, replay } from '@agentstate/core';

const HOUR = 3_600_000;
import { openPostgres, openPostgresLog } from '../src/index.js';
import { fresh } from './helpers.js';

describe('PostgreSQL ordering under concurrent writers', () => {
  it('lets a tailing reader see every event once, in increasing position, while writers commit in parallel', async () => {
    const { url, schema, close } = await fresh();
    const writers = await Promise.all(Array.from({ length: 4 }, () => openPostgres(url, { schema, max: 3 })));
    const reader = await openPostgresLog(url, { schema, max: 1 });
    const seen: number[] = [];
    let done = false;
    const tail = (async () => {
      for (;;) {
        const finished = done;
        const events = await reader.read({ stream: 'state', afterSeq: seen.at(-1) ?? 0, limit: 50 });
        for (const event of events) seen.push(event.seq);
        if (finished && events.length === 0) return;
      }
    })();
    const perWriter = 40;
    await Promise.all(
      writers.map(async (p, w) => {
        const session = await p.sessions.create({ title: `writer ${w}` });
        for (let i = 0; i < perWriter; i += 1) {
          if (i % 4 === 0) await p.skills.upsert({ slug: 'shared', name: 'shared', body: `v${w}.${i}` });
          else if (i % 4 === 1) await p.skills.recordOutcome('shared', { success: i % 8 === 1 });
          else if (i % 4 === 2) await p.memory.write({ content: `fact ${w} ${i}`, key: `k${i % 3}` });
          else await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `turn ${w} ${i}` });
        }
      }),
    );
    done = true;
    await tail;
    expect(seen).toEqual((await reader.read({ stream: 'state' })).map((e) => e.seq));
    expect(seen.at(-1)).toBe(await reader.head('state'));
    // Every write is an event: sessions, upserts (first ones create), outcomes, memory and turns.
    expect(seen).toHaveLength(4 * (1 + perWriter));
    const skill = await writers[0]!.skills.get('shared');
    expect(skill.uses).toBe(4 * (perWriter / 4));
    expect(skill.wins).toBe(4 * (perWriter / 8));
    // The tables equal a replay of the log.
    const replayed = await replay(reader, { fromScratch: true });
    expect(encodeSnapshot(await writers[0]!.snapshot())).toBe(encodeSnapshot(await replayed.snapshot()));
    await Promise.all(writers.map((p) => p.close()));
    await reader.close();
    await replayed.close();
    await close();
  });

  it('projects what a bare log appends to the state stream in the append itself, seen by an open provider and a new one', async () => {
    const source = createInMemoryProvider();
    await source.memory.write({ content: 'appended through the log' });
    await source.sessions.create({ title: 'also appended' });
    const { url, schema, provider, close } = await fresh();
    const log = await openPostgresLog(url, { schema, max: 1 });
    await log.appendMany(await source.log.read({ stream: 'state' }));
    // Projected by the append, with every writer held off: the open provider reads them and writes after them.
    await provider.memory.write({ content: 'written after' });
    expect((await provider.memory.recall({ query: 'appended', limit: 10 })).map((m) => m.content)).toEqual(['appended through the log']);
    expect(await log.head('state')).toBe(3);
    const reopened = await openPostgres(url, { schema });
    expect((await reopened.sessions.list()).map((s) => s.title)).toEqual(['also appended']);
    await reopened.close();
    await log.close();
    await source.close();
    await close();
  });

  it('folds appended checkpoint events, a thread deletion among them, in order and equal to a replay', async () => {
    const source = createInMemoryProvider();
    const key = { threadId: 't', namespace: '', checkpointId: '01' };
    await source.checkpoints.put({ ...key, checkpoint: { v: 1 }, metadata: {} });
    await source.checkpoints.putWrites({ ...key, taskId: 'a', writes: [{ idx: 0, channel: 'x', value: 1 }] });
    await source.checkpoints.deleteThread('t');
    // Saved again after the deletion: the fold must see the deletion, not what it had cached before it.
    await source.checkpoints.put({ ...key, checkpoint: { v: 2 }, metadata: {} });
    await source.checkpoints.putWrites({ ...key, taskId: 'a', writes: [{ idx: 0, channel: 'x', value: 2 }] });
    await source.checkpoints.put({ threadId: 'u', namespace: 'sub', checkpointId: '02', checkpoint: null, metadata: {} });
    const { url, schema, provider, close } = await fresh();
    const log = await openPostgresLog(url, { schema, max: 1 });
    await log.appendMany(await source.log.read({ stream: 'state' }));
    await provider.memory.write({ content: 'written after' });
    const tuple = await provider.checkpoints.get({ threadId: 't' });
    expect(tuple?.checkpoint.checkpoint).toEqual({ v: 2 });
    expect(tuple?.pendingWrites.map((w) => w.value)).toEqual([2]);
    const replayed = await replay(log, { fromScratch: true });
    expect(encodeSnapshot(await provider.snapshot())).toBe(encodeSnapshot(await replayed.snapshot()));
    await replayed.close();
    await log.close();
    await source.close();
    await close();
  });

  it('stamps event times that never decrease along each writer while writers whose clocks disagree commit at once, and along a bare log stream', async () => {
    const { url, schema, provider, close } = await fresh();
    // Each clock ticks on every reading, one an hour behind the other: a writer that took the time of an event
    // older than the head (read before it waited for the head's lock) would move time back.
    const ticking = (startMs: number): Clock => {
      let ms = startMs;
      return { now: () => (ms += 1) };
    };
    const start = Date.UTC(2026, 0, 1, 12);
    const writers = await Promise.all([0, -HOUR].map((skew) => openPostgres(url, { schema, max: 3, clock: ticking(start + skew) })));
    const logs = await Promise.all([0, -HOUR].map((skew) => openPostgresLog(url, { schema, max: 2, clock: ticking(start + skew) })));
    await Promise.all([
      ...writers.map(async (p, w) => {
        for (let i = 0; i < 30; i += 1) await p.memory.write({ content: `fact ${w} ${i}` });
      }),
      ...logs.map(async (log, w) => {
        for (let i = 0; i < 30; i += 1) await log.append({ stream: 'notes', type: 'noted', payload: { w, i } });
      }),
    ]);
    const notes = (await logs[0]!.read({ stream: 'notes' })).map((e) => e.time);
    expect(notes).toHaveLength(60);
    expect(notes).toEqual([...notes].sort());
    // The state stream's writers commit in parallel (docs/contract.md §7, "Positions"): each one's times never go back.
    const state = await logs[0]!.read({ stream: 'state' });
    expect(state).toHaveLength(60);
    for (const w of [0, 1]) {
      const own = state.filter((e) => (e.payload as { item: { content: string } }).item.content.startsWith(`fact ${w} `)).map((e) => e.time);
      expect(own, `writer ${w}`).toHaveLength(30);
      expect(own, `writer ${w}`).toEqual([...own].sort());
    }
    await Promise.all([...writers, ...logs].map((w) => w.close()));
    await provider.close();
    await close();
  });
});
