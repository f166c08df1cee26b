/**
 * The API's time travel, diff, history and health over an in-memory
 * provider: the state as of a point is the provider's own `at`, the diff
 * is `provider.diff` summarised, a record's history is `provider.history`,
 * and the health view neither builds a snapshot nor scans the log; the
 * server keeps idle connections open for the clients to close.
 */
import { createInMemoryProvider, type EventSourcedProvider, ManualClock, type Snapshot } from '@agentstate/core';
import { countSnapshot, type DiffSummary, serveUi, type StateCounts, type UiHandle } from '@agentstate/ui';
import { afterEach, describe, expect, it } from 'vitest';
import { askTwiceAcrossIdle } from '../../../tools/keep-alive.js';

let ui: UiHandle | undefined;

afterEach(async () => {
  await ui?.close();
  ui = undefined;
});

/** `target` with some members replaced, the others bound to it (a provider keeps private fields). */
function watch<T extends object>(target: T, replaced: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(t, key) {
      if (key in replaced) return replaced[key as keyof T];
      const value: unknown = Reflect.get(t, key, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(`${ui!.url}api/${path}`);
  const body = (await res.json()) as T;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

describe('the API over provider.at, diff and history', () => {
  it('counts the state as of each seq, with stored snapshots before and after it, and as of an instant', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 1, 9));
    const db = createInMemoryProvider({ clock });
    const seen: Snapshot[] = [await db.snapshot()];
    const keep = async () => {
      clock.advance(60_000);
      seen.push(await db.snapshot());
    };
    const session = await db.sessions.create({ title: 'one' });
    await keep();
    await db.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'hello' });
    await keep();
    await db.saveSnapshot(); // at seq 2
    const item = await db.memory.write({ content: 'a fact' });
    await keep();
    await db.skills.upsert({ slug: 'deploy', body: 'ship it' });
    await keep();
    await db.memory.delete(item.id);
    await keep();
    await db.saveSnapshot(); // at seq 5
    await db.sessions.delete(session.id);
    await keep();
    ui = await serveUi(db, { port: 0 });
    for (const expected of seen) {
      const { head, time, ...counts } = await getJson<StateCounts & { head: number; time: string }>(`counts?seq=${expected.seq}`);
      expect(head).toBe(6);
      expect(counts, `as of seq ${expected.seq}`).toEqual(countSnapshot(expected));
    }
    // The memory item was written at 09:01 and deleted at 09:04 (the clock moves a minute after each write).
    expect(await getJson<StateCounts>(`counts?time=${encodeURIComponent('2026-11-01T09:02:30Z')}`)).toMatchObject({ seq: 3, memory: { live: 1 } });
    expect((await fetch(`${ui.url}api/counts?seq=7`)).status).toBe(400);
    expect((await fetch(`${ui.url}api/counts?time=yesterday`)).status).toBe(400);
    // A recall mode the provider does not know is refused by the provider, as a bad request.
    expect((await fetch(`${ui.url}api/recall?q=fact&mode=lexical`)).status).toBe(200);
    expect((await fetch(`${ui.url}api/recall?q=fact&mode=psychic`)).status).toBe(400);
  });

  it('summarises the diff of two points: created, changed and deleted records, by kind', async () => {
    const db = createInMemoryProvider();
    const kept = await db.memory.write({ content: 'kept as it was' });
    const changed = await db.memory.write({ content: 'before the change' });
    const gone = await db.memory.write({ content: 'deleted later' });
    const from = await db.log.head('state');
    await db.memory.update(changed.id, { content: 'after the change' });
    await db.memory.delete(gone.id);
    for (let i = 0; i < 25; i += 1) await db.memory.write({ content: `new fact ${i}` });
    await db.skills.upsert({ slug: 'deploy', body: 'ship it' });
    ui = await serveUi(db, { port: 0 });
    const diff = await getJson<DiffSummary>(`diff?fromseq=${from}`);
    expect(diff.from.seq).toBe(from);
    expect(diff.to.seq).toBe(await db.log.head('state'));
    expect(diff.memory).toMatchObject({ created: 25, changed: 1, deleted: 1 });
    expect(diff.memory.sample.created).toHaveLength(20);
    expect(diff.memory.sample.changed).toEqual([{ id: changed.id, label: 'after the change' }]);
    expect(diff.memory.sample.deleted).toEqual([{ id: gone.id, label: 'deleted later' }]);
    expect(diff.skills.sample.created).toEqual([expect.objectContaining({ label: 'deploy v1' })]);
    expect(JSON.stringify(diff)).not.toContain(kept.id);
    // Backwards: the reverse changes.
    const back = await getJson<DiffSummary>(`diff?fromseq=${diff.to.seq}&toseq=${from}`);
    expect(back.memory).toMatchObject({ created: 1, changed: 1, deleted: 25 });
  });

  it("answers a record's history, oldest first", async () => {
    const db = createInMemoryProvider();
    const item = await db.memory.write({ content: 'first words' });
    await db.memory.update(item.id, { content: 'second words' });
    ui = await serveUi(db, { port: 0 });
    const versions = await getJson<Array<{ seq: number; type: string; record: { content: string } }>>(`history/${item.id}`);
    expect(versions.map((v) => [v.seq, v.type, v.record.content])).toEqual([
      [1, 'memory.written', 'first words'],
      [2, 'memory.updated', 'second words'],
    ]);
    expect(await getJson(`history/no-such-id`)).toEqual([]);
  });

  it('serves health without building a snapshot or reading the log, and counts events by type on their own call', async () => {
    const db = createInMemoryProvider();
    await db.memory.write({ content: 'a fact' });
    await db.saveSnapshot();
    await db.memory.write({ content: 'another fact' });
    let snapshots = 0;
    let reads = 0;
    const log = watch(db.log, {
      read: (query: Parameters<typeof db.log.read>[0]) => {
        reads += 1;
        return db.log.read(query);
      },
    });
    const watched = watch<EventSourcedProvider>(db, {
      log,
      snapshot: () => {
        snapshots += 1;
        return db.snapshot();
      },
    });
    ui = await serveUi(watched, { port: 0 });
    const health = await getJson<{ head: number; snapshots: Array<{ seq: number }> }>('health');
    expect(health.head).toBe(2);
    expect(health.snapshots.map((s) => s.seq)).toEqual([1]);
    expect(snapshots).toBe(0);
    expect(reads).toBe(0);
    expect(await getJson('health/types')).toEqual({ head: 2, countsByType: { 'memory.written': 2 } });
  });
});

describe('the HTTP server', () => {
  it('keeps an idle connection open past the window in which clients reuse one', async () => {
    ui = await serveUi(createInMemoryProvider(), { port: 0 });
    const ask = `GET /api/counts HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\n\r\n`;
    expect(await askTwiceAcrossIdle(ui.port, ask)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
  });
});
