/**
 * Waiting for another connection's write lock (docs/contract.md §10): a
 * write waits for as long as the lock is held, off the event loop (reads go
 * on meanwhile), and fails only once a deadline the caller set has passed.
 */
import Database from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError } from '@agentstate/core';
import { openSqlite } from '../src/index.js';
import { tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

/** Another connection to the file holding its write lock, as another process would. */
function holdLock(path: string): { release: () => void } {
  const other = new Database(path);
  other.exec('BEGIN IMMEDIATE');
  return {
    release: () => {
      other.exec('COMMIT');
      other.close();
    },
  };
}

describe('a write that finds the write lock held', () => {
  it('waits as long as it is held, while reads of the same provider go on, and then goes through', async () => {
    const path = tmp.file();
    const p = await openSqlite(path, { synchronous: 'normal' });
    const first = await p.memory.write({ content: 'written before the lock was taken' });
    const lock = holdLock(path);
    let settled = false;
    const waiting = p.memory.write({ content: 'written once the lock is free' }).finally(() => {
      settled = true;
    });
    for (let i = 0; i < 20; i += 1) {
      expect((await p.memory.get(first.id)).content).toBe('written before the lock was taken');
      await sleep(10);
    }
    expect(settled).toBe(false);
    lock.release();
    const second = await waiting;
    expect((await p.memory.get(second.id)).content).toBe('written once the lock is free');
    await p.close();
  });

  it('fails with a retryable ConflictError naming the deadline once the caller’s busyTimeoutMs has passed, and writes nothing', async () => {
    const path = tmp.file();
    const p = await openSqlite(path, { synchronous: 'normal', busyTimeoutMs: 100 });
    const lock = holdLock(path);
    const error = await p.memory.write({ content: 'never written' }).catch((e: unknown) => e);
    lock.release();
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).retryable).toBe(true);
    expect((error as ConflictError).message).toContain('busyTimeoutMs');
    expect((await p.memory.recall({ limit: 10 })).map((m) => m.content)).toEqual([]);
    expect((await p.memory.write({ content: 'written after' })).content).toBe('written after');
    await p.close();
  });
});
