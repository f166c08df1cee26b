/**
 * The SDK's runner on an AgentStateSession, as an app uses it: one process
 * runs an agent (a tool call and an answer, scripted), a second process
 * opens the same SQLite file and continues the conversation, and its model
 * is given everything the first one said.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentStateSession } from '@agentstate/openai-agents';
import { afterAll, describe, expect, it } from 'vitest';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const script = fileURLToPath(new URL('./fixtures/run-turn.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'agentstate-openai-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs one turn of the agent in a new node process and returns what it printed. */
function runTurn(path: string, step: 'first' | 'second'): { finalOutput: string; modelInput: unknown[] } {
  const out = execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), script, path, 'chat-1', step], {
    encoding: 'utf8',
    timeout: HANG_GUARD_MS,
  });
  return JSON.parse(out) as { finalOutput: string; modelInput: unknown[] };
}

describe('run(agent, input, { session }) across a process restart', () => {
  it('continues the conversation from the SQLite file', async () => {
    const path = join(dir, 'agent.db');
    expect(runTurn(path, 'first').finalOutput).toBe('It is sunny in Paris.');
    const second = runTurn(path, 'second');
    expect(second.finalOutput).toBe('I was given 5 items.');
    expect(second.modelInput).toMatchObject([
      { role: 'user', content: 'What is the weather in Paris?' },
      { type: 'function_call', callId: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_result', callId: 'call_1', output: { type: 'text', text: 'Sunny in Paris' } },
      { role: 'assistant', content: [{ type: 'output_text', text: 'It is sunny in Paris.' }] },
      { role: 'user', content: 'And what did I ask you before?' },
    ]);

    const session = await AgentStateSession.sqlite(path, { sessionId: 'chat-1' });
    try {
      const items = await session.getItems();
      expect(items).toHaveLength(6);
      expect(items.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'output_text', text: 'I was given 5 items.' }] });
      const hits = await session.provider.sessions.search({ query: 'Paris weather', sessionId: 'chat-1' });
      expect(hits.map((h) => h.turn.content)).toContain('What is the weather in Paris?');
    } finally {
      await session.close();
    }
  });
});
