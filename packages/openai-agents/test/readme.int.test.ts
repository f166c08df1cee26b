import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { importReadmeExample } from '../../../tools/readme-example.js';

/** What each example printed: library code alone, they run in this process, where the SDK's modules are loaded once. */
const printed: string[] = [];

beforeAll(async () => {
  for (const index of [0, 1, 2]) printed.push((await importReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)), index)).trim());
});

describe('the README examples', () => {
  it('runs as written against the built package', () => {
    const [count, ...hits] = printed[0]!.split('\n');
    expect(count).toBe('4');
    expect(hits.join('')).toContain("'Deploy is failing on staging'");
    expect(hits.join('')).toContain("'Try rolling back the staging deploy.'");
    expect(hits.join('')).toContain("'You asked about staging.'");
  });

  it('the note on closing runs as written: initial items once, then the provider closed by its opener', () => {
    expect(printed[1]).toBe('2');
  });

  it('the compaction example gives the model the summary, then the newer items, and keeps the transcript whole', () => {
    const [input, turns] = printed[2]!.split('\n');
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
