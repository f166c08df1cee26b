import { describe, expect, it } from 'vitest';
import { runExample } from '../../../tools/example.js';

describe('examples/ai-sdk', () => {
  it('remembers in one turn and recalls in the next, the model called with the working memory, the summary, then the newest turns', async () => {
    expect((await runExample('ai-sdk')).trim().split('\n')).toEqual([
      'tool remember: "Ana drinks green tea, never coffee"',
      'assistant: Noted: green tea, never coffee.',
      'tool recall: ["Ana drinks green tea, never coffee"]',
      'assistant: A green tea.',
      'chat-1 holds 4 messages',
      // The model's last call: the first turn folded into the summary, the second as it is, with its tool call and result.
      '> system: You are a helpful assistant. Remember what the user tells you about themselves.',
      '',
      'Working memory:',
      'Ana prefers short answers.',
      '',
      'Summary of the earlier conversation:',
      'Ana told the assistant she drinks green tea, never coffee.',
      '> user: What should you bring me?',
      '> assistant: tool-call recall',
      '> tool: tool-result recall',
    ]);
  });
});
