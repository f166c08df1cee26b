/**
 * What a recall does when the caller names no mode or order
 * (docs/contract.md §4): decided here once, so the library, the `agentstate`
 * command and the MCP server answer the same question the same way.
 */
import { queryTokens } from '../matching/lexical.js';
import type { RECALL_MODES, RECALL_ORDERS } from '../records/inputs.js';

/** A recall mode. */
export type RecallMode = (typeof RECALL_MODES)[number];
/** A recall order. */
export type RecallOrder = (typeof RECALL_ORDERS)[number];

/** The mode of a recall that names none: `hybrid` when the provider can embed, else `lexical`. */
export function defaultRecallMode(canEmbed: boolean): RecallMode {
  return canEmbed ? 'hybrid' : 'lexical';
}

/**
 * The order of a recall that names none: `relevance` when it ranks by
 * meaning (a semantic or hybrid recall with query text), else `recent`. A
 * question asked in words wants the best answer first; a lexical filter or
 * a listing without query text wants the newest first.
 */
export function defaultRecallOrder(mode: RecallMode, query: string | undefined): RecallOrder {
  if (mode === 'lexical') return 'recent';
  const tokens = queryTokens(query);
  return tokens !== null && tokens.length > 0 ? 'relevance' : 'recent';
}
