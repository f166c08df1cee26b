import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../tools/readme-example.js';
import { dropSchema, testServer } from '../../postgres/test/cluster.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));

describe('the README examples', () => {
  it('the store runs as written against the built package', () => {
    const out = runReadmeExample(readme);
    expect(out.split('\n').filter(Boolean)).toEqual(["[ 'I drink green tea' ]", "{ text: 'I drink green tea' }", "[ [ 'memories', 'ada' ] ]"]);
  });

  it('the checkpointer runs as written, and the thread goes on after reopening the file', () => {
    const out = runReadmeExample(readme, {}, undefined, 1);
    expect(out.split('\n').filter(Boolean)).toEqual(['2', '3']);
  });

  it('the PostgreSQL route runs as written: one call per saver and store, the thread shared by two savers', async () => {
    const { url } = await testServer();
    await dropSchema(url, 'graphs');
    try {
      const out = runReadmeExample(readme, { DATABASE_URL: url }, undefined, 2);
      expect(out.split('\n').filter(Boolean)).toEqual(['2', "[ 'tea' ]"]);
    } finally {
      await dropSchema(url, 'graphs');
    }
  });
});
