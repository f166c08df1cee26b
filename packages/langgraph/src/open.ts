/**
 * Opening a store or a checkpointer: over a provider the caller keeps, or
 * over an SQLite file or a PostgreSQL schema it owns, opened by
 * `openDatabase` of `@agentstate/open` with the defaults of the
 * `agentstate` command and the MCP server (the offline embedder among them).
 */
import type { Provider } from '@agentstate/core';
import { ValidationError } from '@agentstate/core';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import type { OpenOptions } from '@agentstate/open';
import { openDatabase } from '@agentstate/open';
import { langchainEmbedder } from './embeddings.js';
import type { AgentStateSaverOptions } from './saver.js';
import { AgentStateSaver } from './saver.js';
import type { AgentStateStoreOptions } from './store.js';
import { AgentStateStore } from './store.js';

/** A store over `provider` (any backend); closing the provider stays the caller's job. */
export function openStore(provider: Provider, options: Omit<AgentStateStoreOptions, 'ownsProvider'> = {}): AgentStateStore {
  return new AgentStateStore(provider, options);
}

/** The `index` of {@link openSqliteStore}: `InMemoryStore`'s, and an optional id for the embedder. */
export interface SqliteStoreIndex {
  /** The field paths to index (default `['$']`, the whole value). */
  fields?: string[];
  /** LangChain embeddings for semantic and hybrid search (with `dims`), as `InMemoryStore` takes them. */
  embeddings?: EmbeddingsInterface;
  /** How many numbers the embeddings return per text. */
  dims?: number;
  /** The embedder id vectors are cached under (see {@link langchainEmbedder}). */
  embedderId?: string;
}

/**
 * Options of {@link openSqliteStore}: `index` as `InMemoryStore` takes it,
 * `batchId`, and `openDatabase`'s (`embedder` for an agentstate embedder
 * instead of LangChain `index.embeddings`, `'none'` for none; `clock`, …).
 */
export type SqliteStoreOptions = Omit<AgentStateStoreOptions, 'ownsProvider' | 'index'> & OpenOptions & { index?: SqliteStoreIndex };

/**
 * A store in one SQLite file (created if missing, `:memory:` for none),
 * with full-text and, given `index.embeddings` (or an `embedder`), hybrid
 * search. `store.close()` closes the file.
 */
export const openSqliteStore: (path: string, options?: SqliteStoreOptions) => Promise<AgentStateStore> = storeAt;

/**
 * A store over the database `target` names, which it owns: LangChain
 * `index.embeddings` become the provider's embedder, the rest of `index` and
 * `batchId` the store's. Without either embedder the store searches
 * lexically, as `InMemoryStore` without `index` does not search by meaning.
 */
async function storeAt(target: string, options: SqliteStoreOptions = {}): Promise<AgentStateStore> {
  const { index, batchId, ...open } = options;
  if (index?.embeddings) {
    if (open.embedder) throw new ValidationError('index.embeddings', 'give either index.embeddings or embedder, not both');
    open.embedder = langchainEmbedder(index.embeddings, index.dims ?? Number.NaN, index.embedderId);
  }
  const store = { ...(index?.fields ? { index: { fields: index.fields } } : {}), ...(batchId ? { batchId } : {}), ownsProvider: true };
  return new AgentStateStore(await openDatabase(target, { ...open, embedder: open.embedder ?? 'none' }), store);
}

/** A checkpointer over `provider` (any backend); closing the provider stays the caller's job. */
export function openSaver(provider: Provider, options: Omit<AgentStateSaverOptions, 'ownsProvider'> = {}): AgentStateSaver {
  return new AgentStateSaver(provider, options);
}

/** Options of {@link openSqliteSaver}: the saver's (`serde`, `mirrorMessages`) and `openDatabase`'s (`clock`, …). */
export type SqliteSaverOptions = Omit<AgentStateSaverOptions, 'ownsProvider'> & OpenOptions;

/**
 * A checkpointer in one SQLite file (created if missing, `:memory:` for none);
 * `saver.close()` closes the file. Give the path of a store's file to keep
 * checkpoints and long-term memory together, or share one provider with
 * {@link openSaver} and {@link openStore}.
 */
export const openSqliteSaver: (path: string, options?: SqliteSaverOptions) => Promise<AgentStateSaver> = saverAt;

/** A checkpointer over the database `target` names, which it owns. */
async function saverAt(target: string, options: SqliteSaverOptions = {}): Promise<AgentStateSaver> {
  const { serde, mirrorMessages, ...open } = options;
  return new AgentStateSaver(await openDatabase(target, open), { serde, mirrorMessages, ownsProvider: true });
}

/**
 * Options of {@link openPostgresStore}: `index` and `batchId` as
 * {@link openSqliteStore} takes them, and `openDatabase`'s (`schema`,
 * `max`, `embedder`, …).
 */
export type PostgresStoreOptions = SqliteStoreOptions;

/**
 * A store in one schema of a PostgreSQL database (created and migrated if
 * needed), from a `postgres://` URL in one call; `store.close()` closes its
 * pool. Several processes may share the schema.
 */
export const openPostgresStore: (url: string, options?: PostgresStoreOptions) => Promise<AgentStateStore> = storeAt;

/** Options of {@link openPostgresSaver}: the saver's (`serde`, `mirrorMessages`) and `openDatabase`'s (`schema`, `max`, …). */
export type PostgresSaverOptions = SqliteSaverOptions;

/**
 * A checkpointer in one schema of a PostgreSQL database (created and
 * migrated if needed), from a `postgres://` URL in one call, as LangGraph's
 * `PostgresSaver.fromConnString` (no `setup()` to call); `saver.close()`
 * closes its pool. Give a store's schema to keep checkpoints and long-term
 * memory together, or share one provider with {@link openSaver} and {@link openStore}.
 */
export const openPostgresSaver: (url: string, options?: PostgresSaverOptions) => Promise<AgentStateSaver> = saverAt;
