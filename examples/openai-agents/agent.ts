/**
 * A small OpenAI Agents SDK agent with a tool and a durable session, offline
 * on the SDK's scripted model. Each run opens the SQLite file afresh, as a
 * new process would, and carries on the same conversation.
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

// Your model in an app; a scripted one here, so this runs offline. One entry per model call.
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
  const session = await AgentStateSession.sqlite(path, { sessionId: 'ops-chat', scope: ['user', 'ada'] });
  try {
    const result = await run(agent, input, { session });
    console.log(`user: ${input}`);
    console.log(`assistant: ${result.finalOutput}`);
    // What the session handed the model: the whole conversation so far, read back from the file.
    const seen = model.calls.at(-1)?.request.input;
    console.log(`  (the model saw ${Array.isArray(seen) ? seen.length : 1} items)`);
  } finally {
    await session.close();
  }
}

try {
  await ask('Why did the staging deploy fail?');
  await ask('What did I ask you?');

  const session = await AgentStateSession.sqlite(path, { sessionId: 'ops-chat' });
  const items = await session.getItems();
  console.log(`ops-chat holds ${items.length} items: ${items.map((item) => item.type ?? 'message').join(', ')}`);
  const hits = await session.provider.sessions.search({ query: 'memory', sessionId: 'ops-chat' });
  console.log(hits.map((hit) => hit.turn.content));
  await session.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
