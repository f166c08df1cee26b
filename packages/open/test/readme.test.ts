// Runs the README's first example against the built package and checks the
// values its comments promise.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('starts with an example that runs and prints what it says', () => {
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const expected = [...example!.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    expect(expected.length).toBeGreaterThan(0);
    // Plain JavaScript as written: run it as an ES module from the package directory.
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', example!], {
      cwd: packageDir,
      encoding: 'utf8',
      env: { ...process.env, AGENTSTATE_DB: '', AGENTSTATE_SNAPSHOT_KEY: '', AGENTSTATE_DURABILITY: '' },
    });
    expect(output.trim().split('\n')).toEqual(expected);
  });
});
