/**
 * Runs an example of the repository's examples/ folder as its README says
 * (`npx tsx examples/<name>/agent.ts` from the root, after the build), so
 * the examples cannot drift from the packages they import.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HANG_GUARD_MS } from './hang-guard.js';

const checkout = fileURLToPath(new URL('..', import.meta.url));

/** Runs examples/`name`/agent.ts from the repository root and returns what it printed. */
export function runExample(name: string): string {
  return execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), `examples/${name}/agent.ts`], {
    cwd: checkout,
    encoding: 'utf8',
    timeout: HANG_GUARD_MS,
  });
}
