import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@agentstate/sqlite';
import { afterAll, describe, it } from 'vitest';
import { checkDifferential } from './differential.js';

const dir = mkdtempSync(join(tmpdir(), 'agentstate-langgraph-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('AgentStateStore against LangGraph InMemoryStore, on an SQLite file', () => {
  it('gives the same results for random batches of get, put, delete, search and listNamespaces', async () => {
    let n = 0;
    await checkDifferential(async () => {
      n += 1;
      return openSqlite(join(dir, `store-${n}.db`));
    }, 60);
  });
});
