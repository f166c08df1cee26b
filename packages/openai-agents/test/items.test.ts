import { createInMemoryProvider } from '@agentstate/core';
import { AgentStateSession, ITEM_PART } from '@agentstate/openai-agents';
import type { AgentInputItem } from '@openai/agents-core';
import { protocol } from '@openai/agents-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue } from '../src/codec.js';
import { checkItem } from '../src/items.js';
import { ITEM_KINDS, anyItem, text } from './arbitraries.js';
import { expectSame } from './helpers.js';

describe('items stored as turns', () => {
  it('read back deep-equal, for arbitrary items of every type', async () => {
    const provider = createInMemoryProvider();
    await fc.assert(
      fc.asyncProperty(fc.array(anyItem, { minLength: 1, maxLength: 6 }), async (items) => {
        const session = new AgentStateSession(provider);
        await session.addItems(items);
        expectSame(await session.getItems(), structuredClone(items));
      }),
      { numRuns: 300 },
    );
  });

  it('are generated of every type (none is filtered away as invalid)', () => {
    const kinds = new Set(fc.sample(anyItem, { numRuns: 3000, seed: 13 }).map((item) => `${item.type ?? 'message'}/${'role' in item ? item.role : ''}`));
    expect(kinds.size).toBe(ITEM_KINDS);
  });

  it('keep message text searchable and tool calls as tool-call and tool-result parts', async () => {
    const provider = createInMemoryProvider();
    const session = new AgentStateSession(provider);
    await session.addItems([
      { role: 'user', content: 'Deploy is failing on staging' },
      { type: 'function_call', callId: 'call_1', name: 'logs', arguments: '{"env":"staging"}' },
      { type: 'function_call_result', callId: 'call_1', name: 'logs', status: 'completed', output: { type: 'text', text: 'OOM' } },
      { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'The pod ran out of memory' }] },
    ]);
    const id = await session.getSessionId();
    const turns = await provider.sessions.turns(id);
    expect(turns.map((t) => [t.role, t.content, t.parts.map((p) => p.type)])).toEqual([
      ['user', 'Deploy is failing on staging', ['text', 'data']],
      ['assistant', '', ['tool-call', 'data']],
      ['tool', '', ['tool-result', 'data']],
      ['assistant', 'The pod ran out of memory', ['text', 'data']],
    ]);
    expect(turns[1]!.parts[0]).toEqual({ type: 'tool-call', callId: 'call_1', toolName: 'logs', input: '{"env":"staging"}' });
    expect(turns[0]!.parts[1]).toMatchObject({ type: 'data', name: ITEM_PART });
    const hits = await provider.sessions.search({ query: 'memory' });
    expect(hits.map((h) => h.turn.content)).toEqual(['The pod ran out of memory']);
  });

  it('are accepted exactly when the ModelItem union of the SDK accepts them, though checked against one member', () => {
    const accepts = (item: unknown) => {
      try {
        checkItem(item, 'item');
        return true;
      } catch {
        return false;
      }
    };
    // Valid items of every type, and each with one field dropped, retyped or given another type or role: valid or not, the verdicts agree.
    const mutated = fc
      .tuple(anyItem, fc.nat(), fc.constantFrom<unknown>(undefined, 'x', 7, null, 'message', 'user', 'system', 'assistant', 'function_call', 'unknown'))
      .map(([item, n, value]) => {
        const keys = Object.keys(item);
        return { ...item, [keys[n % keys.length]!]: value };
      });
    fc.assert(
      fc.property(fc.oneof(anyItem, mutated, fc.anything()), (item) => {
        expect(accepts(item)).toBe(protocol.ModelItem.safeParse(item).success);
      }),
      { numRuns: 600 },
    );
  });

  it('encode any value JSON cannot hold and decode it back', () => {
    const odd = { a: undefined, b: Number.NaN, c: -0, d: Number.NEGATIVE_INFINITY, e: new Uint8Array([1, 2]), f: 'a\u0000\uD800', $: 1 };
    Object.defineProperty(odd, '__proto__', { value: { polluted: true }, enumerable: true });
    const back = decodeValue(encodeValue(odd)) as Record<string, unknown>;
    expect(back).toStrictEqual(odd);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    fc.assert(
      fc.property(fc.anything(), text, (value, t) => {
        expectSame(decodeValue(encodeValue([value, t])), structuredClone([value, t]));
      }),
    );
  });

  it('refuses what no item can hold, naming where it is', () => {
    expect(() => encodeValue({ f: () => 1 })).toThrow(/invalid item\.f/);
    expect(() => encodeValue({ d: new Date(0) })).toThrow(/plain objects/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => encodeValue(cyclic)).toThrow(/cyclic/);
  });

  it('reads a turn written by other means as a plain message', async () => {
    const provider = createInMemoryProvider();
    const session = new AgentStateSession(provider);
    const id = await session.getSessionId();
    await provider.sessions.appendTurn({ sessionId: id, role: 'user', content: 'typed elsewhere' });
    await provider.sessions.appendTurn({ sessionId: id, role: 'assistant', content: 'answered elsewhere' });
    expect(await session.getItems()).toEqual<AgentInputItem[]>([
      { role: 'user', content: 'typed elsewhere' },
      { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'answered elsewhere' }] },
    ]);
  });
});
