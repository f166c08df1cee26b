/**
 * Runs the built `agentstate` binary as a new user would: a child process
 * with a clean environment (no AGENTSTATE_DB or AGENTSTATE_SNAPSHOT_KEY), against real database files
 * in a temporary folder. `in-process.ts` has the same helpers over the command
 * run inside the test's process, for the tests that do not check the process boundary.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

/** The built executable. */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** What a run printed and how it ended. */
export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link cli}. */
export interface RunOptions {
  /** Text fed to stdin. */
  input?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** The environment of a run: the test's, without the variables that choose a database or key unless `extra` sets them. */
export function environment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  if (!('AGENTSTATE_DB' in extra)) delete env.AGENTSTATE_DB;
  if (!('AGENTSTATE_SNAPSHOT_KEY' in extra)) delete env.AGENTSTATE_SNAPSHOT_KEY;
  return env;
}

/** Runs `agentstate ...args` to completion, one way or another. */
export type Runner = (args: readonly string[], options?: RunOptions) => Result;

/** The helpers over `run`: here over a child process per run, in `in-process.ts` over the command run inside the test's process. */
export function helpersOver(run: Runner) {
  /** Runs a command that must succeed and returns its stdout. */
  const ok = (args: readonly string[], options: RunOptions = {}): string => {
    const r = run(args, options);
    if (r.code !== 0) throw new Error(`agentstate ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  };
  /** Runs a command with `--json` that must succeed and parses its output. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read the parsed output freely and their assertions check its shape.
  const okJson = <T = any>(args: readonly string[], options: RunOptions = {}): T => JSON.parse(ok([...args, '--json'], options)) as T;
  return {
    /** Runs `agentstate ...args` to completion. */
    cli: run,
    ok,
    okJson,
    /** Runs a command that must fail with `code`, with exactly one line on stderr, and returns that line. */
    fails: (code: number, args: readonly string[], options: RunOptions = {}): string => failureLine(run(args, options), code, args),
    /** The number of events in a database. */
    head: (db: string): number => okJson<{ head: number }>(['stats', '--db', db]).head,
  };
}

function spawned(args: readonly string[], options: RunOptions = {}): Result {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: environment(options.env),
    input: options.input ?? '',
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    timeout: HANG_GUARD_MS,
  });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The helpers over a child process per run, for the tests that check the process boundary. */
export const { cli, ok, okJson, fails, head } = helpersOver(spawned);

/** Runs `agentstate ...args` to completion without blocking, so several can run at once. */
export function cliAsync(args: readonly string[], options: RunOptions = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: environment(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** The one line on stderr of a run that must have failed with `code`. */
export function failureLine(r: Result, code: number, args: readonly string[]): string {
  if (r.code !== code) throw new Error(`agentstate ${args.join(' ')} exited ${r.code}, expected ${code}: ${r.stderr}${r.stdout}`);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  if (lines.length !== 1 || !lines[0]!.startsWith('agentstate: ')) throw new Error(`expected one line on stderr, got: ${JSON.stringify(r.stderr)}`);
  return lines[0]!;
}

/** Runs several commands that must all fail with `code`, a few at a time; returns their stderr lines in order. */
export async function failAll(code: number, runs: ReadonlyArray<readonly string[]>, options: RunOptions = {}): Promise<string[]> {
  const lines: string[] = new Array(runs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) {
      const i = next++;
      lines[i] = failureLine(await cliAsync(runs[i]!, options), code, runs[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(3, runs.length) }, worker));
  return lines;
}

/** Starts `agentstate ...args` in the background. */
export function start(args: readonly string[], options: RunOptions = {}) {
  return spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: environment(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A temporary folder removed by the returned cleanup. */
export function tempDir(): { dir: string; path: (name: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-cli-'));
  return { dir, path: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
