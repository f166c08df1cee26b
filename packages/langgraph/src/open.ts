/** Opening a store: over a provider the caller keeps, or over an SQLite file the store owns. */
import type { Provider } from '@agentstate/core';
import type { SqliteOptions } from '@agentstate/sqlite';
import { openSqlite } from '@agentstate/sqlite';
import type { AgentStateStoreOptions } from './store.js';
import { AgentStateStore } from './store.js';

/** A store over `provider` (any backend); closing the provider stays the caller's job. */
export function openStore(provider: Provider, options: Omit<AgentStateStoreOptions, 'ownsProvider'> = {}): AgentStateStore {
  return new AgentStateStore(provider, options);
}

/** Options of {@link openSqliteStore}: the store's, and the SQLite provider's (`embedder` for semantic and hybrid search). */
export type SqliteStoreOptions = Omit<AgentStateStoreOptions, 'ownsProvider'> & SqliteOptions;

/**
 * A store in one SQLite file (created if missing, `:memory:` for none),
 * with full-text and, given an `embedder`, hybrid search. `store.close()`
 * (or LangGraph's `stop()`) closes the file.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): AgentStateStore {
  const { index, batchId, ...sqlite } = options;
  return new AgentStateStore(openSqlite(path, sqlite), { ...(index ? { index } : {}), ...(batchId ? { batchId } : {}), ownsProvider: true });
}
