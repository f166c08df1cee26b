/**
 * What the validation suite leaves open: how the saver lays values out on
 * the log (lossless for any serializer), what it refuses, and where it
 * matches `MemorySaver` on inputs the store cannot hold as JSON.
 */
import type { Provider } from '@agentstate/core';
import { createInMemoryProvider, LIMITS, ValidationError } from '@agentstate/core';
import type { Checkpoint, CheckpointTuple, SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { emptyCheckpoint, ERROR, MemorySaver, uuid6 } from '@langchain/langgraph-checkpoint';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it, vi } from 'vitest';
import { AgentStateSaver } from '../src/index.js';

function checkpoint(values: Record<string, unknown> = {}, version = 1): Checkpoint {
  const versions = Object.fromEntries(Object.keys(values).map((channel) => [channel, version]));
  return { ...emptyCheckpoint(), id: uuid6(-1), channel_values: values, channel_versions: versions };
}

async function all(saver: AgentStateSaver | MemorySaver, filter?: Record<string, unknown>): Promise<CheckpointTuple[]> {
  const found: CheckpointTuple[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: 't' } }, filter ? { filter } : {})) found.push(tuple);
  return found;
}

describe('AgentStateSaver', () => {
  it('keeps a JSON serde value as readable text in the store', async () => {
    const provider = createInMemoryProvider();
    const saver = new AgentStateSaver(provider);
    const cp = checkpoint({ greeting: 'hi' });
    await saver.put({ configurable: { thread_id: 't' } }, cp, { source: 'input', step: -1, parents: {} }, { greeting: 1 });
    const stored = await provider.checkpoints.get({ threadId: 't' });
    const value = stored?.checkpoint.checkpoint as { checkpoint: { type: string; text: string } };
    expect(value.checkpoint.type).toBe('json');
    expect(JSON.parse(value.checkpoint.text)).toMatchObject({ id: cp.id, channel_values: { greeting: 'hi' } });
    expect(stored?.checkpoint.metadata).toEqual({ source: 'input', step: -1, parents: {} });
  });

  it('round-trips the bytes of any serializer exactly, through base64', async () => {
    // A serializer whose output is not UTF-8 text (JSON with every byte flipped): it must come back byte for byte.
    const flip = (bytes: Uint8Array) => bytes.map((b) => b ^ 0xff);
    const serde: SerializerProtocol = {
      dumpsTyped: async (data) => ['flipped', flip(new TextEncoder().encode(JSON.stringify(data)))],
      loadsTyped: async (_type, data) => JSON.parse(new TextDecoder().decode(flip(data as Uint8Array))),
    };
    const provider = createInMemoryProvider();
    const saver = new AgentStateSaver(provider, { serde });
    const cp = checkpoint({ text: 'héllo ✓' });
    await saver.put({ configurable: { thread_id: 't' } }, cp, { source: 'loop', step: 0, parents: {} }, { text: 1 });
    expect((await saver.getTuple({ configurable: { thread_id: 't' } }))?.checkpoint).toEqual(cp);
    const stored = await provider.checkpoints.get({ threadId: 't' });
    expect(stored?.checkpoint.checkpoint).toMatchObject({ checkpoint: { type: 'flipped', base64: expect.any(String) } });
  });

  it('stores only the channel values a save changed, and reads the others back from ancestors', async () => {
    const provider = createInMemoryProvider();
    const saver = new AgentStateSaver(provider);
    const first = checkpoint({ big: 'x'.repeat(10_000), small: 1 });
    const c1 = await saver.put({ configurable: { thread_id: 't' } }, first, { source: 'loop', step: 0, parents: {} }, { big: 1, small: 1 });
    const second = { ...checkpoint({ big: 'x'.repeat(10_000), small: 2 }), channel_versions: { big: 1, small: 2 } };
    const c2 = await saver.put(c1, second, { source: 'loop', step: 1, parents: {} }, { small: 2 });
    const third = { ...checkpoint({ big: 'x'.repeat(10_000), small: 3 }), channel_versions: { big: 1, small: 3 } };
    await saver.put(c2, third, { source: 'loop', step: 2, parents: {} }, { small: 3 });
    const stored = await provider.checkpoints.list({ threadId: 't' });
    expect(stored.map((t) => JSON.stringify(t.checkpoint.checkpoint).length < 2_000)).toEqual([true, true, false]);
    const read = await all(saver);
    expect(read.map((t) => t.checkpoint.channel_values)).toEqual([third.channel_values, second.channel_values, first.channel_values]);
  });

  it('keeps the values of a checkpoint saved again with itself as parent, as MemorySaver does', async () => {
    const ours = new AgentStateSaver(createInMemoryProvider());
    const reference = new MemorySaver();
    const cp = checkpoint({ topic: 'tea' });
    for (const saver of [ours, reference]) {
      const config = await saver.put({ configurable: { thread_id: 't' } }, cp, { source: 'input', step: -1, parents: {} }, { topic: 1 });
      await saver.put(config, cp, { source: 'update', step: 0, parents: {} }, {});
    }
    const read = async (saver: AgentStateSaver | MemorySaver) => (await saver.getTuple({ configurable: { thread_id: 't' } }))?.checkpoint.channel_values;
    expect(await read(ours)).toEqual(await read(reference));
    expect(await read(ours)).toEqual({ topic: 'tea' });
  });

  it('keeps metadata the store cannot hold as JSON as the serde returns it, and filters on what it can', async () => {
    const ours = new AgentStateSaver(createInMemoryProvider());
    const reference = new MemorySaver();
    const metadata = { source: 'loop', step: 1, parents: {}, when: new Date('2026-01-02T03:04:05Z'), gone: undefined, nan: Number.NaN } as never;
    for (const saver of [ours, reference]) await saver.put({ configurable: { thread_id: 't' } }, checkpoint(), metadata, {});
    const [tuple] = await all(ours, { source: 'loop' });
    expect(tuple?.metadata).toEqual((await all(reference))[0]?.metadata);
    expect(await all(ours, { source: 'input' })).toEqual([]);
  });

  it('filters as MemorySaver does on values that are not JSON, or that the store cannot hold as metadata', async () => {
    const ours = new AgentStateSaver(createInMemoryProvider());
    const reference = new MemorySaver();
    for (const saver of [ours, reference]) {
      await saver.put({ configurable: { thread_id: 't' } }, checkpoint(), { source: 'loop', step: 1, parents: {} }, {});
      await saver.put({ configurable: { thread_id: 't' } }, checkpoint(), { source: 'loop', step: 2, parents: {}, extra: 'x' } as never, {});
    }
    // Nested deeper than a metadata value may be, a key no metadata may hold: the store refuses them, so the saver compares.
    let deep: unknown = 'x';
    for (let i = 0; i < LIMITS.jsonDepth; i += 1) deep = [deep];
    const proto = '__proto__';
    const unstorable = [{ step: 1, deep }, { [proto]: 1 }, { step: 2, [proto]: 1 }];
    for (const filter of [{ extra: undefined }, { step: 2, extra: undefined }, { when: new Date(0) }, ...unstorable]) {
      const expected = (await all(reference, filter)).map((t) => t.metadata);
      expect((await all(ours, filter)).map((t) => t.metadata)).toEqual(expected);
    }
  });

  it('applies the metadata filter when listing one checkpoint id, as MemorySaver does', async () => {
    const ours = new AgentStateSaver(createInMemoryProvider());
    const reference = new MemorySaver();
    const [older, newer] = [checkpoint(), checkpoint()];
    for (const saver of [ours, reference]) {
      const first = await saver.put({ configurable: { thread_id: 't' } }, older, { source: 'input', step: -1, parents: {} }, {});
      await saver.put(first, newer, { source: 'loop', step: 0, parents: {} }, {});
    }
    const id = older.id;
    for (const config of [{ thread_id: 't', checkpoint_id: id }, { thread_id: 't', checkpoint_ns: '', checkpoint_id: id }, { checkpoint_id: id }])
      for (const filter of [{ source: 'loop' }, { source: 'input' }, {}]) {
        const listed = async (saver: AgentStateSaver | MemorySaver) => {
          const found = [];
          for await (const tuple of saver.list({ configurable: config }, { filter })) found.push(tuple.metadata);
          return found;
        };
        expect(await listed(ours)).toEqual(await listed(reference));
      }
  });

  it('keeps the last of two writes to one special channel in a call, as MemorySaver does', async () => {
    const ours = new AgentStateSaver(createInMemoryProvider());
    const reference = new MemorySaver();
    for (const saver of [ours, reference]) {
      const config = await saver.put({ configurable: { thread_id: 't' } }, checkpoint(), { source: 'loop', step: 1, parents: {} }, {});
      await saver.putWrites(
        config,
        [
          [ERROR, 'first'],
          ['out', 1],
          [ERROR, 'second'],
        ],
        'task-1',
      );
    }
    const expected = (await reference.getTuple({ configurable: { thread_id: 't' } }))?.pendingWrites;
    expect((await ours.getTuple({ configurable: { thread_id: 't' } }))?.pendingWrites).toEqual(expected);
    expect(expected).toContainEqual(['task-1', ERROR, 'second']);
  });

  it('refuses a save without a thread, and writes without a checkpoint', async () => {
    const saver = new AgentStateSaver(createInMemoryProvider());
    await expect(saver.put({ configurable: {} }, checkpoint(), { source: 'loop', step: 0, parents: {} }, {})).rejects.toBeInstanceOf(ValidationError);
    await expect(saver.putWrites({ configurable: { thread_id: 't' } }, [['a', 1]], 'task')).rejects.toBeInstanceOf(ValidationError);
  });

  it('refuses, naming the field, a value its serializer cannot write (a BigInt), storing nothing', async () => {
    const provider = createInMemoryProvider();
    const saver = new AgentStateSaver(provider);
    const config = { configurable: { thread_id: 't' } };
    const refusals = [
      saver.put(config, checkpoint({ count: 10n }), { source: 'loop', step: 0, parents: {} }, { count: 1 }),
      saver.put(config, checkpoint(), { source: 'loop', step: 0, parents: {}, cost: 10n } as never, {}),
      saver.putWrites(
        { configurable: { thread_id: 't', checkpoint_id: 'c1' } },
        [
          ['a', 1],
          ['b', 2n],
        ],
        'task',
      ),
    ];
    const fields = ['checkpoint', 'metadata', 'writes.1'];
    for (const [i, refusal] of refusals.entries()) {
      const error = await refusal.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, fields[i]).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe(fields[i]);
    }
    expect(await provider.log.head('state')).toBe(0);
  });

  it('refuses to read a checkpoint another program stored in its own shape', async () => {
    const provider = createInMemoryProvider();
    await provider.checkpoints.put({ threadId: 't', checkpointId: 'c1', checkpoint: { step: 1 } });
    await expect(new AgentStateSaver(provider).getTuple({ configurable: { thread_id: 't' } })).rejects.toBeInstanceOf(ValidationError);
  });

  it('closes the provider only when it owns it', async () => {
    const inner = createInMemoryProvider();
    const close = vi.fn(() => inner.close());
    const provider: Provider = { ...inner, close };
    await new AgentStateSaver(provider).close();
    expect(close).not.toHaveBeenCalled();
    const owned = new AgentStateSaver(provider, { ownsProvider: true });
    await owned.close();
    await owned.close();
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('gives a graph the same history as MemorySaver, through steps, a fork and a resumed run', async () => {
    const State = Annotation.Root({
      log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
      topic: Annotation<string>(),
      steps: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
    });
    const build = (checkpointer: AgentStateSaver | MemorySaver) =>
      new StateGraph(State)
        .addNode('a', () => ({ log: ['a'], steps: 1 }))
        .addNode('b', (s: typeof State.State) => ({ log: [`b:${s.topic}`], steps: 1 }))
        .addNode('c', () => ({ steps: 1 }))
        .addEdge(START, 'a')
        .addEdge('a', 'b')
        .addEdge('b', 'c')
        .addConditionalEdges('c', (s: typeof State.State) => (s.steps < 6 ? 'a' : END), ['a', END])
        .compile({ checkpointer, interruptBefore: ['c'] });
    const histories = [];
    for (const saver of [new AgentStateSaver(createInMemoryProvider()), new MemorySaver()]) {
      const graph = build(saver);
      const thread = { configurable: { thread_id: 'g' } };
      await graph.invoke({ topic: 'tea' }, thread);
      await graph.invoke(null, thread);
      // A fork: change a channel on the paused checkpoint, then run on.
      await graph.updateState(thread, { topic: 'coffee' });
      await graph.invoke(null, thread);
      await graph.invoke(null, thread);
      const history = [];
      for await (const state of graph.getStateHistory(thread)) history.push({ values: state.values, next: state.next, step: state.metadata?.step });
      histories.push(history);
    }
    expect(histories[0]!.length).toBeGreaterThan(8);
    expect(histories[0]).toEqual(histories[1]);
  });
});
