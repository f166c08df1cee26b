/**
 * Compaction through the SDK's own runner: `run()` calls `runCompaction`
 * after a turn, agentstate's `compactWhenOver` writes one `session.compacted`
 * event, and the next model call reads the summary in place of the items it
 * covers, then the newer ones; the transcript stays whole. On a real SQLite
 * file and on the in-memory provider.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventSourcedProvider, SummarizeInput } from '@agentstate/core';
import { createInMemoryProvider, EventTypes, STATE_STREAM, ValidationError } from '@agentstate/core';
import type { SessionCompaction } from '@agentstate/openai-agents';
import { AgentStateSession, SUMMARY_INSTRUCTIONS, summaryItem, turnToItem } from '@agentstate/openai-agents';
import { openSqlite } from '@agentstate/sqlite';
import type { AgentInputItem } from '@openai/agents-core';
import { Agent, run, setTracingDisabled, tool, Usage } from '@openai/agents-core';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents-core/testing';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

setTracingDisabled(true);
const dir = mkdtempSync(join(tmpdir(), 'agentstate-openai-compaction-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const weather = tool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
  execute: async () => ({ type: 'text' as const, text: 'Sunny in Paris' }),
});

/** One token per item: which items a threshold and a keep select is then plain to see. */
const perItem = () => 1;

const backends: [string, () => Promise<EventSourcedProvider>][] = [
  ['a SQLite file', () => openSqlite(join(dir, `${crypto.randomUUID()}.db`))],
  ['the in-memory provider', async () => createInMemoryProvider()],
];

/** The `session.compacted` events on the provider's log. */
async function compactions(provider: EventSourcedProvider): Promise<number> {
  return (await provider.log.read({ stream: STATE_STREAM })).filter((e) => e.type === EventTypes.SessionCompacted).length;
}

/** Two runs of an agent whose first run calls a tool; returns the agent's model and the first run's usage. */
async function converse(session: AgentStateSession): Promise<{ model: ScriptedModel; usage: Usage }> {
  const model = new ScriptedModel([
    [functionCall('get_weather', { city: 'Paris' }, { callId: 'call_1' })],
    [assistantMessage('It is sunny in Paris.')],
    [assistantMessage('You asked about the weather.')],
  ]);
  const agent = new Agent({ name: 'Weather', model, tools: [weather] });
  const first = await run(agent, 'What is the weather in Paris?', { session });
  await run(agent, 'What did I ask?', { session });
  model.assertComplete();
  return { model, usage: first.state.usage };
}

describe.each(backends)('the runner compacts an AgentStateSession on %s', (_name, open) => {
  it('with a summarize function: one compaction, then the summary and the newer items reach the model', async () => {
    const provider = await open();
    const given: SummarizeInput[] = [];
    const summarize = async (input: SummarizeInput) => {
      given.push(input);
      return 'The user asked for the weather in Paris; get_weather said sunny.';
    };
    const session = new AgentStateSession(provider, { compaction: { thresholdTokens: 3, keepTokens: 1, counter: perItem, summarize } });
    const { model, usage } = await converse(session);
    expect(usage.requests).toBe(2);

    // After the first run's four items: the user's question and the tool call with its result folded, the answer kept.
    expect(given).toHaveLength(1);
    expect(given[0]!.summary).toBeUndefined();
    expect(given[0]!.turns.map(turnToItem)).toMatchObject([
      { role: 'user', content: 'What is the weather in Paris?' },
      { type: 'function_call', callId: 'call_1' },
      { type: 'function_call_result', callId: 'call_1' },
    ]);
    expect(model.calls[2]!.request.input).toEqual([
      { role: 'system', content: 'Summary of the earlier conversation:\nThe user asked for the weather in Paris; get_weather said sunny.' },
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'It is sunny in Paris.' }] },
      { type: 'message', role: 'user', content: 'What did I ask?' },
    ]);
    expect(await compactions(provider)).toBe(1);
    const id = await session.getSessionId();
    expect(await provider.sessions.turns(id)).toHaveLength(6);
    expect((await session.getItems()).slice(1)).toEqual((await provider.sessions.turns(id)).slice(3).map(turnToItem));
    await provider.close();
  });

  it('with a model: asked with the folded items, its usage counted in the run', async () => {
    const provider = await open();
    const summarizer = new ScriptedModel([
      { output: [assistantMessage('Asked about the Paris weather: sunny.')], usage: new Usage({ inputTokens: 40, outputTokens: 9, totalTokens: 49 }) },
    ]);
    const session = new AgentStateSession(provider, { compaction: { thresholdTokens: 3, keepTokens: 1, counter: perItem, model: summarizer } });
    const { usage } = await converse(session);
    summarizer.assertComplete();
    expect(usage.requests).toBe(3);
    expect(usage.inputTokens).toBe(40);
    const { request } = summarizer.calls[0]!;
    expect(request.systemInstructions).toBe(SUMMARY_INSTRUCTIONS);
    expect(request.input).toMatchObject([{ role: 'user' }, { type: 'function_call' }, { type: 'function_call_result' }]);
    expect((await provider.sessions.get(await session.getSessionId())).summary?.text).toBe('Asked about the Paris weather: sunny.');
    expect((await session.getItems())[0]).toEqual(summaryItem({ text: 'Asked about the Paris weather: sunny.' }));
    await provider.close();
  });
});

