import { describe, expect, it } from 'vitest';
import { runExample } from '../../../tools/example.js';

describe('examples/ai-sdk', () => {
  it('remembers in one turn and recalls in the next, from the SQLite file', () => {
    expect(runExample('ai-sdk').trim().split('\n')).toEqual([
      'tool remember: "Ana drinks green tea, never coffee"',
      'assistant: Noted.',
      'tool recall: ["Ana drinks green tea, never coffee"]',
      'assistant: A green tea.',
      'chat-1 holds 4 messages',
      "[ 'Ana drinks green tea, never coffee' ]",
    ]);
  });
});
