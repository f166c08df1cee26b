/**
 * Runs the TypeScript examples of a package README as a user would:
 * written next to the package's own files and executed with tsx, importing
 * the built package through its exports; or, for an example of plain library
 * code that needs no process, environment or working directory of its own,
 * imported into the test's process. Keeps READMEs from drifting.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { HANG_GUARD_MS } from './hang-guard.js';

const RUNNER = fileURLToPath(new URL('./readme-runner.ts', import.meta.url));

/** Every ```ts block of `readmePath`, in order. */
export function tsExamples(readmePath: string): string[] {
  return [...readFileSync(readmePath, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** One run of a README example: its number (from 0), the variables it sees and its working directory (default the README's folder). */
export interface ExampleRun {
  index: number;
  env?: Record<string, string>;
  cwd?: string;
}

/** One run of an example's source: written into `dir` (so its imports resolve there) and run in `cwd`, default `dir`. */
export interface SourceRun {
  source: string;
  dir: string;
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * Runs examples one after the other in one tsx process and returns what each printed, in order. One process for all:
 * a Node start and the packages' modules (LangChain's alone take seconds) cost once, not once per example; each
 * example is a module of its own, so nothing of one is in scope in the next, and the same source listed twice runs
 * twice. `env` is the process's environment (default this process's).
 */
export function runExamples(runs: readonly SourceRun[], env: NodeJS.ProcessEnv = process.env): string[] {
  const files = runs.map(({ source, dir }, i) => {
    const file = join(dir, `.readme-example-${process.pid}-${i}.mts`);
    writeFileSync(file, source);
    return file;
  });
  const marker = `--- readme example ${randomUUID()} ---\n`;
  const plan = runs.map((run, i) => ({ file: files[i]!, env: run.env ?? {}, cwd: run.cwd ?? run.dir }));
  try {
    const out = execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), RUNNER, JSON.stringify(plan), marker], {
      env,
      encoding: 'utf8',
      timeout: HANG_GUARD_MS,
    });
    return out.split(marker).slice(1);
  } finally {
    for (const file of files) rmSync(file, { force: true });
  }
}

/** Runs examples of `readmePath` in one process ({@link runExamples}), each written next to the README. */
export function runReadmeExamples(readmePath: string, runs: readonly ExampleRun[]): string[] {
  const examples = tsExamples(readmePath);
  return runExamples(
    runs.map(({ index, env, cwd }) => {
      const source = examples[index];
      if (source === undefined) throw new Error(`no \`\`\`ts example number ${index + 1} in ${readmePath}`);
      return { source, dir: dirname(readmePath), ...(env === undefined ? {} : { env }), ...(cwd === undefined ? {} : { cwd }) };
    }),
  );
}

/** Runs the README's example number `index` (the first by default; in `cwd`, default the README's folder) and returns what it printed. */
export function runReadmeExample(readmePath: string, env: Record<string, string> = {}, cwd?: string, index = 0): string {
  return runReadmeExamples(readmePath, [{ index, env, ...(cwd === undefined ? {} : { cwd }) }])[0]!;
}

/** Imports the module `file` into this process and returns what it printed with `console.log` while it loaded. */
export async function printedOnImport(file: string): Promise<string> {
  const log = console.log;
  let printed = '';
  console.log = (...args: unknown[]) => {
    printed += `${format(...args)}\n`;
  };
  try {
    await import(pathToFileURL(file).href);
    return printed;
  } finally {
    console.log = log;
  }
}

/**
 * Imports the README's example number `index` into this process, written next to the README so it imports the built
 * packages as a user's file would, and returns what it printed with `console.log`. For an example of library code
 * alone: no Node start, and the packages are the ones this process already loaded.
 */
export async function importReadmeExample(readmePath: string, index = 0): Promise<string> {
  const example = tsExamples(readmePath)[index];
  if (example === undefined) throw new Error(`no \`\`\`ts example number ${index + 1} in ${readmePath}`);
  const file = join(dirname(readmePath), `.readme-example-${process.pid}-${randomUUID()}.mts`);
  writeFileSync(file, example);
  try {
    return await printedOnImport(file);
  } finally {
    rmSync(file, { force: true });
  }
}
