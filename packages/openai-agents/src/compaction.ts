/**
 * Compaction of an {@link AgentStateSession} (docs/contract.md §10, "OpenAI
 * Agents session"): the runner's `runCompaction` hook over core's
 * `compactWhenOver`, and the summary as the item a model reads in place of
 * the turns it covers.
 */
import type { CompactionPolicy, SessionSummary, SummarizeInput } from '@agentstate/core';
import { SUMMARY_HEADING, SUMMARY_INSTRUCTIONS, ValidationError } from '@agentstate/core';
import type { AgentInputItem, Model } from '@openai/agents-core';
import { RequestUsage } from '@openai/agents-core';
import { turnToItem } from './items.js';

/**
 * When and how the session compacts after a run's turn: core's
 * `compactWhenOver` rule (`thresholdTokens`, `keepTokens`, `counter`), the
 * summary written by `summarize` or by asking `model`, exactly one of them.
 */
export type SessionCompaction = Omit<CompactionPolicy, 'summarize'> &
  (
    | { summarize: CompactionPolicy['summarize']; model?: never; instructions?: never }
    | {
        /** Asked for the summary: given `instructions`, the summary in use, then the turns to fold, as items. */
        model: Model;
        /** The summarising model's instructions (default {@link SUMMARY_INSTRUCTIONS}). */
        instructions?: string;
        summarize?: never;
      }
  );

/** The item a model reads for `summary`: a system message, the heading then the text. */
export function summaryItem(summary: Pick<SessionSummary, 'text'>): AgentInputItem {
  return { role: 'system', content: `${SUMMARY_HEADING}\n${summary.text}` };
}

/** `compaction` checked when the session is constructed: one source of summaries, so none is chosen silently. */
export function checkCompaction(compaction: SessionCompaction | undefined): void {
  if (compaction === undefined) return;
  const given = typeof compaction === 'object' && compaction !== null ? [compaction.summarize, compaction.model].filter((v) => v !== undefined) : [];
  if (given.length !== 1) throw new ValidationError('compaction', 'must give exactly one of summarize or model');
}

/**
 * The `summarize` of a policy: `compaction`'s own, or one asking its model,
 * which reports each call's usage to `used` (the runner adds it to the run's).
 */
export function summarizerOf(compaction: SessionCompaction, used: (usage: RequestUsage) => void): CompactionPolicy['summarize'] {
  const { model, instructions = SUMMARY_INSTRUCTIONS } = compaction;
  if (model === undefined) return compaction.summarize;
  return async ({ summary, turns }: SummarizeInput) => {
    const response = await model.getResponse({
      systemInstructions: instructions,
      input: [...(summary === undefined ? [] : [summaryItem(summary)]), ...turns.map(turnToItem)],
      modelSettings: {},
      tools: [],
      outputType: 'text',
      handoffs: [],
      tracing: false,
    });
    const { inputTokens, outputTokens, totalTokens } = response.usage;
    used(new RequestUsage({ inputTokens, outputTokens, totalTokens }));
    return response.output
      .flatMap((item) => ('role' in item && item.role === 'assistant' ? item.content : []))
      .flatMap((part) => (part.type === 'output_text' ? [part.text] : []))
      .join('');
  };
}
