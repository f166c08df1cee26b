/** The repository README's "Data lifecycle" examples (time travel and diff, retention) run as written. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample, tsExamples } from '../../../tools/readme-example.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

/** Runs the README's example that contains `marker`, in a fresh folder. */
function run(marker: string): string {
  const index = tsExamples(README).findIndex((example) => example.includes(marker));
  expect(index, marker).toBeGreaterThanOrEqual(0);
  const cwd = mkdtempSync(join(tmpdir(), 'agentstate-root-readme-'));
  try {
    return runReadmeExample(README, {}, cwd, index);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

describe("the repository README's data lifecycle examples", () => {
  it('read the state as it was and the diff of two points', () => {
    expect(run('state.at({ seq: before })').split('\n')).toEqual(['Ship on Friday', '0', "[ [ 'Ship on Friday', 'Ship on Monday' ] ] [ 'QA signed off' ]", '']);
  });

  it('set policies, hide what they expire and sweep it', () => {
    expect(run('state.retention.apply()').split('\n')).toEqual([
      "[ 'memory:scratch@*', 'session@*', 'turn@acme' ]",
      "[ 'The customer is on the pro tier' ]",
      '{ sessions: 0, turns: 0, skills: 0, memory: 1 }',
      '',
    ]);
  });
});
