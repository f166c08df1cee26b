/**
 * LangGraph's own checkpointer validation suite (`@langchain/langgraph-checkpoint-validation`,
 * in its library form) against the saver over an SQLite file and over the in-memory provider.
 * The suite calls vitest's globals; they are set here for this file only,
 * rather than `globals: true` for every test of the repository.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInMemoryProvider } from '@agentstate/core';
import { validate } from '@langchain/langgraph-checkpoint-validation';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentStateSaver } from '../src/index.js';
import { openSaver, openSqliteSaver } from '../src/index.js';

Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });

const dirs: string[] = [];

validate<AgentStateSaver>({
  checkpointerName: 'AgentStateSaver (SQLite file)',
  async createCheckpointer() {
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
