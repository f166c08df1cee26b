import { describe, expect, it } from 'vitest';
import {
  CorruptionError,
  createInMemoryProvider,
  decodeStateEvent,
  InMemoryLog,
  replay,
  STATE_SCHEMA_VERSION,
  UpcasterRegistry,
  ValidationError,
} from '../src/index.js';
import type { Log, LogEvent } from '../src/index.js';

const event = (over: Partial<LogEvent>): LogEvent => ({
  stream: 'state',
  seq: 4,
  type: 'memory.written',
  time: '2026-01-01T00:00:00.000Z',
  schemaVersion: 1,
  payload: {},
  ...over,
});

describe('decoding state events', () => {
  it('names the event of a malformed payload', () => {
    const err = (() => {
      try {
        decodeStateEvent(event({ payload: { item: { id: 'x' } } }));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(CorruptionError);
    expect(err).toMatchObject({ stream: 'state', seq: 4 });
  });

  it('refuses unknown types and newer schema versions', () => {
    expect(() => decodeStateEvent(event({ type: 'memory.exploded' }))).toThrow(CorruptionError);
    expect(() => decodeStateEvent(event({ schemaVersion: STATE_SCHEMA_VERSION + 1 }))).toThrow(/newer/);
  });

  it('upcasts old payload shapes on read', async () => {
    const source = createInMemoryProvider();
    const item = await source.memory.write({ content: 'old shape' });
    const { kind, ...withoutKind } = item;
    void kind;
    const old = { stream: 'state', type: 'memory.written', schemaVersion: 0, payload: { memory: withoutKind } };
    // A log without the upcasters cannot tell whether a fold will read it, so it refuses it.
    await expect(new InMemoryLog().append(old)).rejects.toBeInstanceOf(ValidationError);
    const upcasters = new UpcasterRegistry().register('memory.written', 0, (p) => {
      const { memory } = p as { memory: Record<string, unknown> };
      return { item: { ...memory, kind: 'note' } };
    });
    const log = new InMemoryLog({ upcasters });
    await log.append(old);
    await expect(replay(log)).rejects.toBeInstanceOf(CorruptionError);
    const replayed = await replay(log, { upcasters });
    expect(await replayed.memory.get(item.id)).toMatchObject({ content: 'old shape', kind: 'note' });
  });

  it('makes replay fail on a gap-free stream with a broken event, naming its seq', async () => {
    const p = createInMemoryProvider();
    await p.memory.write({ content: 'fine' });
    await p.memory.write({ content: 'also fine' });
    // The log refuses to store a broken event; a view that serves one stands in for damaged storage.
    const damaged: Log = {
      append: (input) => p.log.append(input),
      saveSnapshot: (snapshot) => p.log.saveSnapshot(snapshot),
      head: (stream) => p.log.head(stream),
      identity: () => p.log.identity(),
      latestSnapshot: async () => undefined,
      read: async (query) => (await p.log.read(query)).map((e) => (e.seq === 2 ? { ...e, payload: {} } : e)),
    };
    await expect(replay(damaged)).rejects.toMatchObject({ code: 'corruption', seq: 2 });
  });
});
