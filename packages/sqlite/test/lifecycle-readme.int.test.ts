/** The root README's "Data lifecycle" example: history, then a namespace purge that leaves no trace in the file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../tools/readme-example.js';

describe("the repository README's data lifecycle example", () => {
  it('runs as written against the built packages', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agentstate-lifecycle-readme-'));
    try {
      const out = runReadmeExample(fileURLToPath(new URL('../../../README.md', import.meta.url)), {}, cwd, 2);
      expect(out.replace(/\s+/g, ' ')).toBe(
        "[ [ 1, 'memory.written', 'Ana lives at 12 Rua Augusta' ], [ 2, 'memory.updated', 'Ana moved to 9 Rua do Ouro' ] ] 1 [ 3, 3, 'records.purged' ] false true ",
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
