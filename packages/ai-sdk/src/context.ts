/**
 * A step's prompt from the context window (docs/contract.md §4,
 * "Context"): what `sessions.context` selects, as the AI SDK's
 * instructions and model messages. The entries that are not turns become
 * the instructions (ai 7 refuses system messages among the messages); the
 * turns are converted as `loadChat` reads them.
 */
import { type ContextEntry, type ContextOptions, type Provider, SUMMARY_HEADING, type Turn } from '@agentstate/core';
import { convertToModelMessages, type ModelMessage } from 'ai';
import { fromTurns } from './messages.js';

/** Where one entry goes: a line under a heading of the system message, or a turn of the conversation. */
type Placed = { heading: string; line: string } | { turn: Turn };

/** One item of a list: continuation lines indented, so a multi-line memory stays one item. */
function item(text: string): string {
  return `- ${text.replaceAll('\n', '\n  ')}`;
}

/** The place of each kind of entry; a new kind is one case (the type check names a missing one: the switch must return). */
function place(entry: ContextEntry): Placed {
  switch (entry.kind) {
    case 'working':
      return { heading: 'Working memory:', line: entry.memory.content };
    case 'memory':
      return { heading: 'Memories recalled for this conversation:', line: item(entry.memory.content) };
    case 'summary':
      return { heading: SUMMARY_HEADING, line: entry.summary.text };
    case 'turn':
      return { turn: entry.turn };
  }
}

/** A step's prompt: spread it into `generateText` / `streamText` (ai 6: pass `instructions` as `system`). */
export interface ContextPrompt {
  /**
   * The window's entries other than turns, one section per kind in the
   * window's order: its heading line, then its entries (a memory as a `- `
   * list item), sections apart by a blank line. `undefined` when the window
   * holds only turns.
   */
  instructions: string | undefined;
  /** The window's turns, oldest first, as `convertToModelMessages` makes them of the UI messages `loadChat` reads: a tool call stays with its result. */
  messages: ModelMessage[];
}

/**
 * The prompt of `sessions.context(sessionId, options)` for the next step.
 * The window's errors are the call's: an unknown session is a
 * `NotFoundError`, bad options a `ValidationError`.
 */
export async function contextPrompt(provider: Pick<Provider, 'sessions'>, sessionId: string, options: ContextOptions): Promise<ContextPrompt> {
  const { entries } = await provider.sessions.context(sessionId, options);
  const sections = new Map<string, string[]>();
  const turns: Turn[] = [];
  for (const placed of entries.map(place)) {
    if ('turn' in placed) turns.push(placed.turn);
    else sections.set(placed.heading, [...(sections.get(placed.heading) ?? []), placed.line]);
  }
  const instructions = [...sections].map(([heading, lines]) => [heading, ...lines].join('\n')).join('\n\n');
  const messages = await convertToModelMessages(fromTurns(turns));
  return { instructions: instructions === '' ? undefined : instructions, messages };
}
