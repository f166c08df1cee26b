import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../tools/readme-example.js';

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
});
