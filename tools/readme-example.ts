/**
 * Runs the first TypeScript example of a package README as a user would:
 * written next to the package's own files and executed with tsx, importing
 * the built package through its exports. Keeps READMEs from drifting.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Extracts the first ```ts block of `readmePath`. */
export function firstTsExample(readmePath: string): string {
  const match = /```ts\n([\s\S]*?)```/.exec(readFileSync(readmePath, 'utf8'));
  if (!match) throw new Error(`no \`\`\`ts example in ${readmePath}`);
  return match[1]!;
}

/** Runs the README's first example (in `cwd`, default the README's folder) and returns what it printed. */
export function runReadmeExample(readmePath: string, env: NodeJS.ProcessEnv = {}, cwd: string = dirname(readmePath)): string {
  const file = join(dirname(readmePath), `.readme-example-${process.pid}.mts`);
  writeFileSync(file, firstTsExample(readmePath));
  try {
    // Resolved here, so the example may run in any working directory.
    return execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), file], {
      cwd,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
  } finally {
    rmSync(file, { force: true });
  }
}
