/**
 * The helpers of `helpers.ts` (`cli`, `ok`, `okJson`, `fails`, `head`,
 * `failAll`) over the built command run inside the test's process: `run`
 * of `@agentstate/cli` on a worker thread, with its own stdin, stdout and
 * stderr, the same clean environment and working directory, waited for as
 * `spawnSync` waits for a child. No Node start-up per run and the modules
 * load once, so the tests that do not check the process boundary use these.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { Result, RunOptions } from './helpers.js';
import { environment, helpersOver } from './helpers.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

/**
 * Variables Node or a module reads once, at the start of a process: a run
 * inside this process cannot honour them, so a test that sets one runs a process.
 */
const READ_AT_START = ['TZ', 'AGENTSTATE_DURABILITY'];

let worker: Worker | undefined;

function inProcess(args: readonly string[], options: RunOptions = {}): Result {
  const unmodelled = READ_AT_START.filter((name) => options.env !== undefined && name in options.env);
  if (unmodelled.length > 0) throw new Error(`${unmodelled.join(', ')} cannot be set for a run inside the test's process: use the helpers of helpers.ts`);
  if (worker === undefined) {
    worker = new Worker(new URL('./fixtures/in-process.mjs', import.meta.url));
    // The test's process ends when its tests do, not when the worker does.
    worker.unref();
  }
  const done = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const message = { args: [...args], input: options.input ?? '', env: environment(options.env), cwd: options.cwd ?? process.cwd(), port: port2, done };
  worker.postMessage(message, [port2]);
  if (Atomics.wait(done, 0, 0, HANG_GUARD_MS) === 'timed-out') throw new Error(`agentstate ${args.join(' ')} hung`);
  const reply = receiveMessageOnPort(port1)?.message as (Result & { thrown?: undefined }) | { thrown: string } | undefined;
  port1.close();
  if (reply === undefined) throw new Error(`agentstate ${args.join(' ')} ended without a reply`);
  if (reply.thrown !== undefined) throw new Error(`agentstate ${args.join(' ')} threw instead of returning an exit code: ${reply.thrown}`);
  return reply;
}

export const { cli, ok, okJson, fails, head } = helpersOver(inProcess);

/** Runs several commands that must all fail with `code`, one after the other; returns their stderr lines in order. */
export async function failAll(code: number, runs: ReadonlyArray<readonly string[]>, options: RunOptions = {}): Promise<string[]> {
  return runs.map((args) => fails(code, args, options));
}

/** {@link cli} as a promise, for tests written against the process helper `cliAsync`; runs do not overlap. */
export async function cliAsync(args: readonly string[], options: RunOptions = {}): Promise<Result> {
  return cli(args, options);
}
