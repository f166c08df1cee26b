/**
 * The compaction policy (docs/contract.md §4, "Compaction"): compact a session once the turns its
 * summary does not cover pass a token threshold, with a summary the caller's function writes. Over
 * the provider's own calls, so every backend compacts alike; no model is called but through it.
 */
import { z } from 'zod';
import { idField } from '../records/fields.js';
import { parseInput } from '../records/inputs.js';
import type { Session, SessionSummary, Turn } from '../records/records.js';
import { newestFit } from './context.js';
import { counterFor, type TokenCounter, tokenCounterSchema, turnTokenText } from './tokens.js';
import type { SessionStore } from './types.js';

/** The line a model reads before a summary's text, where the summary stands in for the turns it covers (the adapters' prompts). */
export const SUMMARY_HEADING = 'Summary of the earlier conversation:';

/** What a model asked to write a summary is told unless the caller says otherwise (the adapters' summarizers); it reads this first. */
export const SUMMARY_INSTRUCTIONS =
  'Summarise the conversation that follows so that the summary can stand in for it: whoever reads it instead must be able to carry on. ' +
  'Keep every fact, name, number, preference, decision, tool result and open question that may matter later; leave out greetings and repetition. ' +
  'A summary so far, if given, covers what came before: the new summary replaces it, so carry over what still matters. ' +
  'Answer with the summary only, in plain text, in the language of the conversation.';

/** What `summarize` is given: the summary in use (if any) and the turns to fold into it, oldest first. */
export interface SummarizeInput {
  summary: SessionSummary | undefined;
  turns: Turn[];
}

/** When and how {@link compactWhenOver} compacts. */
export interface CompactionPolicy {
  /** Compact once the live turns the summary in use does not cover count more tokens than this. */
  thresholdTokens: number;
  /** The newest of those turns to leave out of the summary, up to this many tokens (default 0). */
  keepTokens?: number;
  /** Writes the new summary; called only once the threshold is passed. */
  summarize(input: SummarizeInput): Promise<string | { text: string; model?: string; tokens?: number }>;
  /** Counts the tokens. Default: the `o200k_base` encoding. */
  counter?: TokenCounter;
}

const policySchema = z.strictObject({
  thresholdTokens: z.int().min(0),
  keepTokens: z.int().min(0).optional(),
  summarize: z.custom<CompactionPolicy['summarize']>((v) => typeof v === 'function', 'must be a function'),
  counter: tokenCounterSchema.optional(),
});

/**
 * Compacts session `sessionId` when the live turns after its summary's turn (every live turn without a
 * usable summary) count more than `thresholdTokens`: `summarize` folds them, but for the newest that fit
 * `keepTokens` (a tool call kept with its result), into the summary through the newest turn it folds.
 * Returns the compacted session, or undefined when under the threshold or nothing would be folded.
 */
export async function compactWhenOver(
  sessions: Pick<SessionStore, 'get' | 'turns' | 'compact'>,
  sessionId: string,
  policy: CompactionPolicy,
): Promise<Session | undefined> {
  parseInput(idField, sessionId);
  const o = parseInput(policySchema, policy);
  const counter = await counterFor(o.counter);
  const session = await sessions.get(sessionId);
  const live = [...(await sessions.turns(sessionId))];
  const at = session.summary?.stale ? -1 : live.findIndex((turn) => turn.id === session.summary?.through);
  const summary = at < 0 ? undefined : session.summary;
  const open = live.slice(at + 1);
  const tokens = (turn: Turn) => counter.count(turnTokenText(turn));
  if (open.reduce((sum, turn) => sum + tokens(turn), 0) <= o.thresholdTokens) return undefined;
  const { cut } = newestFit(open, tokens, o.keepTokens ?? 0, false);
  const folded = open.slice(0, cut);
  if (folded.length === 0) return undefined;
  const written = await o.summarize({ summary, turns: folded });
  const { text, ...about } = typeof written === 'string' ? { text: written } : written;
  return sessions.compact(sessionId, { through: folded.at(-1)!.id, summary: text, ...about });
}
