import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../tools/readme-example.js';
import { tempDb } from './helpers.js';

describe('the README example', () => {
  it('runs as written against the built package', () => {
    const { dir, cleanup } = tempDb();
    try {
      const out = runReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)), {}, dir);
      expect(out.split('\n').filter(Boolean)).toEqual(['user: text', 'assistant: step-start, tool-remember, step-start, text', "[ 'Ana drinks tea' ]"]);
    } finally {
      cleanup();
    }
  });

  it('runs the context example as written', () => {
    const { dir, cleanup } = tempDb();
    try {
      const out = runReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)), {}, dir, 1);
      expect(out.split('\n').filter(Boolean)).toEqual(['Memories recalled for this conversation:', '- Ana drinks green tea', 'system, user → Green tea.']);
    } finally {
      cleanup();
    }
  });

  it('runs the summary example as written', () => {
    const { dir, cleanup } = tempDb();
    try {
      const out = runReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)), {}, dir, 2);
      expect(out.split('\n').filter(Boolean)).toEqual([
        'mock-model-id, 9 tokens: Ana plans a May trip to Lisbon with her bicycle.',
        'user | user assistant user | system assistant user',
      ]);
    } finally {
      cleanup();
    }
  });
});
