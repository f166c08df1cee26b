/**
 * A small OpenAI Agents SDK agent with a tool and a durable session, offline
 * on the SDK's scripted models. Each run opens the SQLite file afresh, as a
 * new process would, and carries on the same conversation. The session
 * compacts once it passes a small threshold, so the next run's model call
 * gets the summary in place of the older items.
 * Run from the repository root after `npm run build`: `npx tsx examples/openai-agents/agent.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentStateSession } from '@agentstate/openai-agents';
import { Agent, run, setTracingDisabled, tool } from '@openai/agents-core';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents-core/testing';

setTracingDisabled(true);

const checkDeploys = tool({
  name: 'check_deploys',
  description: 'The latest deploy of an environment',
  parameters: { type: 'object', properties: { env: { type: 'string' } }, required: ['env'], additionalProperties: false },
  strict: true,
  execute: async (input) => `${(input as { env: string }).env}: deploy 812 failed, out of memory`,
});

// Your models in an app; scripted ones here, so this runs offline. One entry per model call.
const summarizer = new ScriptedModel([[assistantMessage('The user asked why the staging deploy failed; check_deploys said deploy 812 ran out of memory.')]]);
const model = new ScriptedModel([
  [functionCall('check_deploys', { env: 'staging' }, { callId: 'call_1' })],
  [assistantMessage('Deploy 812 on staging ran out of memory; roll back or raise the limit.')],
  [assistantMessage('You asked why the staging deploy failed.')],
]);
const agent = new Agent({ name: 'Ops', instructions: 'Help with deploys.', model, tools: [checkDeploys] });

const dir = mkdtempSync(join(tmpdir(), 'agentstate-example-openai-agents-'));
const path = join(dir, 'agent.db');

/** One run in a session opened on the file, as a fresh process would. */
async function ask(input: string): Promise<void> {
  const session = await AgentStateSession.sqlite(path, {
    sessionId: 'ops-chat',
    scope: ['user', 'ada'],
    // Past 100 tokens, fold all but the newest within 60 into a summary the summarizer writes.
    compaction: { thresholdTokens: 100, keepTokens: 60, model: summarizer },
  });
  try {
    const result = await run(agent, input, { session });
    console.log(`user: ${input}`);
    console.log(`assistant: ${result.finalOutput}`);
  } finally {
    await session.close();
  }
}

try {
  await ask('Why did the staging deploy fail?');
  await ask('What did I ask you?');

  // What the model received on its last call: the summary, then the newer items, read back from the file.
  const seen = model.calls.at(-1)!.request.input;
  for (const item of Array.isArray(seen) ? seen : [seen]) console.log(`> ${JSON.stringify(item)}`);

  const session = await AgentStateSession.sqlite(path, { sessionId: 'ops-chat' });
  // The transcript stays whole; the summary only stands in for its items in what the model is given.
  const turns = await session.provider.sessions.turns('ops-chat');
  console.log(`ops-chat holds ${turns.length} items; the model is given ${(await session.getItems()).length}`);
  const hits = await session.provider.sessions.search({ query: 'memory', sessionId: 'ops-chat' });
  console.log(hits.map((hit) => hit.turn.content));
  await session.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
