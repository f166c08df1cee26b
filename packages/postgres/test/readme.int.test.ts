import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../tools/readme-example.js';
import { dropSchema, testServer } from './cluster.js';

describe('the README example', () => {
  it('runs as written against the built package', async () => {
    const { url } = await testServer();
    await dropSchema(url, 'support');
    const out = runReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)), { DATABASE_URL: url });
    expect(out.split('\n').filter(Boolean)).toEqual(["[ 'The user prefers Café-style dark themes' ]", "[ 'rollback' ]", '2 5']);
    await dropSchema(url, 'support');
  });

  it('follows the log live as its second example shows', async () => {
    const { url } = await testServer();
    await dropSchema(url, 'live');
    const out = runReadmeExample(fileURLToPath(new URL('../README.md', import.meta.url)), { DATABASE_URL: url }, undefined, 1);
    expect(out.split('\n').filter(Boolean)).toEqual(['1 memory.written']);
    await dropSchema(url, 'live');
  });
});
