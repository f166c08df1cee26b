/**
 * @agentstate/embeddings — embedders for agentstate's semantic recall
 * (docs/contract.md §6): the offline static word-vector default, and a client for
 * OpenAI-compatible `/v1/embeddings` servers (OpenAI, Ollama, vLLM, LM Studio).
 */
export {
  createStaticEmbedder,
  STATIC_EMBEDDER_ID,
  STATIC_SIMILARITY_THRESHOLD,
  type StaticEmbedder,
} from './static/embedder.js';
export { createOpenAIEmbedder, type OpenAIEmbedderOptions } from './openai/embedder.js';
export {
  EmbeddingError,
  EmbeddingHttpError,
  EmbeddingNetworkError,
  EmbeddingResponseError,
  EmbeddingTimeoutError,
  isEmbeddingError,
  TableFormatError,
  type EmbeddingErrorCode,
} from './errors.js';
