import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReadmeExamples } from '../../../tools/readme-example.js';
import { tempDb } from './helpers.js';

/** The lines each example printed, each run in a folder of its own: the three run in one process, so the SDK loads once. */
let printed: string[][];
const dirs = [tempDb(), tempDb(), tempDb()];
afterAll(() => {
  for (const dir of dirs) dir.cleanup();
});

beforeAll(() => {
  const outs = runReadmeExamples(
    fileURLToPath(new URL('../README.md', import.meta.url)),
    dirs.map(({ dir }, index) => ({ index, cwd: dir })),
  );
  printed = outs.map((out) => out.split('\n').filter(Boolean));
});

describe('the README example', () => {
  it('runs as written against the built package', () => {
    expect(printed[0]).toEqual(['user: text', 'assistant: step-start, tool-remember, step-start, text', "[ 'Ana drinks tea' ]"]);
  });

  it('runs the context example as written', () => {
    expect(printed[1]).toEqual(['Memories recalled for this conversation:', '- Ana drinks green tea', 'system, user → Green tea.']);
  });

  it('runs the summary example as written', () => {
    expect(printed[2]).toEqual([
      'mock-model-id, 9 tokens: Ana plans a May trip to Lisbon with her bicycle.',
      'user | user assistant user | system assistant user',
    ]);
  });
});
