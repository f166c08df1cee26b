import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../tools/readme-example.js';
import { dropSchema, testServer } from '../../postgres/test/cluster.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));

describe('the README examples', () => {
  it('the store runs as written against the built package', () => {
    const out = runReadmeExample(readme);
    expect(out.split('\n').filter(Boolean)).toEqual(["[ 'I drink green tea' ]", "{ text: 'I drink green tea' }", "[ [ 'memories', 'ada' ] ]"]);
  });

  it('the checkpointer runs as written, and the thread goes on after reopening the file', () => {
    const out = runReadmeExample(readme, {}, undefined, 1);
    expect(out.split('\n').filter(Boolean)).toEqual(['2', '3']);
  });

  it('the PostgreSQL route runs as written: one call per saver and store, the thread shared by two savers', async () => {
    const { url } = await testServer();
    await dropSchema(url, 'graphs');
    try {
      const out = runReadmeExample(readme, { DATABASE_URL: url }, undefined, 2);
      expect(out.split('\n').filter(Boolean)).toEqual(['2', "[ 'tea' ]"]);
    } finally {
      await dropSchema(url, 'graphs');
    }
  });

  it('the context example runs as written: the model gets the recalled memory, then the newest turns that fit, a tool call with its result', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-langgraph-'));
    try {
      const out = runReadmeExample(readme, {}, dir, 3);
      expect(out.split('\n').filter(Boolean)).toEqual([
        'system: Memories recalled for this conversation:',
        '- Ada cycles to work',
        'human: What is the weather in Lisbon?',
        'ai: weather({"city":"Lisbon"})',
        'tool: rain',
        'human: How should I get to work in Lisbon?',
        'Take a bus: it rains, and your bike gets wet.',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
