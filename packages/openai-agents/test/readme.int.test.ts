import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../tools/readme-example.js';

describe('the README example', () => {
  it('runs as written against the built package', () => {
    const out = runReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)));
    const [count, ...hits] = out.trim().split('\n');
    expect(count).toBe('4');
    expect(hits.join('')).toContain("'Deploy is failing on staging'");
    expect(hits.join('')).toContain("'Try rolling back the staging deploy.'");
    expect(hits.join('')).toContain("'You asked about staging.'");
  });
});
