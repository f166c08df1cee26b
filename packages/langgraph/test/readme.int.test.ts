import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runReadmeExamples } from '../../../tools/readme-example.js';
import { dropSchema, testServer } from '../../postgres/test/cluster.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));

/** The lines each example printed: the four run in one process, so LangChain's modules load once. */
let printed: string[][];

beforeAll(async () => {
  const { url } = await testServer();
  await dropSchema(url, 'graphs');
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-langgraph-'));
  try {
    const outs = runReadmeExamples(readme, [{ index: 0 }, { index: 1 }, { index: 2, env: { DATABASE_URL: url } }, { index: 3, cwd: dir }]);
    printed = outs.map((out) => out.split('\n').filter(Boolean));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await dropSchema(url, 'graphs');
  }
});

describe('the README examples', () => {
  it('the store runs as written against the built package', () => {
    expect(printed[0]).toEqual(["[ 'I drink green tea' ]", "{ text: 'I drink green tea' }", "[ [ 'memories', 'ada' ] ]"]);
  });

  it('the checkpointer runs as written, and the thread goes on after reopening the file', () => {
    expect(printed[1]).toEqual(['2', '3']);
  });

  it('the PostgreSQL route runs as written: one call per saver and store, the thread shared by two savers', () => {
    expect(printed[2]).toEqual(['2', "[ 'tea' ]"]);
  });

  it('the context example runs as written: the model gets the recalled memory, then the newest turns that fit, a tool call with its result', () => {
    expect(printed[3]).toEqual([
      'system: Memories recalled for this conversation:',
      '- Ada cycles to work',
      'human: What is the weather in Lisbon?',
      'ai: weather({"city":"Lisbon"})',
      'tool: rain',
      'human: How should I get to work in Lisbon?',
      'Take a bus: it rains, and your bike gets wet.',
    ]);
  });
});
