// Runs the README's first example against the built package and checks the
// values its comments promise.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample, tsExamples } from '../../../tools/readme-example.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));

describe('README', () => {
  it('starts with an example that runs and prints what it says', () => {
    const expected = [...tsExamples(readme)[0]!.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    expect(expected.length).toBeGreaterThan(0);
    const output = runReadmeExample(readme, { AGENTSTATE_DB: '', AGENTSTATE_SNAPSHOT_KEY: '', AGENTSTATE_DURABILITY: '' });
    expect(output.trim().split('\n')).toEqual(expected);
  });
});
