/**
 * The checkpointer across processes: a real `StateGraph` with a tool node
 * pauses before the tool in one process, which exits; a second process
 * resumes the thread from the same SQLite file and finishes it. The file then
 * verifies, and an export imported into a new file keeps the checkpoints.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportLog } from '@agentstate/core';
import { importSqlite, openSqlite } from '@agentstate/sqlite';
import type { CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteSaver } from '../src/index.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const dir = mkdtempSync(join(tmpdir(), 'agentstate-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const agent = fileURLToPath(new URL('./fixtures/weather-agent.ts', import.meta.url));

/** Runs one phase of the agent in its own process and returns the state it printed. */
function run(path: string, phase: 'start' | 'resume') {
  const out = execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), agent, path, phase], { encoding: 'utf8', timeout: HANG_GUARD_MS });
  return JSON.parse(out) as { next: string[]; messages: { type: string; content: string; toolCalls: { name: string; args: unknown }[] }[] };
}

async function allCheckpoints(path: string): Promise<CheckpointTuple[]> {
  const saver = await openSqliteSaver(path);
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: 'weather-1' } })) tuples.push(tuple);
  await saver.close();
  return tuples;
}

describe('a graph resumed by another process', () => {
  it('pauses before the tool, exits, and finishes from the same file in a new process', async () => {
    const path = join(dir, 'agent.db');
    const first = run(path, 'start');
    expect(first.next).toEqual(['tools']);
    expect(first.messages.map((m) => m.type)).toEqual(['human', 'ai']);
    expect(first.messages[1]!.toolCalls).toMatchObject([{ name: 'weather', args: { city: 'Paris' } }]);

    const second = run(path, 'resume');
    expect(second.next).toEqual([]);
    expect(second.messages.map((m) => [m.type, m.content])).toEqual([
      ['human', 'Weather in Paris?'],
      ['ai', 'Let me look.'],
      ['tool', 'Paris: 21 °C and sunny'],
      ['ai', 'Paris is sunny, 21 °C.'],
    ]);

    const provider = await openSqlite(path);
    const report = await provider.verify();
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    let text = '';
    await exportLog(provider.log, (chunk) => {
      text += chunk;
    });
    await provider.close();

    const copy = join(dir, 'copy.db');
    await importSqlite(copy, text.split('\n').slice(0, -1));
    const original = await allCheckpoints(path);
    expect(original.length).toBeGreaterThanOrEqual(4);
    expect(original[0]!.checkpoint.channel_values).toHaveProperty('messages');
    expect(await allCheckpoints(copy)).toEqual(original);
  });
});
