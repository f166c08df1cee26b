/**
 * `@agentstate/openai-agents`: a durable OpenAI Agents SDK session. Pass an
 * {@link AgentStateSession} as `run(agent, input, { session })` and the
 * conversation lives in agentstate: one SQLite file, or any other backend.
 */
export { AgentStateSession, type AgentStateSessionOptions } from './session.js';
/** Core's default summary instructions, re-exported as the README names them. */
export { SUMMARY_INSTRUCTIONS } from '@agentstate/core';
export { type SessionCompaction, summaryItem } from './compaction.js';
export { ITEM_PART, itemToTurn, turnToItem } from './items.js';
