import { compactWhenOver, EventTypes, STATE_STREAM, ValidationError } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import type { UIMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextPrompt, createChatStore, SUMMARY_INSTRUCTIONS, summarizeWith } from '../src/index.js';
import { tempDb } from './helpers.js';
import { SDKS, textStep } from './sdks.js';

let db: { db: string; cleanup: () => void };

beforeEach(() => {
  db = tempDb();
});

afterEach(() => {
  db.cleanup();
});

const text = (id: string, role: 'user' | 'assistant', said: string): UIMessage => ({ id, role, parts: [{ type: 'text', text: said }] });

const chat: UIMessage[] = [
  text('u1', 'user', 'What is the weather in Lisbon?'),
  {
    id: 'a1',
    role: 'assistant',
    parts: [
      { type: 'step-start' },
      { type: 'tool-weather', toolCallId: 'call-1', state: 'output-available', input: { city: 'Lisbon' }, output: { tempC: 21 } },
      { type: 'text', text: 'It is 21 °C in Lisbon.' },
    ],
  },
  text('u2', 'user', 'I fly there on Friday.'),
  text('a2', 'assistant', 'Have a good trip.'),
  text('u3', 'user', 'Should I pack a coat?'),
];

/** Each turn counts one token: `keepTokens: 2` keeps the newest two turns. */
const perTurn = () => 1;

/** Compact now, keeping the newest two turns as they are. */
const keepTwo = { thresholdTokens: 0, keepTokens: 2, counter: perTurn };

describe.each(SDKS)('summarizeWith in compactWhenOver, $name', ({ MockLanguageModel }) => {
  it('sends the turns to fold (and the summary so far), records one compaction, and the next prompt uses it', async () => {
    const state = await openSqlite(db.db);
    try {
      const chats = createChatStore({ provider: state });
      await chats.saveChat({ chatId: 'chat-1', messages: chat });
      const turns = await state.sessions.turns('chat-1');
      const model = new MockLanguageModel({ doGenerate: [textStep('Ana asked about Lisbon (21 °C); she flies Friday.\n'), textStep('Rolled up.')] });
      const before = await state.log.head(STATE_STREAM);

      const compacted = await compactWhenOver(state.sessions, 'chat-1', { ...keepTwo, summarize: summarizeWith(model) });

      const call = '{"callId":"call-1","input":{"city":"Lisbon"},"toolName":"weather","type":"tool-call"}';
      const result = '{"callId":"call-1","isError":false,"output":{"tempC":21},"toolName":"weather","type":"tool-result"}';
      const conversation = `user\nWhat is the weather in Lisbon?\n\nassistant\n${call}\n${result}\nIt is 21 °C in Lisbon.\n\nuser\nI fly there on Friday.`;
      expect(model.doGenerateCalls.map((c) => c.prompt)).toEqual([
        [{ role: 'user', content: [{ type: 'text', text: `${SUMMARY_INSTRUCTIONS}\n\nConversation:\n${conversation}` }] }],
      ]);
      const summary = { text: 'Ana asked about Lisbon (21 °C); she flies Friday.', through: turns[2]!.id, model: 'mock-model-id', tokens: 5 };
      expect(compacted?.summary).toMatchObject(summary);
      const events = await state.log.read({ stream: STATE_STREAM, afterSeq: before });
      expect(events.map((event) => event.type)).toEqual([EventTypes.SessionCompacted]);
      expect(await state.sessions.get('chat-1')).toEqual(compacted);

      expect(await contextPrompt(state, 'chat-1', { maxTokens: 10_000 })).toStrictEqual({
        instructions: `Summary of the earlier conversation:\n${summary.text}`,
        messages: [
          { role: 'assistant', content: [{ type: 'text', text: 'Have a good trip.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Should I pack a coat?' }] },
        ],
      });

      // Two more turns: the next summary folds the earlier one with the turns after it.
      await chats.saveChat({ chatId: 'chat-1', messages: [...chat, text('a3', 'assistant', 'Yes, a light one.'), text('u4', 'user', 'Thanks.')] });
      const summarize = summarizeWith(model, { instructions: 'Summarise in one line.' });
      const rolled = await compactWhenOver(state.sessions, 'chat-1', { ...keepTwo, summarize });
      expect(model.doGenerateCalls[1]!.prompt).toEqual([
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: `Summarise in one line.\n\nSummary so far:\n${summary.text}\n\nConversation:\nassistant\nHave a good trip.\n\nuser\nShould I pack a coat?`,
            },
          ],
        },
      ]);
      expect(rolled?.summary).toMatchObject({ text: 'Rolled up.', through: turns[4]!.id });
    } finally {
      await state.close();
    }
  });
});

describe('summarizeWith', () => {
  it('writes nothing when the model fails or answers blank, and refuses empty instructions', async () => {
    const { MockLanguageModel } = SDKS[0]!;
    const state = await openSqlite(db.db);
    try {
      await createChatStore({ provider: state }).saveChat({ chatId: 'chat-1', messages: chat });
      const before = await state.log.head(STATE_STREAM);
      const model = new MockLanguageModel({
        doGenerate: async () => {
          throw new Error('the model is down');
        },
      });
      const policy = { thresholdTokens: 0, counter: perTurn, summarize: summarizeWith(model) };
      await expect(compactWhenOver(state.sessions, 'chat-1', policy)).rejects.toThrow('the model is down');
      expect(await state.log.head(STATE_STREAM)).toBe(before);
      expect((await state.sessions.get('chat-1')).summary).toBeUndefined();
      const blank = summarizeWith(new MockLanguageModel({ doGenerate: [textStep(' \n')] }));
      await expect(compactWhenOver(state.sessions, 'chat-1', { ...policy, summarize: blank })).rejects.toBeInstanceOf(ValidationError);
      expect(await state.log.head(STATE_STREAM)).toBe(before);
      expect(() => summarizeWith(model, { instructions: ' ' })).toThrow(ValidationError);
    } finally {
      await state.close();
    }
  });
});