describe('runCompaction', () => {
  it('without the option, never compacts; with force, compacts under the threshold', async () => {
    const provider = createInMemoryProvider();
    const items: AgentInputItem[] = [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ];
    const plain = new AgentStateSession(provider, { sessionId: 's', initialItems: items });
    expect(await plain.getItems()).toEqual(items);
    expect(await plain.runCompaction({ force: true })).toBeNull();
    expect(await compactions(provider)).toBe(0);
    const summarize = async () => 'S';
    const session = new AgentStateSession(provider, { sessionId: 's', compaction: { thresholdTokens: 1000, summarize } });
    await session.runCompaction();
    expect(await compactions(provider)).toBe(0);
    expect(await session.runCompaction({ force: true })).toBeNull();
    expect(await session.getItems()).toEqual([summaryItem({ text: 'S' })]);
    expect(await session.getItems(1)).toEqual([summaryItem({ text: 'S' })]);
    expect(await plain.getItems()).toEqual([summaryItem({ text: 'S' })]);
    expect(await provider.sessions.turns('s')).toHaveLength(2);
  });

  it('a failing summary fails the run after its items are saved, and writes no summary', async () => {
    const provider = createInMemoryProvider();
    const summarize = async (): Promise<string> => {
      throw new Error('summarizer down');
    };
    const session = new AgentStateSession(provider, { compaction: { thresholdTokens: 0, summarize } });
    const agent = new Agent({ name: 'A', model: new ScriptedModel([[assistantMessage('Hello.')]]) });
    await expect(run(agent, 'Hi', { session })).rejects.toThrow('summarizer down');
    expect(await session.getItems()).toMatchObject([{ role: 'user', content: 'Hi' }, { role: 'assistant' }]);
    expect(await compactions(provider)).toBe(0);
  });

  it('refuses a compaction option without exactly one source of summaries, writing nothing', () => {
    const model = new ScriptedModel([]);
    const summarize = async () => 'S';
    for (const compaction of [null, { thresholdTokens: 1 }, { thresholdTokens: 1, summarize, model }] as unknown as SessionCompaction[]) {
      expect(() => new AgentStateSession(createInMemoryProvider(), { compaction })).toThrow(ValidationError);
    }
  });

  it('getItems after a compaction is the summary and the items after the folded ones, never a result without its call', async () => {
    // Messages and tool calls, each call followed (maybe after other items) by its result.
    const step = fc.oneof(
      fc.constant<AgentInputItem[]>([{ role: 'user', content: 'hi' }]),
      fc
        .nat(2)
        .map((gap): AgentInputItem[] => [
          { type: 'function_call', callId: 'c', name: 'f', arguments: '{}' },
          ...Array.from({ length: gap }, () => ({ role: 'assistant' as const, status: 'completed' as const, content: [] })),
          { type: 'function_call_result', callId: 'c', name: 'f', status: 'completed', output: 'r' },
        ]),
    );
    // Each call and its result share their step's id.
    const conversation = fc
      .array(step, { minLength: 1, maxLength: 6 })
      .map((steps) => steps.flatMap((items, n) => items.map((item) => ('callId' in item ? { ...item, callId: `call-${n}` } : item))));
    await fc.assert(
      fc.asyncProperty(conversation, fc.nat(12), async (items, keep) => {
        const provider = createInMemoryProvider();
        const session = new AgentStateSession(provider, {
          initialItems: items,
          compaction: { thresholdTokens: 0, keepTokens: keep, counter: perItem, summarize: async () => 'S' },
        });
        await session.runCompaction();
        // The kept suffix: the newest `keep` items, shortened until no result in it lacks its call.
        let start = Math.max(0, items.length - keep);
        const callOf = (i: number) =>
          items.findLastIndex((c, j) => j < i && c.type === 'function_call' && 'callId' in items[i]! && c.callId === items[i]!.callId);
        while (items.slice(start).some((item, k) => item.type === 'function_call_result' && callOf(start + k) < start)) start++;
        const expected = start === 0 ? items : [summaryItem({ text: 'S' }), ...items.slice(start)];
        expect(await session.getItems()).toEqual(expected);
        await provider.close();
      }),
      { numRuns: 40 },
    );
  });
});
