import { NotFoundError } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import type { UIMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextPrompt, createChatStore } from '../src/index.js';
import { tempDb } from './helpers.js';
import { SDKS, textStep } from './sdks.js';

let db: { db: string; cleanup: () => void };

beforeEach(() => {
  db = tempDb();
});

afterEach(() => {
  db.cleanup();
});

const scope = ['user', 'ana'];

/** A chat whose middle assistant message called a tool and holds its result. */
const chat: UIMessage[] = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'My old laptop broke last year, a long and sad story.' }] },
  { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Sorry to hear that.' }] },
  { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'What is the weather in Lisbon?' }] },
  {
    id: 'a2',
    role: 'assistant',
    parts: [
      { type: 'step-start' },
      { type: 'tool-weather', toolCallId: 'call-1', state: 'output-available', input: { city: 'Lisbon' }, output: { tempC: 21 } },
      { type: 'step-start' },
      { type: 'text', text: 'It is 21 °C in Lisbon.' },
    ],
  },
  { id: 'u3', role: 'user', parts: [{ type: 'text', text: 'Should I pack tea for Lisbon?' }] },
];

describe.each(SDKS)('contextPrompt with the mock language model, $name', ({ ai, MockLanguageModel, v7Parts }) => {
  it('calls the model with the recalled memories, then the newest turns that fit, a tool call with its result', async () => {
    const state = await openSqlite(db.db);
    try {
      await createChatStore({ provider: state, scope }).saveChat({ chatId: 'chat-1', messages: chat });
      await state.memory.write({ scope, content: 'Ana drinks tea\nevery morning' });
      await state.memory.write({ scope, content: 'Ana owns a bicycle' });

      // The budget: the memory and the turns from u2 on, so u1 and a1 do not fit.
      const whole = await state.sessions.context('chat-1', { maxTokens: 100_000, recall: { limit: 2 } });
      expect(whole.entries.map((e) => e.kind)).toEqual(['memory', 'turn', 'turn', 'turn', 'turn', 'turn']);
      const maxTokens = whole.entries.filter((_, i) => i === 0 || i >= 3).reduce((sum, e) => sum + e.tokens, 0);

      const model = new MockLanguageModel({ doGenerate: [textStep('Yes, pack green tea.')] });
      const prompt = await contextPrompt(state, 'chat-1', { maxTokens, recall: { limit: 2 } });
      // ai 6 names the instructions `system`.
      const result = await ai.generateText({ model, ...(v7Parts ? prompt : { system: prompt.instructions, messages: prompt.messages }) });

      expect(result.text).toBe('Yes, pack green tea.');
      expect(model.doGenerateCalls).toHaveLength(1);
      expect(model.doGenerateCalls[0]!.prompt).toEqual([
        { role: 'system', content: 'Memories recalled for this conversation:\n- Ana drinks tea\n  every morning' },
        { role: 'user', content: [{ type: 'text', text: 'What is the weather in Lisbon?' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: { city: 'Lisbon' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'weather', output: { type: 'json', value: { tempC: 21 } } }] },
        { role: 'assistant', content: [{ type: 'text', text: 'It is 21 °C in Lisbon.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Should I pack tea for Lisbon?' }] },
      ]);
    } finally {
      await state.close();
    }
  });
});

describe.each(SDKS)('a tool result written in its own turn, $name', ({ ai, MockLanguageModel, v7Parts }) => {
  it('joins its call, as LangGraph and the OpenAI Agents SDK write them, in loadChat and in the prompt', async () => {
    const state = await openSqlite(db.db);
    try {
      await state.sessions.create({ id: 'thread-1', scope });
      await state.sessions.appendTurns('thread-1', [
        { role: 'user', parts: [{ type: 'text', text: 'Weather in Lisbon and Porto?' }], metadata: { langgraph: { type: 'human' } } },
        // LangGraph: an AI message holding the call, then a tool message holding its result.
        {
          role: 'assistant',
          parts: [{ type: 'tool-call', callId: 'c1', toolName: 'weather', input: { city: 'Lisbon' } }],
          metadata: { langgraph: { type: 'ai' } },
        },
        {
          role: 'tool',
          parts: [{ type: 'tool-result', callId: 'c1', toolName: 'weather', output: '21 °C', isError: false }],
          metadata: { langgraph: { type: 'tool' } },
        },
        // The OpenAI Agents SDK: a function_call item, then its function_call_result item, each with the rest of the item.
        {
          role: 'assistant',
          parts: [
            { type: 'tool-call', callId: 'c2', toolName: 'weather', input: '{"city":"Porto"}' },
            { type: 'data', name: 'openai-agents.item', data: { type: 'function_call', status: 'completed' } },
          ],
        },
        {
          role: 'tool',
          parts: [
            { type: 'tool-result', callId: 'c2', toolName: 'weather', output: '19 °C', isError: false },
            { type: 'data', name: 'openai-agents.item', data: { type: 'function_call_result', status: 'completed' } },
          ],
        },
        { role: 'assistant', parts: [{ type: 'text', text: 'Lisbon 21 °C, Porto 19 °C.' }] },
      ]);

      const messages = await createChatStore({ provider: state, scope }).loadChat('thread-1');
      expect(messages.map((m) => m.parts.map((p) => p.type))).toEqual([
        ['text'],
        ['tool-weather'],
        ['tool-weather', 'data-openai-agents.item'],
        ['data-openai-agents.item'],
        ['text'],
      ]);
      expect(messages[1]!.parts[0]).toEqual({ type: 'tool-weather', toolCallId: 'c1', state: 'output-available', input: { city: 'Lisbon' }, output: '21 °C' });
      expect(await ai.validateUIMessages({ messages })).toEqual(messages);

      const model = new MockLanguageModel({ doGenerate: [textStep('Done.')] });
      const prompt = await contextPrompt(state, 'thread-1', { maxTokens: 10_000 });
      await ai.generateText({ model, ...(v7Parts ? prompt : { system: prompt.instructions, messages: prompt.messages }) });
      const call = (toolCallId: string, city: unknown) => ({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId, toolName: 'weather', input: city }],
      });
      const result = (toolCallId: string, value: string) => ({
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId, toolName: 'weather', output: { type: 'text', value } }],
      });
      expect(model.doGenerateCalls[0]!.prompt).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Weather in Lisbon and Porto?' }] },
        call('c1', { city: 'Lisbon' }),
        result('c1', '21 °C'),
        call('c2', '{"city":"Porto"}'),
        result('c2', '19 °C'),
        { role: 'assistant', content: [{ type: 'text', text: 'Lisbon 21 °C, Porto 19 °C.' }] },
      ]);
    } finally {
      await state.close();
    }
  });
});

