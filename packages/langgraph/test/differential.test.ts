import { createInMemoryProvider } from '@agentstate/core';
import { describe, it } from 'vitest';
import { checkDifferential } from './differential.js';

describe('AgentStateStore against LangGraph InMemoryStore, on the in-memory provider', () => {
  it('gives the same results for random batches of get, put, delete, search and listNamespaces', async () => {
    await checkDifferential(async () => createInMemoryProvider(), 150);
  });
});
