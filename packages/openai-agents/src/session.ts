/**
 * An Agents SDK `Session` kept in agentstate: every item a run reads and
 * writes is a turn of one agentstate session, on any backend. Writes are
 * atomic (one transaction per call), and the SDK's history transactions are
 * idempotent per operation id, across processes sharing the backend.
 */
import { createHash } from 'node:crypto';
import type { CreateSessionInput, EventSourcedProvider, Turn, TurnInput } from '@agentstate/core';
import {
  canonicalJson,
  ConflictError,
  decodeStateEvent,
  EventTypes,
  LIMITS,
  NotFoundError,
  STATE_STREAM,
  turnInputSchema,
  ValidationError,
  parseInput,
  compactWhenOver,
} from '@agentstate/core';
import type { OpenOptions } from '@agentstate/open';
import { openDatabase } from '@agentstate/open';
import type {
  AgentInputItem,
  OpenAIResponsesCompactionArgs,
  OpenAIResponsesCompactionAwareSession,
  OpenAIResponsesCompactionResult,
  RequestUsage,
  SessionHistoryTransaction,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
} from '@openai/agents-core';
import { encodeValue } from './codec.js';
import { checkCompaction, type SessionCompaction, summarizerOf, summaryItem } from './compaction.js';
import { checkItems, itemToTurn, turnToItem } from './items.js';

/** How an {@link AgentStateSession} finds or creates its agentstate session. */
export interface AgentStateSessionOptions {
  /**
   * The agentstate session to use. Created on first use when no session has
   * this id; a fresh session (with a generated id) when omitted.
   */
  sessionId?: string;
  /** Where a created session lives, e.g. `['user', userId]` (default: global). */
  scope?: CreateSessionInput['scope'];
  /** The title of a created session. */
  title?: string;
  /** The metadata of a created session. */
  metadata?: CreateSessionInput['metadata'];
  /**
   * The items a session starts with, as `MemorySession` takes them: written
   * right after this instance creates the session, never into one that
   * already exists (a restart that names it reads its history instead).
   * Checked when the instance is constructed (`ValidationError`).
   */
  initialItems?: AgentInputItem[];
  /**
   * Compacts the session after a run's turn once its items past the summary
   * pass `thresholdTokens` (core's `compactWhenOver`). Without it the
   * session never compacts (`runCompaction` returns null).
   */
  compaction?: SessionCompaction;
}

/** The agentstate operation id of an SDK operation of one session: fixed length, no clash between sessions. */
function operationKey(...parts: string[]): string {
  return `openai-agents-${createHash('sha256').update(JSON.stringify(parts)).digest('hex')}`;
}

/** Structural identity of items, `undefined` fields and bytes included. */
const fingerprint = (items: readonly AgentInputItem[]): string => canonicalJson(encodeValue(items));

/**
 * A durable {@link SessionHistoryTransactionAwareSession} over an agentstate
 * {@link EventSourcedProvider} (every shipped backend is one; a retried
 * history transaction is compared with the event that first applied it):
 * pass it as `run(agent, input, { session })`.
 *
 * Items are stored losslessly (read back deep-equal, as fresh copies), and
 * message text is searchable with `provider.sessions.search`. The session is
 * not closed with the provider it was given; {@link AgentStateSession.sqlite}
 * opens a provider that {@link close} closes.
 */
export class AgentStateSession implements SessionHistoryTransactionAwareSession, OpenAIResponsesCompactionAwareSession {
  /** The provider the items are stored in. */
  readonly provider: EventSourcedProvider;
  readonly #options: AgentStateSessionOptions;
  /** The turns of `initialItems`, checked up front so that a refused item creates no session. */
  readonly #seed: TurnInput[];
  /** Whether {@link close} closes the provider: only one this class opened. */
  #owned = false;
  #id: Promise<string> | undefined;

  constructor(provider: EventSourcedProvider, options: AgentStateSessionOptions = {}) {
    this.provider = provider;
    checkCompaction(options.compaction);
    this.#options = options;
    this.#seed = checkItems(options.initialItems ?? [], 'initialItems').map((item) => parseInput(turnInputSchema, itemToTurn(item)));
  }

  /**
   * A session in the SQLite file at `path` (created if missing), opened by
   * `openDatabase` of `@agentstate/open` with the defaults of the
   * `agentstate` command; {@link close} closes the file.
   */
  static async sqlite(path: string, options: AgentStateSessionOptions & { sqlite?: OpenOptions } = {}): Promise<AgentStateSession> {
    const { sqlite, ...rest } = options;
    const session = new AgentStateSession(await openDatabase(path, sqlite), rest);
    session.#owned = true;
    return session;
  }

