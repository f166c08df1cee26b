/**
 * The context window (docs/contract.md §4, "Context"): what to send a model
 * next for a session, within a token budget. One implementation over the
 * provider's own reads, so every backend, retention and time travel included,
 * assembles the same window.
 */
import { z } from 'zod';
import { parseInput } from '../records/inputs.js';
import { idField } from '../records/fields.js';
import { LIMITS } from '../records/limits.js';
import type { MemoryItem, Scope, SessionSummary, Turn } from '../records/records.js';
import { counterFor, defaultTokenCounter, type TokenCounter, tokenCounterSchema, turnTokenText } from './tokens.js';
import type { MemoryStore, RecallHit, SessionStore } from './types.js';
import type { WorkingMemoryStore } from './working-memory.js';

/** `sessions.context` options. */
export interface ContextOptions {
  /** The budget: the entries' tokens never sum above it. A positive integer. */
  maxTokens: number;
  /** Counts the tokens. Default: {@link defaultTokenCounter}, the `o200k_base` encoding. */
  counter?: TokenCounter;
  /** Also the top `limit` memories of the session's scope recalled for its last user turn, before the turns. */
  recall?: { limit: number };
  /** Whether the working memory of the session's scope comes first (default true). */
  working?: boolean;
}

/** One entry of a context window, with its token count; `kind` says what it holds. */
export type ContextEntry =
  | { kind: 'working'; tokens: number; memory: MemoryItem }
  | { kind: 'memory'; tokens: number; memory: RecallHit }
  | { kind: 'summary'; tokens: number; summary: SessionSummary }
  | { kind: 'turn'; tokens: number; turn: Turn };

/** What `sessions.context` returns: the entries in the order a model takes them, and their tokens. */
export interface ContextWindow {
  sessionId: string;
  /** The scope's working memory, recalled memories (best first), the session's summary if it is used, then the newest turns that fit (oldest first). */
  entries: ContextEntry[];
  /** The entries' tokens summed: at most `maxTokens`. */
  tokens: number;
  maxTokens: number;
  /** The counter's name (`custom` for a bare function). */
  counter: string;
}

/** The reads a context is assembled from. */
export interface ContextReads {
  sessions: Pick<SessionStore, 'get' | 'turns'>;
  memory: Pick<MemoryStore, 'recall'>;
  workingMemory: Pick<WorkingMemoryStore, 'get'>;
}

const contextOptionsSchema = z.strictObject({
  maxTokens: z.int().min(1),
  counter: tokenCounterSchema.optional(),
  recall: z.strictObject({ limit: z.int().min(1).max(LIMITS.pageSize) }).optional(),
  working: z.boolean().optional(),
});

/** The newest turns read first: most windows need no more. */
const FIRST_WINDOW = 64;

/** The newest live turns of a session, read in growing windows. */
class Transcript {
  turns: Turn[] = [];
  /** Whether {@link turns} is the whole live transcript. */
  whole = false;

  constructor(
    private readonly sessions: ContextReads['sessions'],
    private readonly id: string,
  ) {}

  /**
   * Reads the newest `wanted` turns, at least twice as many as before (at first {@link FIRST_WINDOW}); past
   * `LIMITS.pageSize`, the whole transcript.
   */
  async grow(wanted = 0): Promise<void> {
    const held = this.turns.length;
    const last = held === 0 ? FIRST_WINDOW : Math.max(2 * held, Math.ceil(wanted));
    const whole = held >= LIMITS.pageSize || last > LIMITS.pageSize;
    this.turns = [...(await this.sessions.turns(this.id, whole ? {} : { last }))];
    this.whole = whole || this.turns.length < last;
  }
}

/**
 * For each turn, the oldest turn it must enter the window with: for each
 * tool result it holds, the turn of the newest call of that `callId` up to
 * it. A result without one in `turns` is tied to `-1` when older turns were
 * not read (`whole` false), else to nothing. A call is paired the same way
 * whatever part of the transcript was read.
 */
function tiedTo(turns: readonly Turn[], whole: boolean): number[] {
  const calls = new Map<string, number>();
  return turns.map((turn, i) => {
    for (const part of turn.parts) if (part.type === 'tool-call') calls.set(part.callId, i);
    let low = i;
    for (const part of turn.parts) if (part.type === 'tool-result') low = Math.min(low, calls.get(part.callId) ?? (whole ? i : -1));
    return low;
  });
}

/**
 * The first index of the longest suffix of `turns` that fits `budget` and
 * splits no call from its result (with `whole` false, a result whose call is
 * not among `turns` ties every turn before it); whether an older turn was left out for
 * the budget (so reading further back cannot add one); and the tokens summed.
 */
