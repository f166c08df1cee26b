/**
 * The in-memory write path skips work that its own guarantees make
 * redundant (freezing events until first read, re-checking stamped changes,
 * re-parsing events its log validated on the way in); these tests hold it to
 * what that must not weaken: history read from the log cannot be changed,
 * nor the read model through it, and a replay reads the same.
 */
import { describe, expect, it } from 'vitest';
import { createInMemoryProvider, encodeSnapshot, InMemoryLog, replay, STATE_STREAM } from '@agentstate/core';

describe('the in-memory trusted path', () => {
  it('hands out deeply frozen events: mutating one throws and changes neither history nor the read model', async () => {
    const log = new InMemoryLog();
    const p = createInMemoryProvider({ log });
    const s = await p.sessions.create({ title: 't', metadata: { a: { b: 1 } } });
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', parts: [{ type: 'text', text: 'hello' }], metadata: { n: [1, 2] } });
    const before = encodeSnapshot(await p.snapshot());
    const events = await log.read({ stream: STATE_STREAM });
    const turnEvent = events[1]!.payload as { turn: { content: string; parts: Array<{ text: string }>; metadata: { n: number[] } } };
    expect(() => {
      turnEvent.turn.content = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      turnEvent.turn.parts[0]!.text = 'changed';
    }).toThrow(TypeError);
    expect(() => turnEvent.turn.metadata.n.push(3)).toThrow(TypeError);
    expect(encodeSnapshot(await p.snapshot())).toBe(before);
    expect((await p.sessions.turns(s.id))[0]!.content).toBe('hello');
  });

  it('returns copies a caller may change freely', async () => {
    const p = createInMemoryProvider();
    const s = await p.sessions.create({});
    const turn = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'x', metadata: { deep: { list: [1] } } });
    (turn.metadata.deep as { list: number[] }).list.push(2);
    turn.parts.push({ type: 'text', text: 'y' });
    const item = await p.memory.write({ content: 'fact', metadata: { k: { v: 1 } } });
    (item.metadata.k as { v: number }).v = 2;
    expect((await p.sessions.turns(s.id))[0]).toMatchObject({ metadata: { deep: { list: [1] } }, parts: [{ type: 'text', text: 'x' }] });
    expect((await p.memory.get(item.id)).metadata).toEqual({ k: { v: 1 } });
  });

  it('replays its own log, from scratch and after reads froze part of it, to the same snapshot bytes', async () => {
    const log = new InMemoryLog();
    const p = createInMemoryProvider({ log });
    const s = await p.sessions.create({});
    for (let i = 0; i < 20; i += 1) await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: `turn ${i}` });
    await p.memory.writeMany([
      { content: 'a', key: 'k' },
      { content: 'b', key: 'k' },
    ]);
    await log.read({ stream: STATE_STREAM, afterSeq: 5, limit: 3 });
    const live = encodeSnapshot(await p.snapshot());
    expect(encodeSnapshot(await (await replay(log, { fromScratch: true })).snapshot())).toBe(live);
    expect(encodeSnapshot(await (await replay(log, { fromScratch: true, batchSize: 7 })).snapshot())).toBe(live);
  });

  it('answers history after a replay, which reads it from the log, as the live provider does, before and after new writes', async () => {
    for (const fromScratch of [true, false]) {
      const log = new InMemoryLog();
      const p = createInMemoryProvider({ log });
      const s = await p.sessions.create({});
      const first = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'one' });
      await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'two' });
      await p.sessions.removeLastTurn(s.id);
      const item = await p.memory.write({ content: 'a' });
      await p.memory.update(item.id, { content: 'b' });
      await p.saveSnapshot();
      await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'three' });
      const ids = [s.id, first.id, item.id];
      const live = await Promise.all(ids.map((id) => p.history(id)));
      const again = await replay(log, { fromScratch });
      expect(await Promise.all(ids.map((id) => again.history(id)))).toEqual(live);
      await again.memory.update(item.id, { content: 'c' });
      await again.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'four' });
      const head = await log.head(STATE_STREAM);
      expect((await again.history(item.id)).map((v) => v.seq)).toEqual([...live[2]!.map((v) => v.seq), head - 1]);
      expect((await again.history(s.id)).map((v) => v.seq)).toEqual([...live[0]!.map((v) => v.seq), head]);
    }
  });

  it('reads the history index from the log on demand: caught up between writes, and read once for concurrent queries', async () => {
    const p = createInMemoryProvider();
    const s = await p.sessions.create({});
    const turn = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'one' });
    expect((await p.history(turn.id)).map((v) => v.seq)).toEqual([2]);
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'two' });
    await p.sessions.removeLastTurn(s.id);
    await p.sessions.removeLastTurn(s.id);
    const [a, b] = await Promise.all([p.history(turn.id), p.history(turn.id)]);
    expect(a.map((v) => [v.seq, v.record.deleted])).toEqual([
      [2, false],
      [5, true],
    ]);
    expect(b).toEqual(a);
    expect((await p.history(s.id)).map((v) => v.seq)).toEqual([1, 2, 3, 4, 5]);
  });
});
