/**
 * `@agentstate/langgraph`: LangGraph.js persistence on agentstate. The
 * store (`AgentStateStore`, a LangGraph `BaseStore`) keeps long-term memory
 * as agentstate memory items: namespaces are scopes, keys are memory keys,
 * values are metadata.
 */
export { AgentStateStore, type AgentStateStoreOptions, STORE_KIND, STORE_KINDS, STORE_SOURCE, UNINDEXED_KIND } from './store.js';
export { openSqliteStore, openStore, type SqliteStoreIndex, type SqliteStoreOptions } from './open.js';
export { langchainEmbedder } from './embeddings.js';
