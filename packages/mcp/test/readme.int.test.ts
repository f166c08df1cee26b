import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../tools/readme-example.js';

describe('the README example', () => {
  it('runs as written against the built server', () => {
    const out = runReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)));
    expect(out).toContain("[ 'The user prefers dark themes (1)' ]");
    expect(out).toMatch(/uses: 1,\s+wins: 1/);
    expect(out).toContain('# Release');
    expect(out).toContain(
      "true scope_denied: scope: project:my-app/workspace:api is under this server's scope (project:my-app), but the operator did not allow subscopes",
    );
  });
});