  /** The agentstate session id, creating the session on first use. */
  getSessionId(): Promise<string> {
    this.#id ??= this.#ensure().catch((error: unknown) => {
      this.#id = undefined;
      throw error;
    });
    return this.#id;
  }

  async #ensure(): Promise<string> {
    const { sessionId, scope, title, metadata } = this.#options;
    const sessions = this.provider.sessions;
    const draft = { ...(scope === undefined ? {} : { scope }), ...(title === undefined ? {} : { title }), ...(metadata === undefined ? {} : { metadata }) };
    if (sessionId === undefined) return this.#seeded((await sessions.create(draft)).id);
    try {
      return (await sessions.get(sessionId)).id;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    try {
      return await this.#seeded((await sessions.create({ ...draft, id: sessionId })).id);
    } catch (error) {
      // Another process created it first: use theirs (a deleted session stays NotFound).
      if (!(error instanceof ConflictError)) throw error;
      return (await sessions.get(sessionId)).id;
    }
  }

  /** Writes the initial items into session `id`, which this instance has just created; returns `id`. */
  async #seeded(id: string): Promise<string> {
    if (this.#seed.length > 0) await this.provider.sessions.replaceSuffix(id, { expected: [], turns: this.#seed });
    return id;
  }

  /**
   * The newest `limit` items (all when omitted), oldest first; `[]` for a
   * `limit` of 0 or less. Once compacted, what `sessions.context` sends: the
   * summary as a system message in place of the items it covers, then the
   * newer items.
   */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const id = await this.getSessionId();
    if (limit !== undefined && limit <= 0) return [];
    const last = limit === undefined ? undefined : Math.ceil(limit);
    if ((await this.provider.sessions.get(id)).summary !== undefined) {
      // Unbounded and counted as nothing: the window's rule for the summary and the turns after it, not its budget.
      const window = await this.provider.sessions.context(id, { maxTokens: Number.MAX_SAFE_INTEGER, counter: () => 0, working: false });
      const items = window.entries.flatMap((e) => (e.kind === 'summary' ? [summaryItem(e.summary)] : e.kind === 'turn' ? [turnToItem(e.turn)] : []));
      return last === undefined ? items : items.slice(-last);
    }
    const turns: Turn[] =
      last !== undefined && last <= LIMITS.pageSize
        ? await this.provider.sessions.turns(id, { last })
        : (await this.provider.sessions.turns(id)).slice(last === undefined ? 0 : -last);
    return turns.map(turnToItem);
  }

  /** Appends `items` in one atomic write: all of them or, when one is invalid, none. */
  async addItems(items: AgentInputItem[]): Promise<void> {
    const turns = checkItems(items, 'items').map(itemToTurn);
    if (turns.length === 0) return;
    await this.provider.sessions.replaceSuffix(await this.getSessionId(), { expected: [], turns });
  }

  /** Removes the newest item and returns it; `undefined` when there is none. */
  async popItem(): Promise<AgentInputItem | undefined> {
    const id = await this.getSessionId();
    try {
      return turnToItem(await this.provider.sessions.removeLastTurn(id));
    } catch (error) {
      if (error instanceof NotFoundError && error.entity !== 'session') return undefined;
      throw error;
    }
  }

  /** Removes every item (one event); the session and its id stay. */
  async clearSession(): Promise<void> {
    await this.provider.sessions.clear(await this.getSessionId());
  }

  /**
   * Applies an SDK history transaction atomically: `append_items`, or
   * `replace_suffix` when the history still ends with `expectedSuffix`
   * (`ConflictError` otherwise, history unchanged). A retry with the same
   * operation id and transaction succeeds without applying it again; the
   * same operation id with any other transaction is a `ConflictError`.
   */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
    const { operationId, transaction } = checkTransaction(args);
    const id = await this.getSessionId();
    const sessions = this.provider.sessions;
    // One agentstate operation per SDK operation, whatever the transaction: a reuse is never a new write.
    const key = operationKey(id, operationId);
    if (transaction.type === 'append_items') {
      // Its own method, so the id of an append never passes for a replacement's, even one adding the same items.
      await sessions.appendTurns(id, transaction.items.map(itemToTurn), { operationId: key });
      return;
    }
    const { expectedSuffix, replacement } = transaction;
    // The write's input names the turns it replaced, which a retry cannot name (they are gone), so a recorded
    // operation is recognised, and compared with the transaction, before the suffix is.
    if (await this.#recorded(id, key)) return this.#checkRetry(id, key, transaction);
    try {
      const tail = expectedSuffix.length === 0 ? [] : await sessions.turns(id, { last: expectedSuffix.length });
      if (tail.length !== expectedSuffix.length || fingerprint(tail.map(turnToItem)) !== fingerprint(expectedSuffix)) {
        throw new ConflictError(`the history of session ${id} no longer ends with the transaction's expected suffix`);
      }
      await sessions.replaceSuffix(id, { operationId: key, expected: tail.map((t) => t.id), turns: replacement.map(itemToTurn) });
    } catch (error) {
      // Another attempt of this operation may have been written since the look-up, replacing the suffix it read.
      if (error instanceof ConflictError && (await this.#recorded(id, key))) return this.#checkRetry(id, key, transaction);
      throw error;
    }
  }

  /** Whether an operation `key` was recorded: an empty write under it conflicts exactly then, and writes nothing. */
  async #recorded(id: string, key: string): Promise<boolean> {
    try {
      await this.provider.sessions.replaceSuffix(id, { operationId: key, expected: [], turns: [] });
      return false;
    } catch (error) {
      if (error instanceof ConflictError) return true;
      throw error;
    }
  }

  /**
   * Succeeds when the replacement recorded under `key` is `transaction`
   * (same suffix removed, same items added): read from the event that
   * recorded it. `ConflictError` for any other write under `key`.
   */
  async #checkRetry(id: string, key: string, transaction: Extract<SessionHistoryTransaction, { type: 'replace_suffix' }>): Promise<void> {
    const version = (await this.provider.history(id)).find((v) => v.operationId === key);
    const [event] = version ? await this.provider.log.read({ stream: STATE_STREAM, afterSeq: version.seq - 1, limit: 1 }) : [];
    const change = event ? decodeStateEvent(event) : undefined;
    const same =
      change?.type === EventTypes.SuffixReplaced &&
      fingerprint(change.payload.removed.map(turnToItem)) === fingerprint(transaction.expectedSuffix) &&
      fingerprint(change.payload.added.map(turnToItem)) === fingerprint(transaction.replacement);
    if (!same) throw new ConflictError(`operation ${JSON.stringify(key)} of session ${id} was already applied with another transaction`);
  }

  /**
   * The runner's hook after a turn is saved: compacts the session by the
   * `compaction` option (past its threshold, or whenever there is anything
   * to fold with `force`) in one `session.compacted` event, the transcript
   * kept whole. Returns the summarising model's usage, else null.
   */
  async runCompaction(args?: OpenAIResponsesCompactionArgs): Promise<OpenAIResponsesCompactionResult | null> {
    const compaction = this.#options.compaction;
    if (compaction === undefined) return null;
    let usage: RequestUsage | undefined;
    const { model: _model, instructions: _instructions, ...policy } = compaction;
    await compactWhenOver(this.provider.sessions, await this.getSessionId(), {
      ...policy,
      thresholdTokens: args?.force === true ? 0 : compaction.thresholdTokens,
      summarize: summarizerOf(compaction, (used) => {
        usage = used;
      }),
    });
    return usage === undefined ? null : { usage };
  }

  /** Closes the provider when this session opened it ({@link AgentStateSession.sqlite}); otherwise does nothing. */
  async close(): Promise<void> {
    if (this.#owned) await this.provider.close();
  }
}

/** The transaction of `args`, its items checked; `ValidationError` before anything is written. */
function checkTransaction(args: SessionHistoryTransactionArgs): { operationId: string; transaction: SessionHistoryTransaction } {
  const { operationId, transaction } = args ?? {};
  if (typeof operationId !== 'string' || operationId.trim() === '') throw new ValidationError('operationId', 'must be a non-empty string');
  if (transaction?.type === 'append_items' && Array.isArray(transaction.items)) {
    return { operationId, transaction: { type: 'append_items', items: checkItems(transaction.items, 'transaction.items') } };
  }
  if (transaction?.type === 'replace_suffix' && Array.isArray(transaction.expectedSuffix) && Array.isArray(transaction.replacement)) {
    const expectedSuffix = checkItems(transaction.expectedSuffix, 'transaction.expectedSuffix');
    return {
      operationId,
      transaction: { type: 'replace_suffix', expectedSuffix, replacement: checkItems(transaction.replacement, 'transaction.replacement') },
    };
  }
  throw new ValidationError('transaction', 'must be an append_items or replace_suffix transaction');
}
