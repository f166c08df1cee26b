/**
 * One write queue per database file in this process. A second connection of
 * the same process asking for the write lock while the first holds it
 * across an `await` (a group commit between its mutations) would poll for
 * it (`lock-wait.ts`), or, in a synchronous path, block the event loop so
 * that the holder could never finish. Connections of one process to one
 * file therefore queue on one mutex, in the event loop, in order; waiting
 * for the lock is left to writers in other processes.
 */
import { realpathSync } from 'node:fs';
import { Mutex } from '@agentstate/core/backend';
import { isAnonymous } from './file.js';

const byFile = new Map<string, { mutex: Mutex; users: number }>();

/** A mutex shared with every other connection of this process to the file at `path`, and its release. */
export function fileMutex(path: string): { mutex: Mutex; release: () => void } {
  // A private in-memory database is its own file.
  if (isAnonymous(path)) return { mutex: new Mutex(), release: () => undefined };
  const key = realpathSync(path);
  let entry = byFile.get(key);
  if (!entry) {
    entry = { mutex: new Mutex(), users: 0 };
    byFile.set(key, entry);
  }
  entry.users += 1;
  const held = entry;
  let released = false;
  return {
    mutex: held.mutex,
    release: () => {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users === 0 && byFile.get(key) === held) byFile.delete(key);
    },
  };
}
