/**
 * `agentstate threads list`: the graph threads a database holds (a LangGraph
 * checkpointer's), each summarised from its checkpoints.
 */
import type { Command } from 'commander';
import type { CheckpointTuple } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { withReader } from '../database.js';
import { CliCommand, show, sub } from '../context.js';
import type { Column } from '../output.js';
import { count, printTable, shortTime } from '../output.js';

/** One thread as `threads list` shows it. */
export interface ThreadSummary {
  threadId: string;
  /** Its checkpoints, every namespace's. */
  checkpoints: number;
  /** Its pending writes, against any of its checkpoints. */
  writes: number;
  /** Its namespaces (`''`: the root graph), in code-point order. */
  namespaces: string[];
  /** The id of its newest checkpoint. */
  lastCheckpointId: string;
  /** When a checkpoint of it was last saved. */
  lastSavedAt: string;
}

/** The threads of `tuples` (newest checkpoint first, as `checkpoints.list` returns them), the most recently saved first. */
export function summarizeThreads(tuples: readonly CheckpointTuple[]): ThreadSummary[] {
  const byThread = new Map<string, ThreadSummary>();
  for (const { checkpoint, pendingWrites } of tuples) {
    let thread = byThread.get(checkpoint.threadId);
    if (thread === undefined) {
      thread = {
        threadId: checkpoint.threadId,
        checkpoints: 0,
        writes: 0,
        namespaces: [],
        lastCheckpointId: checkpoint.checkpointId,
        lastSavedAt: checkpoint.updatedAt,
      };
      byThread.set(checkpoint.threadId, thread);
    }
    thread.checkpoints += 1;
    thread.writes += pendingWrites.length;
    if (!thread.namespaces.includes(checkpoint.namespace)) thread.namespaces.push(checkpoint.namespace);
    if (checkpoint.updatedAt > thread.lastSavedAt) thread.lastSavedAt = checkpoint.updatedAt;
  }
  const threads = [...byThread.values()];
  for (const thread of threads) thread.namespaces.sort();
  return threads.sort((a, b) => (a.lastSavedAt === b.lastSavedAt ? (a.threadId < b.threadId ? -1 : 1) : a.lastSavedAt > b.lastSavedAt ? -1 : 1));
}

const columns: Column<ThreadSummary>[] = [
  { header: 'thread', cell: (t) => t.threadId, max: 40 },
  { header: 'saved', cell: (t) => shortTime(t.lastSavedAt) },
  { header: 'checkpoints', cell: (t) => count(t.checkpoints) },
  { header: 'writes', cell: (t) => count(t.writes) },
  { header: 'namespaces', cell: (t) => t.namespaces.map((ns) => (ns === '' ? '(root)' : ns)).join(', '), max: 40 },
  { header: 'last checkpoint', cell: (t) => t.lastCheckpointId },
];

/** The `threads` command. */
export function threadsCommand(): Command {
  const group = new CliCommand('threads').description(SUMMARIES.threads);
  sub(group, 'list', 'at')
    .description('each thread with checkpoints, the most recently saved first: its checkpoints, pending writes, namespaces and newest checkpoint')
    .run(async (ctx, opts: { at?: string }) => {
      const threads = await withReader(ctx.dbPath, opts.at, {}, async (db) => summarizeThreads(await db.checkpoints.list()));
      show(ctx, threads, () => printTable(columns, threads, '(no threads)'));
    });
  return group;
}
