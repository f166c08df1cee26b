/**
 * The README cannot drift: its first example (a conformance test file) runs
 * in a child vitest against the built packages, its arbitraries example runs
 * with tsx, and its table lists every check.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listProviderChecks } from '@agentstate/testing';
import { describe, expect, it } from 'vitest';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
const vitestBin = fileURLToPath(new URL('vitest.mjs', import.meta.resolve('vitest/package.json')));

/** Runs `fn` with a scratch directory inside the package, so imports resolve as for a user. */
function inScratch<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(packageDir, '.readme-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the README', () => {
  it('starts with a conformance test file that passes as written', () => {
    const report = inScratch((dir) => {
      writeFileSync(join(dir, 'conformance.test.ts'), examples[0]!);
      writeFileSync(join(dir, 'vitest.config.mjs'), "export default { test: { include: ['*.test.ts'] } };\n");
      const out = join(dir, 'report.json');
      execFileSync(process.execPath, [vitestBin, 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs'), '--reporter=json', `--outputFile=${out}`], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: 'pipe',
        timeout: HANG_GUARD_MS,
      });
      return JSON.parse(readFileSync(out, 'utf8')) as { numFailedTests: number; numPassedTests: number; numPendingTests: number };
    });
    expect(report.numFailedTests).toBe(0);
    // The example gives no `openShared` and no `failCommits`: exactly the checks that need a second provider on the
    // same storage, or a COMMIT that fails, skip.
    expect(report.numPendingTests).toBe(listProviderChecks().filter((c) => c.needs.includes('sharedStorage') || c.needs.includes('commitFault')).length);
    expect(report.numPassedTests).toBeGreaterThanOrEqual(listProviderChecks().length + 8);
  });

  it('has a differential example with the arbitraries that runs as written', () => {
    const example = examples.find((e) => e.includes('@agentstate/testing/arbitraries'));
    expect(example).toBeDefined();
    inScratch((dir) => {
      const file = join(dir, 'example.mts');
      writeFileSync(file, example!);
      execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: dir, stdio: 'pipe', timeout: HANG_GUARD_MS });
    });
  });

  it('lists every provider check by its full name', () => {
    for (const check of listProviderChecks()) expect(readme, check.name).toContain(`| ${check.name} |`);
  });
});
