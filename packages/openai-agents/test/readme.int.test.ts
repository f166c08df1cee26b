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
});
