import { describe, expect, it } from 'vitest';
import { runExample } from '../../../tools/example.js';

describe('examples/openai-agents', () => {
  it('carries one conversation across two runs on the SQLite file, the second model call given the summary, then the newer items', async () => {
    expect((await runExample('openai-agents')).trim().split('\n')).toEqual([
      'user: Why did the staging deploy fail?',
      'assistant: Deploy 812 on staging ran out of memory; roll back or raise the limit.',
      'user: What did I ask you?',
      'assistant: You asked why the staging deploy failed.',
      // The first run's question, tool call and result were folded into the summary after it; its answer was kept.
      '> {"role":"system","content":"Summary of the earlier conversation:\\nThe user asked why the staging deploy failed; check_deploys said deploy 812 ran out of memory."}',
      '> {"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Deploy 812 on staging ran out of memory; roll back or raise the limit."}]}',
      '> {"type":"message","role":"user","content":"What did I ask you?"}',
      'ops-chat holds 6 items; the model is given 4',
      '[',
      "  'Deploy 812 on staging ran out of memory; roll back or raise the limit.'",
      ']',
    ]);
  });
});
