import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../tools/readme-example.js';

describe("the repository README's example", () => {
  it('runs as written against the built packages', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agentstate-root-readme-'));
    try {
      const out = runReadmeExample(fileURLToPath(new URL('../../../README.md', import.meta.url)), {}, cwd);
      expect(out).toContain("[ 'The user prefers dark mode' ]");
      expect(out).toMatch(/\[ \[ 'The user prefers dark mode', '(1\.00|0\.\d\d)' \] \]/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('shows the records agents write, as written, and prints the same when run again on the same file', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agentstate-root-readme-'));
    try {
      const readme = fileURLToPath(new URL('../../../README.md', import.meta.url));
      const first = runReadmeExample(readme, {}, cwd, 1);
      expect(first.split('\n').slice(0, 5)).toEqual([
        'The customer is on the pro tier 2',
        "[ 'tier' ]",
        "[ [ 'Refund', 1, [ 'assistant' ] ] ]",
        "[ [ 'tool-call' ], [ 'tool-result' ] ]",
        "[ [ 'acme', 'user-42' ] ]",
      ]);
      // Every write carries an operationId: the second run writes nothing, so nothing is half-written or doubled.
      expect(runReadmeExample(readme, {}, cwd, 1)).toBe(first);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
