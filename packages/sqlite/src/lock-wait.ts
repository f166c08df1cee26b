/**
 * Waiting for the file's write lock while another process holds it
 * (docs/contract.md §10). SQLite's busy handler sleeps inside the driver,
 * which blocks the event loop, and gives up at its timeout: a writer that
 * only had to wait then failed. Here a writer whose `BEGIN IMMEDIATE`
 * finds the lock held tries again after a short pause, for as long as the
 * lock is held, unless the caller set a deadline (`busyTimeoutMs`): only
 * that deadline fails it, with a retryable `ConflictError`.
 *
 * Fairness: every waiter, however long it has waited, tries again after a
 * pause drawn at random between 1 and {@link MAX_PAUSE_MS} ms, so each has
 * the same chance at every release of the lock, whatever its arrival; the
 * pause never grows with the wait (a backoff that grows would hand the lock
 * to newcomers). A waiter that loses one release tries at the next: the
 * chance that it loses n in a row falls geometrically with n. And turns
 * end: a process with more writes queued takes the lock back the moment it
 * frees it, before any waiter's pause ends; so a writer that met the lock
 * held in the last {@link CONTENDED_MS} ms, and has taken it back again and
 * again for {@link TURN_MS} ms since it last waited, pauses once before its
 * next `BEGIN`, which leaves the lock to those waiting. A turn that long
 * keeps the handover (another process waking up) from costing every
 * commit, and bounds how long the others wait for one process.
 */
import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '@agentstate/core';

/** The longest pause between two attempts at the lock, in ms. */
const MAX_PAUSE_MS = 4;

/** For how long after meeting the lock held a writer takes turns with the others, in ms. */
const CONTENDED_MS = 1_000;

/** The longest turn: how long a writer keeps taking the lock back before it pauses for the others, in ms. */
const TURN_MS = 50;

/** A cell to sleep on synchronously (`Atomics.wait`), for the paths that cannot await. */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** True for SQLite's "the lock is held" errors (`SQLITE_BUSY` and its extended codes). */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** The pause before the next attempt; a `ConflictError` once the caller's deadline (`timeoutMs` after `started`) has passed. */
function pause(path: string, timeoutMs: number | undefined, started: number, busy: unknown): number {
  if (timeoutMs !== undefined && performance.now() - started >= timeoutMs) {
    throw new ConflictError(`the write lock of ${path} stayed busy (held by another connection) past the deadline of ${timeoutMs} ms (busyTimeoutMs)`, {
      cause: busy,
    });
  }
  return randomInt(1, MAX_PAUSE_MS + 1);
}

/** The waits of one connection for the write lock, and when it last met the lock held. */
export class LockWaits {
  #lastBusy = Number.NEGATIVE_INFINITY;
  /** When this connection's turn began: its first `BEGIN` after a pause. */
  #turnStart = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly path: string,
    private readonly timeoutMs: number | undefined,
  ) {}

  /** Runs `attempt` until it does not fail with `SQLITE_BUSY`, pausing without blocking the event loop. */
  async whenFree<T>(attempt: () => T): Promise<T> {
    const started = performance.now();
    let paused = started - this.#lastBusy < CONTENDED_MS && started - this.#turnStart >= TURN_MS;
    if (paused) await sleep(pause(this.path, undefined, started, undefined));
    for (;;) {
      try {
        const result = attempt();
        if (paused) this.#turnStart = performance.now();
        return result;
      } catch (error) {
        if (!isBusy(error)) throw error;
        paused = true;
        this.#lastBusy = performance.now();
        await sleep(pause(this.path, this.timeoutMs, started, error));
      }
    }
  }
}

/** As {@link whenFree}, sleeping the thread between attempts: for the synchronous paths (opening a file and bringing it up to date). */
export function whenFreeSync<T>(path: string, timeoutMs: number | undefined, attempt: () => T): T {
  const started = performance.now();
  for (;;) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error)) throw error;
      Atomics.wait(SLEEPER, 0, 0, pause(path, timeoutMs, started, error));
    }
  }
}
