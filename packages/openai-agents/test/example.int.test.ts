import { describe, expect, it } from 'vitest';
import { runExample } from '../../../tools/example.js';

describe('examples/openai-agents', () => {
  it('carries one conversation, tool call and all, across two runs on the SQLite file', () => {
    expect(runExample('openai-agents').trim().split('\n')).toEqual([
      'user: Why did the staging deploy fail?',
      'assistant: Deploy 812 on staging ran out of memory; roll back or raise the limit.',
      '  (the model saw 3 items)',
      'user: What did I ask you?',
      'assistant: You asked why the staging deploy failed.',
      // The second run was handed the first run's four items and the new question.
      '  (the model saw 5 items)',
      'ops-chat holds 6 items: message, function_call, function_call_result, message, message, message',
      '[',
      "  'Deploy 812 on staging ran out of memory; roll back or raise the limit.'",
      ']',
    ]);
  });
});
