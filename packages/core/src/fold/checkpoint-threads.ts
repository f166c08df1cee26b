/**
 * The in-memory projection of checkpoints and their writes, grouped by
 * thread so that deleting a thread is one map deletion. The reference
 * implementation of {@link CheckpointQueries}' order and filters.
 */
import type { Checkpoint, CheckpointWrite } from '../records/checkpoints.js';
import { compareCheckpointsNewestFirst, compareStrings, compareWrites } from '../records/order.js';
import type { CheckpointKey } from '../write/backend.js';
import { entryFor } from '../map-entry.js';

/** One thread's checkpoints and writes, keyed by namespace and checkpoint id (NUL never occurs in ids). */
interface Thread {
  checkpoints: Map<string, Checkpoint>;
  /** checkpoint key → `taskId NUL idx` → write. */
  writes: Map<string, Map<string, CheckpointWrite>>;
}

const localKey = (key: CheckpointKey): string => `${key.namespace}\u0000${key.checkpointId}`;
const writeKey = (taskId: string, idx: number): string => `${taskId}\u0000${idx}`;

/** Checkpoints and writes by thread. */
export class CheckpointThreads {
  readonly #threads = new Map<string, Thread>();

  #thread(threadId: string): Thread {
    return entryFor(this.#threads, threadId, () => ({ checkpoints: new Map(), writes: new Map() }));
  }

  /** Saves (or replaces) a checkpoint. */
  put(checkpoint: Checkpoint): void {
    this.#thread(checkpoint.threadId).checkpoints.set(localKey(checkpoint), checkpoint);
  }

  /** Saves (or replaces) a write at its idx. */
  putWrite(write: CheckpointWrite): void {
    entryFor(this.#thread(write.threadId).writes, localKey(write), () => new Map()).set(writeKey(write.taskId, write.idx), write);
  }

  /** Forgets a thread. */
  deleteThread(threadId: string): void {
    this.#threads.delete(threadId);
  }

  at(key: CheckpointKey): Checkpoint | undefined {
    return this.#threads.get(key.threadId)?.checkpoints.get(localKey(key));
  }

  writes(key: CheckpointKey): CheckpointWrite[] {
    return [...(this.#threads.get(key.threadId)?.writes.get(localKey(key))?.values() ?? [])].sort(compareWrites);
  }

  writeExists(key: CheckpointKey, taskId: string, idx: number): boolean {
    return this.#threads.get(key.threadId)?.writes.get(localKey(key))?.has(writeKey(taskId, idx)) ?? false;
  }

  threadExists(threadId: string): boolean {
    return this.#threads.has(threadId);
  }

  latest(threadId: string, namespace: string): Checkpoint | undefined {
    let newest: Checkpoint | undefined;
    for (const c of this.#threads.get(threadId)?.checkpoints.values() ?? []) {
      if (c.namespace === namespace && (!newest || compareStrings(c.checkpointId, newest.checkpointId) > 0)) newest = c;
    }
    return newest;
  }

  list(query: { threadId?: string; namespace?: string; after?: CheckpointKey; limit: number }): Checkpoint[] {
    const threads = query.threadId === undefined ? [...this.#threads.values()] : [this.#threads.get(query.threadId)].filter((t) => t !== undefined);
    const { after, namespace } = query;
    const found: Checkpoint[] = [];
    for (const thread of threads) {
      for (const c of thread.checkpoints.values()) {
        if ((namespace === undefined || c.namespace === namespace) && (!after || compareCheckpointsNewestFirst(after, c) < 0)) found.push(c);
      }
    }
    found.sort(compareCheckpointsNewestFirst);
    return query.limit > 0 ? found.slice(0, query.limit) : found;
  }

  *allCheckpoints(): Generator<Checkpoint> {
    for (const thread of this.#threads.values()) yield* thread.checkpoints.values();
  }

  *allWrites(): Generator<CheckpointWrite> {
    for (const thread of this.#threads.values()) for (const byTask of thread.writes.values()) yield* byTask.values();
  }
}
