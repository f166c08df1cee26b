/**
 * LangGraph's own checkpointer validation suite (`@langchain/langgraph-checkpoint-validation`,
 * in its library form) against the saver over an SQLite file and over the in-memory provider.
 * The suite calls vitest's globals; they are set here for this file only,
 * rather than `globals: true` for every test of the repository.
 *
 * One test is skipped, as the suite skips it for LangGraph's `MemorySaver`
 * and `SqliteSaver`: it wants a saver that stores only the channel values
 * `newVersions` names (Postgres's blob table); this saver, like those two,
 * stores each checkpoint whole.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInMemoryProvider } from '@agentstate/core';
import { validate } from '@langchain/langgraph-checkpoint-validation';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentStateSaver } from '../src/index.js';
import { openSaver, openSqliteSaver } from '../src/index.js';

const DELTA_TEST = 'should only store channel_values that have changed (based on newVersions)';
// A proxy, so `it.each`, `it.skip` and the rest keep working on vitest's own `it`.
const itUnlessDelta = new Proxy(it, {
  apply(target, self, args: Parameters<typeof it>) {
    const [name, ...rest] = args;
    if (name === DELTA_TEST) return target.skip(`[because AgentStateSaver stores whole checkpoints] ${name}`, ...rest);
    return Reflect.apply(target, self, args);
  },
});
Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it: itUnlessDelta });

const dirs: string[] = [];

validate<AgentStateSaver>({
  checkpointerName: 'AgentStateSaver (SQLite file)',
  createCheckpointer() {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-saver-'));
    dirs.push(dir);
    return openSqliteSaver(join(dir, 'checkpoints.db'));
  },
  async destroyCheckpointer(saver) {
    await saver.close();
  },
  afterAll() {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  },
});

validate<AgentStateSaver>({
  checkpointerName: 'AgentStateSaver (in memory)',
  createCheckpointer() {
    return openSaver(createInMemoryProvider());
  },
  async destroyCheckpointer(saver) {
    await saver.provider.close();
  },
});
