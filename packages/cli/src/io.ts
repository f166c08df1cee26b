/**
 * What a run of the command reads and writes besides files: its streams,
 * its environment and its working directory. The executable passes the
 * process's own; a host (the tests among them) passes others and runs the
 * command in its own process. Commands reach them through {@link io}, never
 * through `process`, so runs that share a process neither see each other's
 * output nor leave settings behind.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** The streams, environment and working directory of a run. */
export interface Io {
  stdout: Writable;
  /** Progress and errors; a progress bar draws only when this is a terminal (`isTTY`). */
  stderr: Writable;
  stdin: Readable;
  env: NodeJS.ProcessEnv;
  /** Relative paths on the command line are resolved against it. */
  cwd: string;
}

/** The settings of one run: its {@link Io}, and what the global flags set for the rest of it. */
export interface RunState {
  readonly io: Io;
  /** Print times in the local zone (`--local-time`) instead of UTC. */
  localTime: boolean;
}

const runs = new AsyncLocalStorage<RunState>();

/** The process's own streams, environment and working directory, as the executable runs. */
export function processIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
}

/** Runs `fn` as one run with `io`: everything it calls sees that run's {@link RunState}. */
export function withRun<T>(io: Io, fn: () => Promise<T>): Promise<T> {
  return runs.run({ io, localTime: false }, fn);
}

/** The current run's state; code called outside a run (the library's entry points) works with the process's. */
export function runState(): RunState {
  return runs.getStore() ?? { io: processIo(), localTime: false };
}

/** The current run's {@link Io}. */
export function io(): Io {
  return runState().io;
}

/** `path` as given on the command line, resolved against the run's working directory. */
export function inCwd(path: string): string {
  return resolve(io().cwd, path);
}

/** The whole of the run's stdin as text. */
export async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of io().stdin.setEncoding('utf8')) text += chunk as string;
  return text;
}