export function newestFit(turns: readonly Turn[], tokens: (turn: Turn) => number, budget: number, whole: boolean): { cut: number; full: boolean; sum: number } {
  const low = tiedTo(turns, whole);
  let cut = turns.length;
  let sum = 0;
  let oldest = Number.POSITIVE_INFINITY;
  for (let i = turns.length - 1; i >= 0; i--) {
    sum += tokens(turns[i]!);
    if (sum > budget) return { cut, full: true, sum };
    oldest = Math.min(oldest, low[i]!);
    if (oldest >= i) cut = i;
  }
  return { cut, full: false, sum };
}

/** At most `max` UTF-16 units of `text`, never ending inside a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return text.slice(0, end);
}

/** The memories recalled for the session's newest user turn that fit `budget`, best first, stopping at the first that does not. */
async function recalled(
  reads: ContextReads,
  transcript: Transcript,
  scope: Scope,
  limit: number,
  count: (text: string) => number,
  budget: number,
): Promise<ContextEntry[]> {
  const newestUser = () => transcript.turns.findLast((turn) => turn.role === 'user');
  while (newestUser() === undefined && !transcript.whole) await transcript.grow();
  const query = clip(newestUser()?.content ?? '', LIMITS.query);
  if (query === '') return [];
  const entries: ContextEntry[] = [];
  // `any`: a user turn is a question in words, not a list of terms that must all match.
  for (const memory of await reads.memory.recall({ query, scope, limit, match: 'any' })) {
    const tokens = count(memory.content);
    if (tokens > budget) break;
    budget -= tokens;
    entries.push({ kind: 'memory', tokens, memory });
  }
  return entries;
}

/** The scope's working memory as the window's first entry, when there is one and it fits `budget`. */
async function pinned(reads: ContextReads, scope: Scope, count: (text: string) => number, budget: number): Promise<ContextEntry[]> {
  const memory = await reads.workingMemory.get({ scope });
  if (memory === null) return [];
  const tokens = count(memory.content);
  return tokens > budget ? [] : [{ kind: 'working', tokens, memory }];
}

/**
 * The session's summary as an entry, and the index in `transcript` of the turn it covers the
 * transcript through, read until found: none when there is no summary, it is stale, its turn is no
 * longer live (removed or purged since), or it alone does not fit `budget`.
 */
async function usableSummary(
  transcript: Transcript,
  summary: SessionSummary | undefined,
  count: (text: string) => number,
  budget: number,
): Promise<{ entry: ContextEntry; at: number } | undefined> {
  if (summary === undefined || summary.stale) return undefined;
  const tokens = count(summary.text);
  if (tokens > budget) return undefined;
  const at = () => transcript.turns.findIndex((turn) => turn.id === summary.through);
  while (at() < 0 && !transcript.whole) await transcript.grow();
  const index = at();
  return index < 0 ? undefined : { entry: { kind: 'summary', tokens, summary }, at: index };
}

/** Assembles the context window of a live session: see {@link SessionStore.context}. */
export async function assembleContext(reads: ContextReads, sessionId: string, options: ContextOptions): Promise<ContextWindow> {
  parseInput(idField, sessionId);
  const o = parseInput(contextOptionsSchema, options);
  const session = await reads.sessions.get(sessionId);
  const counter = await counterFor(o.counter);
  const count = (text: string) => counter.count(text);
  const transcript = new Transcript(reads.sessions, sessionId);
  await transcript.grow();
  const entries = o.working === false ? [] : await pinned(reads, session.scope, count, o.maxTokens);
  const left = () => o.maxTokens - entries.reduce((sum, entry) => sum + entry.tokens, 0);
  if (o.recall !== undefined) entries.push(...(await recalled(reads, transcript, session.scope, o.recall.limit, count, left())));
  const budget = left();
  // Each turn is counted once, however many windows it is read in.
  const counted = new Map<string, number>();
  const tokens = (turn: Turn) => {
    const known = counted.get(turn.id);
    if (known !== undefined) return known;
    const n = count(turnTokenText(turn));
    counted.set(turn.id, n);
    return n;
  };
  const summary = await usableSummary(transcript, session.summary, count, budget);
  if (summary !== undefined) {
    // The turns it covers are left out, and a result whose call it covers with them: read as a part, not the whole.
    const after = transcript.turns.slice(summary.at + 1);
    const { cut } = newestFit(after, tokens, budget - summary.entry.tokens, false);
    entries.push(summary.entry);
    for (const turn of after.slice(cut)) entries.push({ kind: 'turn', tokens: tokens(turn), turn });
  }
  while (summary === undefined) {
    const { cut, full, sum } = newestFit(transcript.turns, tokens, budget, transcript.whole);
    if (full || transcript.whole) {
      for (const turn of transcript.turns.slice(cut)) entries.push({ kind: 'turn', tokens: tokens(turn), turn });
      break;
    }
    // As many turns as the budget holds at the tokens per turn seen so far, and a quarter more.
    await transcript.grow((1.25 * transcript.turns.length * budget) / Math.max(sum, 1));
  }
  const total = entries.reduce((sum, entry) => sum + entry.tokens, 0);
  return { sessionId, entries, tokens: total, maxTokens: o.maxTokens, counter: counter.name };
}
