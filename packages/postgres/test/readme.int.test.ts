import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runReadmeExamples } from '../../../tools/readme-example.js';
import { dropSchema, testServer } from './cluster.js';

/** The lines each example printed: both run in one process, so the packages load once. */
let printed: string[][];

beforeAll(async () => {
  const { url } = await testServer();
  const schemas = ['support', 'live'];
  for (const schema of schemas) await dropSchema(url, schema);
  try {
    const outs = runReadmeExamples(
      fileURLToPath(new URL('../README.md', import.meta.url)),
      [0, 1].map((index) => ({ index, env: { DATABASE_URL: url } })),
    );
    printed = outs.map((out) => out.split('\n').filter(Boolean));
  } finally {
    for (const schema of schemas) await dropSchema(url, schema);
  }
});

describe('the README example', () => {
  it('runs as written against the built package', () => {
    expect(printed[0]).toEqual(["[ 'The user prefers Café-style dark themes' ]", "[ 'rollback' ]", '2 5']);
  });

  it('follows the log live as its second example shows', () => {
    expect(printed[1]).toEqual(['1 memory.written']);
  });
});
