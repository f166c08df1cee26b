/**
 * @agentstate/ai-sdk — agentstate for the Vercel AI SDK: `UIMessage` chats
 * stored as sessions (create, list, load, save, an `onFinish` for
 * `toUIMessageStreamResponse`), and memory and skill tools for
 * `generateText` and `streamText`, each scoped to one user; a step's
 * prompt from the context window, and a session's summary written by a model.
 */
export {
  type ChatStore,
  type ChatStoreOptions,
  type CreateChatInput,
  type FinishEvent,
  type ListChatsOptions,
  type SaveChatInput,
  createChatStore,
} from './chats.js';
export { type ContextPrompt, contextPrompt } from './context.js';
export { type MemoryOutput, type MemoryTools, type MemoryToolsOptions, type SkillOutput, memoryTools } from './memory-tools.js';
export { fromTurn, fromTurns, toTurnInput } from './messages.js';
export { type UIPartLike, fromTurnParts, toTurnParts } from './parts.js';
/** Core's default summary instructions, re-exported as the README names them. */
export { SUMMARY_INSTRUCTIONS } from '@agentstate/core';
export { type SummarizeWithOptions, summarizeWith, type WrittenSummary } from './summary.js';
