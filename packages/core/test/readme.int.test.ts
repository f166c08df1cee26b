import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importReadmeExample } from '../../../tools/readme-example.js';

describe('the README example', () => {
  it('runs as written against the built package', async () => {
    const out = await importReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)));
    expect(out).toContain("14 [ 'turn', 'turn' ]");
    expect(out).toContain("2 [ 'working', 'turn', 'turn' ]");
    expect(out).toContain("[ 'working', 'summary', 'turn' ]");
    expect(out).toContain("[ 'The user prefers Café-style dark themes' ]");
    expect(out.trim().endsWith('true')).toBe(true);
  });
});
