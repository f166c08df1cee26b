/**
 * Runs a TypeScript example of a package README as a user would:
 * written next to the package's own files and executed with tsx, importing
 * the built package through its exports. Keeps READMEs from drifting.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { HANG_GUARD_MS } from './hang-guard.js';

/** Every ```ts block of `readmePath`, in order. */
export function tsExamples(readmePath: string): string[] {
  return [...readFileSync(readmePath, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/**
 * Runs the README's example number `index` (the first by default; in `cwd`,
 * default the README's folder) and returns what it printed.
 */
export function runReadmeExample(readmePath: string, env: NodeJS.ProcessEnv = {}, cwd: string = dirname(readmePath), index = 0): string {
  const example = tsExamples(readmePath)[index];
  if (example === undefined) throw new Error(`no \`\`\`ts example number ${index + 1} in ${readmePath}`);
  const file = join(dirname(readmePath), `.readme-example-${process.pid}.mts`);
  writeFileSync(file, example);
  try {
    // Resolved here, so the example may run in any working directory.
    return execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), file], {
      cwd,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: HANG_GUARD_MS,
    });
  } finally {
    rmSync(file, { force: true });
  }
}
