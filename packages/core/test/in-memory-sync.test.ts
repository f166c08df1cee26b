/**
 * Sync into and out of the in-memory backend (docs/contract.md §12): a sync's batches are checked on one
 * copy of the state, not a copy each, and `changes` answers what a vector lacks wherever its reading starts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createInMemoryProvider, type SyncPeer, sync } from '@agentstate/core';
import { InMemoryState } from '@agentstate/core/backend';

afterEach(() => vi.restoreAllMocks());

describe('sync with an in-memory store', () => {
  it('checks the batches of a sync on one copy of the state, and copies it again after a local write', async () => {
    const source = createInMemoryProvider();
    const target = createInMemoryProvider();
    for (let i = 0; i < 30; i += 1) await source.memory.write({ content: `fact ${i}`, key: `k${i % 12}` });
    const capture = vi.spyOn(InMemoryState.prototype, 'capture');
    expect((await sync(target, source, { batchSize: 7 })).batches).toBe(5);
    expect(capture).toHaveBeenCalledTimes(1);
    await target.memory.write({ content: 'a local fact' });
    await source.memory.write({ content: 'one more fact' });
    await sync(target, source, { batchSize: 7 });
    // The target's copy again, and the source's first, for the local fact it receives.
    expect(capture).toHaveBeenCalledTimes(3);
    const contents = async (p: typeof source) => (await p.snapshot()).memory.map((item) => item.content).sort();
    expect(await contents(target)).toEqual(await contents(source));
    expect(await contents(target)).toContain('a local fact');
  });

  it('without a batch size, takes 1,000 events first, then as many as make about 4 MiB of JSON by the sizes of the batch before', async () => {
    /** What the target held after each batch of a sync of `count` memory writes of `size` characters each. */
    const progress = async (count: number, size: number) => {
      const source = createInMemoryProvider();
      for (let i = 0; i < count; i += 1) await source.memory.write({ content: `${i} `.padEnd(size, 'x') });
      const held: number[] = [];
      await sync(createInMemoryProvider(), source, { onProgress: (summary) => held.push(summary.toA) });
      return held;
    };
    // Small events: the rest in one batch.
    expect(await progress(2_500, 10)).toEqual([1_000, 2_500]);
    // Events of about 20 KB: about 200 a batch after the first.
    const large = await progress(1_250, 20_000);
    expect(large).toHaveLength(3);
    expect(large[1]! - 1_000).toBeGreaterThan(150);
    expect(large[1]! - 1_000).toBeLessThan(250);
  });

  it('asks a sender for no more once it answered fewer events than asked: a sync of one new event is one changes call each way and one receive', async () => {
    const a = createInMemoryProvider();
    const b = createInMemoryProvider();
    await a.memory.write({ content: 'first' });
    await sync(b, a);
    await a.memory.write({ content: 'second' });
    const calls: string[] = [];
    const counted = (name: string, peer: SyncPeer): SyncPeer => ({
      retention: peer.retention,
      vector: (options) => {
        calls.push(`${name}.vector`);
        return peer.vector(options);
      },
      changes: (vector, options) => {
        calls.push(`${name}.changes`);
        return peer.changes(vector, options);
      },
      receive: (events, options) => {
        calls.push(`${name}.receive`);
        return peer.receive(events, options);
      },
    });
    expect(await sync(counted('b', b), counted('a', a), { batchSize: 10 })).toEqual({ toA: 1, toB: 0, merged: 0, batches: 1 });
    // Each vector is read once, for both directions; the receiver takes the batch with the word that it holds the sender's vector.
    expect(calls).toEqual(['b.vector', 'a.vector', 'a.changes', 'b.receive', 'b.changes']);
  });

  it("asks the sender for the next batch before the receiver takes the current one, and throws the receive's failure, not the read's", async () => {
    const a = createInMemoryProvider();
    for (let i = 0; i < 7; i += 1) await a.memory.write({ content: `fact ${i}` });
    const calls: string[] = [];
    const logged = (peer: SyncPeer, fail = false): SyncPeer => ({
      retention: peer.retention,
      vector: (options) => peer.vector(options),
      changes: async (vector, options) => {
        calls.push(`changes after ${options?.after?.originSeq ?? 0}`);
        if (fail && options?.after !== undefined) throw new Error('the read failed');
        return peer.changes(vector, options);
      },
      receive: async (events, options) => {
        calls.push(`receive ${events.length}`);
        if (fail) throw new Error('the receive failed');
        const result = await peer.receive(events, options);
        calls.push('received');
        return result;
      },
    });
    const b = createInMemoryProvider();
    expect(await sync(logged(b), logged(a), { batchSize: 3 })).toMatchObject({ toA: 7, batches: 3 });
    expect(calls.slice(0, calls.indexOf('received', calls.indexOf('receive 1')) + 1)).toEqual([
      'changes after 0',
      'changes after 3',
      'receive 3',
      'received',
      'changes after 6',
      'receive 3',
      'received',
      'receive 1',
      'received',
    ]);
    // The next batch's read fails as well, unseen: the receive's failure is the sync's.
    await expect(sync(logged(createInMemoryProvider(), true), logged(a, true), { batchSize: 3 })).rejects.toThrow('the receive failed');
  });

  it('answers every event a vector lacks, whichever places of its own and of each origin it names', async () => {
    const a = createInMemoryProvider();
    const b = createInMemoryProvider();
    const c = createInMemoryProvider();
    await a.memory.write({ content: 'from a' });
    await sync(b, a);
    await b.memory.write({ content: 'from b' });
    await sync(c, b);
    for (let i = 0; i < 3; i += 1) await c.memory.write({ content: `from c ${i}` });
    await a.memory.write({ content: 'a again' });
    await sync(c, a);
    const all = await c.changes({});
    const ids = [await a.replicaId(), await b.replicaId(), await c.replicaId()];
    const place = (event: (typeof all)[number]) => ({ origin: event.origin, seq: event.originSeq });
    for (const vector of [
      {},
      { [ids[2]!]: 2 },
      { [ids[0]!]: 1 },
      { [ids[0]!]: 2, [ids[1]!]: 2 },
      { [ids[1]!]: 2, [ids[2]!]: 4 },
      { [ids[0]!]: 7, [ids[2]!]: 0 },
    ])
      expect((await c.changes(vector)).map(place), JSON.stringify(vector)).toEqual(
        all.filter((event) => event.originSeq > (vector[event.origin] ?? 0)).map(place),
      );
  });
});
