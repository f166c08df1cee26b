/**
 * Token counts for the context window (docs/contract.md §4, "Context"): the
 * pluggable counter, the default one, and the text a turn or a memory item
 * is counted over, defined here once.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { canonicalJson } from '../log/json.js';
import type { Part } from '../records/parts.js';
import type { Turn } from '../records/records.js';

/** Counts the tokens of a text for one model family: a bare function, or one with the name a context reports. */
export type TokenCounter = ((text: string) => number) | { readonly name: string; count(text: string): number };

/** A `counter` option: a function of a text, or `{ name, count }`. */
export const tokenCounterSchema = z.custom<TokenCounter>(
  (v) =>
    typeof v === 'function' ||
    (typeof v === 'object' && v !== null && 'name' in v && typeof v.name === 'string' && 'count' in v && typeof v.count === 'function'),
  'must be a function of a text or { name, count }',
);

/** A counter with its name. */
export interface NamedTokenCounter {
  readonly name: string;
  count(text: string): number;
}

/** The name a context reports for a counter given as a bare function. */
const CUSTOM_COUNTER = 'custom';

let defaultCounter: Promise<NamedTokenCounter> | undefined;

/**
 * The default counter: the OpenAI `o200k_base` encoding of `gpt-tokenizer`.
 * Only that encoding's entry point is imported, on the first call, so a
 * provider that never counts never loads its tables.
 */
export function defaultTokenCounter(): Promise<NamedTokenCounter> {
  defaultCounter ??= import('gpt-tokenizer/encoding/o200k_base').then(({ countTokens }) => {
    // A turn that quotes a special token (`<|endoftext|>`) reaches the model as text, never as the control token.
    const asText = { disallowedSpecial: new Set<string>() };
    return { name: 'o200k_base', count: (text: string) => countTokens(text, asText) };
  });
  return defaultCounter;
}

/** The counter a call counts with: `counter` named ({@link namedCounter}), or without one the default. */
export function counterFor(counter: TokenCounter | undefined): Promise<NamedTokenCounter> {
  return counter === undefined ? defaultTokenCounter() : Promise.resolve(namedCounter(counter));
}

/** `counter` with its name, refusing a count that is not a non-negative integer: a budget cannot hold against one. */
export function namedCounter(counter: TokenCounter): NamedTokenCounter {
  const named = typeof counter === 'function' ? { name: CUSTOM_COUNTER, count: counter } : counter;
  return {
    name: named.name,
    count(text) {
      const n = named.count(text);
      if (!Number.isSafeInteger(n) || n < 0) throw new ValidationError('counter', `must count a non-negative integer of tokens (it counted ${String(n)})`);
      return n;
    },
  };
}

/**
 * A part as a model receives it: text and reasoning as their text, a data
 * part as nothing (adapters keep their own bookkeeping there, and no shipped
 * adapter sends one to a model), any other part as its canonical JSON
 * without its provider metadata.
 */
function partText(part: Part): string[] {
  if (part.type === 'text' || part.type === 'reasoning') return [part.text];
  if (part.type === 'data') return [];
  const { metadata: _metadata, ...sent } = part;
  return [canonicalJson(sent)];
}

/**
 * The text a turn's tokens are counted over, what a model receives for it:
 * its role, then each part but its data parts on a line of its own (its
 * `content` when it has no parts).
 */
export function turnTokenText(turn: Pick<Turn, 'role' | 'content' | 'parts'>): string {
  return [turn.role, ...(turn.parts.length === 0 ? [turn.content] : turn.parts.flatMap(partText))].join('\n');
}
