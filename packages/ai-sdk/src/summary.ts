/**
 * A session's summary written by any AI SDK model (docs/contract.md §4,
 * "Compaction"): the `summarize` of core's `compactWhenOver`, so one
 * policy decides when to compact and this only writes the summary. The
 * model is given the summary in use (summaries roll up) and the turns to
 * fold into it; `compact` records its text with the model's id and the
 * tokens it wrote. A model that fails fails the compaction: nothing is written.
 */
import { SUMMARY_INSTRUCTIONS, type SummarizeInput, turnTokenText, ValidationError } from '@agentstate/core';
import { generateText, type LanguageModel } from 'ai';

/** Options of {@link summarizeWith}. */
export interface SummarizeWithOptions {
  /** What the model is told to do, before the summary in use and the turns. Default: {@link SUMMARY_INSTRUCTIONS}. */
  instructions?: string;
}

/** A summary as `compact` records it: the text, the id of the model that wrote it, and the tokens it wrote when the model says. */
export interface WrittenSummary {
  text: string;
  model: string;
  tokens?: number;
}

/** The prompt of a summary: the instructions, the summary in use, then the turns as they are counted (without their `data` parts). */
function summaryPrompt(instructions: string, { summary, turns }: SummarizeInput): string {
  const earlier = summary === undefined ? [] : ['Summary so far:', summary.text, ''];
  const said = turns.map(turnTokenText);
  return [instructions, '', ...earlier, 'Conversation:', said.join('\n\n')].join('\n');
}

/**
 * A `summarize` that writes the summary with `model` through `generateText`:
 * pass it to `compactWhenOver` (`thresholdTokens: 0` compacts now, keeping the
 * newest `keepTokens`), or call it with `{ summary, turns }` for the text alone.
 * Empty `instructions` are a `ValidationError`; the model's errors are its call's.
 */
export function summarizeWith(model: LanguageModel, options: SummarizeWithOptions = {}): (input: SummarizeInput) => Promise<WrittenSummary> {
  const instructions = options.instructions ?? SUMMARY_INSTRUCTIONS;
  if (typeof instructions !== 'string' || instructions.trim() === '') throw new ValidationError('instructions', 'must be a non-empty string');
  return async (input) => {
    // One user message: every major and provider takes it, where system prompts are spelled differently.
    const { text, response, usage } = await generateText({ model, prompt: summaryPrompt(instructions, input) });
    const tokens = usage.outputTokens;
    return { text: text.trim(), model: response.modelId, ...(tokens === undefined ? {} : { tokens }) };
  };
}
