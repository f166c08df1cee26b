/**
 * The repository README's examples run as written against the built packages: all in one process (a Node start and
 * the packages loaded once), each in a fresh folder but the second, run twice on the same file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReadmeExamples, tsExamples } from '../../../tools/readme-example.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function fresh(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-root-readme-'));
  dirs.push(dir);
  return dir;
}

/** The number of the README's example that contains `marker`. */
function numbered(marker: string): number {
  const index = tsExamples(README).findIndex((example) => example.includes(marker));
  expect(index, marker).toBeGreaterThanOrEqual(0);
  return index;
}

let printed: { first: string; records: string; again: string; purge: string; travel: string; retention: string };

beforeAll(() => {
  const records = fresh();
  const [first, again, recordsAgain, purge, travel, retention] = runReadmeExamples(README, [
    { index: 0, cwd: fresh() },
    { index: 1, cwd: records },
    { index: 1, cwd: records },
    { index: 2, cwd: fresh() },
    { index: numbered('state.at({ seq: before })'), cwd: fresh() },
    { index: numbered('state.retention.apply()'), cwd: fresh() },
  ]);
  printed = { first: first!, records: again!, again: recordsAgain!, purge: purge!, travel: travel!, retention: retention! };
});

describe("the repository README's example", () => {
  it('runs as written against the built packages', () => {
    expect(printed.first).toContain("[ 'The user prefers dark mode' ]");
    expect(printed.first).toMatch(/\[ \[ 'The user prefers dark mode', '(1\.00|0\.\d\d)' \] \]/);
  });

  it('shows the records agents write, as written, and prints the same when run again on the same file', () => {
    expect(printed.records.split('\n').slice(0, 5)).toEqual([
      'The customer is on the pro tier 2',
      "[ 'tier' ]",
      "[ [ 'Refund', 1, [ 'assistant' ] ] ]",
      "[ [ 'tool-call' ], [ 'tool-result' ] ]",
      "[ [ 'acme', 'user-42' ] ]",
    ]);
    // Every write carries an operationId: the second run writes nothing, so nothing is half-written or doubled.
    expect(printed.again).toBe(printed.records);
  });
});

describe("the repository README's data lifecycle examples", () => {
  it('history, then a namespace purge that leaves no trace in the file', () => {
    expect(printed.purge.replace(/\s+/g, ' ')).toBe(
      "[ [ 1, 'memory.written', 'Ana lives at 12 Rua Augusta' ], [ 2, 'memory.updated', 'Ana moved to 9 Rua do Ouro' ] ] 1 [ 3, 3, 'records.purged' ] false true ",
    );
  });

  it('read the state as it was and the diff of two points', () => {
    expect(printed.travel.split('\n')).toEqual(['Ship on Friday', '0', "[ [ 'Ship on Friday', 'Ship on Monday' ] ] [ 'QA signed off' ]", '']);
  });

  it('set policies, hide what they expire and sweep it', () => {
    expect(printed.retention.split('\n')).toEqual([
      "[ 'memory:scratch@*', 'session@*', 'turn@acme' ]",
      "[ 'The customer is on the pro tier' ]",
      '{ sessions: 0, turns: 0, skills: 0, memory: 1 }',
      '',
    ]);
  });
});
