/**
 * The README cannot drift: its first example (a conformance test file) is imported into this file as written, so its
 * suites run here against the built packages; its arbitraries example runs in this process too; and its table lists
 * every check.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { listProviderChecks } from '@agentstate/testing';
import type { RunnerTask } from 'vitest';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

/** Imports `source` as the file `name` of a scratch folder inside the package, so its imports resolve as for a user. */
async function importExample(source: string, name: string): Promise<void> {
  const dir = mkdtempSync(join(packageDir, '.readme-'));
  try {
    const file = join(dir, name);
    writeFileSync(file, source);
    await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The first example is a test file: imported here, it registers its suites in this file, and they run before the
// checks below.
await importExample(examples[0]!, 'conformance.test.ts');

/** The tests of the suites the first example registered, found by the suite titles of @agentstate/testing. */
function exampleTests(file: RunnerTask): RunnerTask[] {
  const tests = (task: RunnerTask): RunnerTask[] => (task.type === 'suite' ? task.tasks.flatMap(tests) : [task]);
  return (file.type === 'suite' ? file.tasks : []).filter((t) => /^agentstate (provider|log) conformance: /.test(t.name)).flatMap(tests);
}

describe('the README', () => {
  it('starts with a conformance test file that passes as written', ({ task }) => {
    const tests = exampleTests(task.file);
    const states = tests.map((t) => t.result?.state);
    expect(states.filter((s) => s !== 'pass' && s !== 'skip')).toEqual([]);
    // The example gives no `openShared` and no `failCommits`: exactly the checks that need a second provider on the
    // same storage, or a COMMIT that fails, skip.
    expect(states.filter((s) => s === 'skip')).toHaveLength(
      listProviderChecks().filter((c) => c.needs.includes('sharedStorage') || c.needs.includes('commitFault')).length,
    );
    expect(states.filter((s) => s === 'pass').length).toBeGreaterThanOrEqual(listProviderChecks().length + 8);
  });

  it('has a differential example with the arbitraries that runs as written', async () => {
    const example = examples.find((e) => e.includes('@agentstate/testing/arbitraries'));
    expect(example).toBeDefined();
    await importExample(example!, 'example.mts');
  });

  it('lists every provider check by its full name', () => {
    for (const check of listProviderChecks()) expect(readme, check.name).toContain(`| ${check.name} |`);
  });
});
