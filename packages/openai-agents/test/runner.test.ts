/**
 * The SDK's runner drives AgentStateSession and its own MemorySession
 * through the same scripted conversation (a tool call, several runs, an
 * output guardrail that trips); both end with the same history.
 */
import { createInMemoryProvider } from '@agentstate/core';
import { AgentStateSession } from '@agentstate/openai-agents';
import type { Session } from '@openai/agents-core';
import { Agent, MemorySession, OutputGuardrailTripwireTriggered, run, setTracingDisabled, tool } from '@openai/agents-core';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents-core/testing';
import { describe, expect, it } from 'vitest';
import { expectSame } from './helpers.js';

setTracingDisabled(true);

const lookup = tool({
  name: 'lookup',
  description: 'Looks a word up',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'], additionalProperties: false },
  strict: true,
  execute: async (input) => ({ type: 'text' as const, text: `definition of ${(input as { word: string }).word}` }),
});

/** Runs the scripted conversation on `session`; returns how each run ended. */
async function converse(session: Session): Promise<string[]> {
  const model = new ScriptedModel([
    [functionCall('lookup', { word: 'idempotent' }, { callId: 'call_a' })],
    [assistantMessage('It means a retry changes nothing.')],
    [assistantMessage('The secret is 42.')],
    [assistantMessage('Anything else?')],
  ]);
  const agent = new Agent({
    name: 'Glossary',
    model,
    tools: [lookup],
    outputGuardrails: [
      { name: 'no secrets', execute: async ({ agentOutput }) => ({ tripwireTriggered: String(agentOutput).includes('secret'), outputInfo: null }) },
    ],
  });
  const ended: string[] = [];
  for (const input of ['What does idempotent mean?', 'Tell me the secret', 'Thanks']) {
    try {
      ended.push(String((await run(agent, input, { session })).finalOutput));
    } catch (error) {
      if (!(error instanceof OutputGuardrailTripwireTriggered)) throw error;
      ended.push('tripped');
    }
  }
  model.assertComplete();
  return ended;
}

describe('the SDK runner on AgentStateSession', () => {
  it('leaves the same history as on MemorySession', async () => {
    const ours = new AgentStateSession(createInMemoryProvider());
    const theirs = new MemorySession();
    const ended = await converse(ours);
    expect(ended).toEqual(await converse(theirs));
    expect(ended).toEqual(['It means a retry changes nothing.', 'tripped', 'Anything else?']);
    const history = await ours.getItems();
    expectSame(history, await theirs.getItems());
    expect(history.length).toBeGreaterThan(6);
  });
});