describe('contextPrompt', () => {
  it('puts the working memory first in the instructions, as it is, then the recalled memories', async () => {
    const state = await openSqlite(db.db);
    try {
      await createChatStore({ provider: state, scope }).saveChat({ chatId: 'chat-1', messages: chat.slice(0, 2) });
      await state.workingMemory.replace({ scope, text: '# Ana\n- laptop: broken' });
      await state.memory.write({ scope, content: 'Ana drinks tea' });
      const prompt = await contextPrompt(state, 'chat-1', { maxTokens: 1000, recall: { limit: 1 } });
      expect(prompt.instructions).toBe('Working memory:\n# Ana\n- laptop: broken\n\nMemories recalled for this conversation:\n- Ana drinks tea');

      const [first] = await state.sessions.turns('chat-1');
      await state.sessions.compact('chat-1', { through: first!.id, summary: 'Ana told of her broken laptop.' });
      const compacted = await contextPrompt(state, 'chat-1', { maxTokens: 1000, working: false });
      expect(compacted).toStrictEqual({
        instructions: 'Summary of the earlier conversation:\nAna told of her broken laptop.',
        messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Sorry to hear that.' }] }],
      });
    } finally {
      await state.close();
    }
  });

  it('has no instructions when the window holds only turns, and fails as the window does', async () => {
    const state = await openSqlite(db.db);
    try {
      await createChatStore({ provider: state, scope }).saveChat({ chatId: 'chat-1', messages: chat.slice(0, 2) });
      expect(await contextPrompt(state, 'chat-1', { maxTokens: 1000 })).toStrictEqual({
        instructions: undefined,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'My old laptop broke last year, a long and sad story.' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'Sorry to hear that.' }] },
        ],
      });
      await expect(contextPrompt(state, 'no-such-chat', { maxTokens: 1000 })).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      await state.close();
    }
  });
});
