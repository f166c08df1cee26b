/**
 * `@agentstate/langgraph`: LangGraph.js persistence on agentstate. The
 * store (`AgentStateStore`, a LangGraph `BaseStore`) keeps long-term memory
 * as agentstate memory items: namespaces are scopes, keys are memory keys,
 * values are metadata. The checkpointer (`AgentStateSaver`, a LangGraph
 * `BaseCheckpointSaver`) keeps checkpoints and pending writes on the same log.
 */
export { AgentStateStore, type AgentStateStoreOptions, STORE_KIND, STORE_KINDS, STORE_SOURCE, UNINDEXED_KIND } from './store.js';
export {
  openPostgresSaver,
  openPostgresStore,
  openSaver,
  openSqliteSaver,
  openSqliteStore,
  openStore,
  type PostgresSaverOptions,
  type PostgresStoreOptions,
  type SqliteSaverOptions,
  type SqliteStoreIndex,
  type SqliteStoreOptions,
} from './open.js';
export { langchainEmbedder } from './embeddings.js';
export { AgentStateSaver, type AgentStateSaverOptions, type SerializedValue } from './saver.js';
export { MESSAGES_CHANNEL, type MirrorMessagesOptions, messageToTurn } from './transcript.js';
