import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../tools/readme-example.js';

describe('the README examples', () => {
  it('runs as written against the built package', () => {
    const out = runReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)));
    const [count, ...hits] = out.trim().split('\n');
    expect(count).toBe('4');
    expect(hits.join('')).toContain("'Deploy is failing on staging'");
    expect(hits.join('')).toContain("'Try rolling back the staging deploy.'");
    expect(hits.join('')).toContain("'You asked about staging.'");
  });

  it('the note on closing runs as written: initial items once, then the provider closed by its opener', () => {
    const out = runReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)), {}, undefined, 1);
    expect(out.trim()).toBe('2');
  });

  it('the compaction example gives the model the summary, then the newer items, and keeps the transcript whole', () => {
    const out = runReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)), {}, undefined, 2);
    const [input, turns] = out.trim().split('\n');
    expect(JSON.parse(input!)).toEqual([
      { role: 'system', content: 'Summary of the earlier conversation:\nThe staging deploy failed with a migration error.' },
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Roll back the staging deploy, then rerun the migration.' }],
      },
      { type: 'message', role: 'user', content: 'I rolled it back' },
    ]);
    expect(turns).toBe('4');
  });
});
