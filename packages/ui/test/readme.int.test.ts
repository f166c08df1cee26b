import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importReadmeExample } from '../../../tools/readme-example.js';

describe('the README example', () => {
  it('runs as written against the built package', async () => {
    const out = await importReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)));
    expect(out.trim()).toBe('sqlite 1 false');
  });
});
