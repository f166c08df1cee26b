/**
 * What the validation suite leaves open: how the saver lays values out on
 * the log (lossless for any serializer), what it refuses, and where it
 * matches `MemorySaver` on inputs the store cannot hold as JSON.
 */
import type { Provider } from '@agentstate/core';
import { createInMemoryProvider, ValidationError } from '@agentstate/core';
import type { Checkpoint, CheckpointTuple, SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { emptyCheckpoint, ERROR, MemorySaver, uuid6 } from '@langchain/langgraph-checkpoint';
import { describe, expect, it, vi } from 'vitest';
import { AgentStateSaver } from '../src/index.js';

function checkpoint(values: Record<string, unknown> = {}): Checkpoint {
  return { ...emptyCheckpoint(), id: uuid6(-1), channel_values: values };
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
    await saver.put({ configurable: { thread_id: 't' } }, cp, { source: 'input', step: -1, parents: {} }, {});
    const stored = await provider.checkpoints.get({ threadId: 't' });
    const value = stored?.checkpoint.checkpoint as { checkpoint: { type: string; text: string } };
    expect(value.checkpoint.type).toBe('json');
    expect(JSON.parse(value.checkpoint.text)).toMatchObject({ id: cp.id, channel_values: { greeting: 'hi' } });
    expect(stored?.checkpoint.metadata).toEqual({ source: 'input', step: -1, parents: {} });
  });

  it('round-trips the bytes of any serializer exactly, through base64', async () => {
    const bytes = new Uint8Array([0xff, 0x00, 0xfe, 0x80]);
    // A serializer whose output is not UTF-8 text: it must come back byte for byte.
    const serde: SerializerProtocol = {
      dumpsTyped: async () => ['bin', bytes],
      loadsTyped: async (type, data) => ({ type, data: [...(data as Uint8Array)] }),
    };
    const provider = createInMemoryProvider();
    const saver = new AgentStateSaver(provider, { serde });
    await saver.put({ configurable: { thread_id: 't' } }, checkpoint(), { source: 'loop', step: 0, parents: {} }, {});
    const tuple = await saver.getTuple({ configurable: { thread_id: 't' } });
    expect(tuple?.checkpoint).toEqual({ type: 'bin', data: [0xff, 0x00, 0xfe, 0x80] });
    const stored = await provider.checkpoints.get({ threadId: 't' });
    expect(stored?.checkpoint.checkpoint).toMatchObject({ checkpoint: { type: 'bin', base64: '/wD+gA==' } });
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

  it('filters as MemorySaver does on values that are not JSON', async () => {
    const ours = new AgentStateSaver(createInMemoryProvider());
    const reference = new MemorySaver();
    for (const saver of [ours, reference]) {
      await saver.put({ configurable: { thread_id: 't' } }, checkpoint(), { source: 'loop', step: 1, parents: {} }, {});
      await saver.put({ configurable: { thread_id: 't' } }, checkpoint(), { source: 'loop', step: 2, parents: {}, extra: 'x' } as never, {});
    }
    for (const filter of [{ extra: undefined }, { step: 2, extra: undefined }, { when: new Date(0) }]) {
      const expected = (await all(reference, filter)).map((t) => t.metadata);
      expect((await all(ours, filter)).map((t) => t.metadata)).toEqual(expected);
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
});
