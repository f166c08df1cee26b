import { openSqlite } from '@agentstate/sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryTools } from '../src/index.js';
import { tempDb } from './helpers.js';
import { SDKS, textStep, toolCallStep } from './sdks.js';

let db: { db: string; cleanup: () => void };

beforeEach(() => {
  db = tempDb();
});

afterEach(() => {
  db.cleanup();
});

describe.each(SDKS)('an agent loop with the mock language model, $name', ({ ai, MockLanguageModel }) => {
  it('remembers a fact in one turn and recalls it in the next, from the SQLite file', async () => {
    const fact = 'The user is allergic to peanuts';

    // Turn 1: the model calls `remember`, the tool writes to the file, the model answers.
    const first = await openSqlite(db.db);
    const rememberModel = new MockLanguageModel({ doGenerate: [toolCallStep('call-1', 'remember', { content: fact, key: 'allergy' }), textStep('Noted.')] });
    const turn1 = await ai.generateText({
      model: rememberModel,
      tools: memoryTools({ provider: first, scope: ['user', 'ana'] }),
      prompt: 'I am allergic to peanuts, remember that.',
      stopWhen: ai.stepCountIs(5),
    });
    expect(turn1.text).toBe('Noted.');
    expect(turn1.steps[0]!.toolResults[0]!.output).toMatchObject({ content: fact, key: 'allergy' });
    await first.close();

    // Turn 2, on a provider reopened on the same file: the model calls `recall` and sees the fact.
    const second = await openSqlite(db.db);
    try {
      const recallModel = new MockLanguageModel({
        doGenerate: [toolCallStep('call-2', 'recall', { query: 'what is the user allergic to' }), textStep('You are allergic to peanuts.')],
      });
      const turn2 = await ai.generateText({
        model: recallModel,
        tools: memoryTools({ provider: second, scope: ['user', 'ana'] }),
        prompt: 'What should I avoid eating?',
        stopWhen: ai.stepCountIs(5),
      });
      const recalled = turn2.steps[0]!.toolResults[0]!.output as { memories: { content: string }[] };
      expect(recalled.memories.map((m) => m.content)).toEqual([fact]);
      // What the model was given in its second call holds the recalled fact.
      expect(JSON.stringify(recallModel.doGenerateCalls[1]!.prompt)).toContain(fact);
      expect(turn2.text).toBe('You are allergic to peanuts.');

      // Another user's tools do not see it.
      const bobModel = new MockLanguageModel({ doGenerate: [toolCallStep('call-3', 'recall', { query: 'allergic' }), textStep('Nothing.')] });
      const bob = await ai.generateText({
        model: bobModel,
        tools: memoryTools({ provider: second, scope: ['user', 'bob'] }),
        prompt: 'What am I allergic to?',
        stopWhen: ai.stepCountIs(5),
      });
      expect(bob.steps[0]!.toolResults[0]!.output).toEqual({ memories: [] });
    } finally {
      await second.close();
    }
  });
});
