/**
 * A LangGraph `BaseStore` over any agentstate provider. A namespace is a
 * scope, a key is a memory item's key (its slot in the scope), a value is the
 * item's metadata, and the item's content is the text of the value's indexed
 * fields, so `search` answers a `query` with the provider's recall and a
 * `filter` with its metadata filters. `batch` keeps LangGraph's reference
 * semantics: every read sees the state before the batch's writes, and the
 * last write to a key wins.
 */
import { randomUUID } from 'node:crypto';
import type { MemoryItem, Provider, RecallHit, RecallOptions } from '@agentstate/core';
import { ConflictError, isAgentStateError, LIMITS, NotFoundError, ValidationError, writeMemoryInputSchema, parseInput } from '@agentstate/core';
import type {
  GetOperation,
  Item,
  ListNamespacesOperation,
  Operation,
  OperationResults,
  PutOperation,
  SearchItem,
  SearchOperation,
} from '@langchain/langgraph-checkpoint';
import { BaseStore, validateNamespace } from '@langchain/langgraph-checkpoint';
import { MATCHES_NOTHING, toWhere } from './filter.js';
import { listStoreNamespaces } from './namespaces.js';
import { indexText } from './text.js';

/** The memory kind of a store item whose value is indexed for `query`. */
export const STORE_KIND = 'langgraph.item';
/** The memory kind of a store item put with `index: false`, or whose indexed fields hold no text. */
export const UNINDEXED_KIND = 'langgraph.item.unindexed';
/** Both kinds: what store reads look at, so store items never mix with other memory. */
export const STORE_KINDS: readonly string[] = Object.freeze([STORE_KIND, UNINDEXED_KIND]);
/** The `source` of every item the store writes. */
export const STORE_SOURCE = 'langgraph';

/** How many times a write that failed with a retryable error (a busy SQLite file) is tried in all. */
const WRITE_ATTEMPTS = 3;

/** Options of an {@link AgentStateStore}. */
export interface AgentStateStoreOptions {
  /**
   * Which fields of a value are indexed for `query` (LangGraph's
   * `index.fields`: JSON paths with `$`, `a.b`, `[*]`, `[0]`, `*`, `{a,b}`).
   * Default `['$']`: the whole value. A `put` may override it per item.
   * Vectors come from the provider's embedder.
   */
  index?: { fields?: string[] };
  /** Makes the id shared by the idempotent writes of one batch; default `randomUUID`. */
  batchId?: () => string;
  /** Closes the provider when the store is closed (what `openSqliteStore` sets). */
  ownsProvider?: boolean;
}

const isPut = (op: Operation): op is PutOperation => 'value' in op && 'namespace' in op;
const isGet = (op: Operation): op is GetOperation => 'namespace' in op && 'key' in op && !('value' in op);
const isSearch = (op: Operation): op is SearchOperation => 'namespacePrefix' in op;
const isList = (op: Operation): op is ListNamespacesOperation => 'matchConditions' in op || 'maxDepth' in op || 'limit' in op;

/** The LangGraph item of a stored memory item. */
function toItem(item: MemoryItem): Item {
  return {
    namespace: [...item.scope],
    key: item.key ?? '',
    value: item.metadata,
    createdAt: new Date(item.createdAt),
    updatedAt: new Date(item.updatedAt),
  };
}

/** Newest write first, as the database-backed LangGraph stores list; ties by the newer item. */
const newestUpdatedFirst = (a: MemoryItem, b: MemoryItem): number =>
  a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.updatedAt < b.updatedAt ? 1 : -1;

/**
 * LangGraph's `BaseStore` on an agentstate {@link Provider}: durable,
 * concurrent-safe and searchable wherever the provider keeps its state.
 */
export class AgentStateStore extends BaseStore {
  /** The provider the store reads and writes. */
  readonly provider: Provider;
  readonly #fields: readonly string[];
  readonly #batchId: () => string;
  readonly #ownsProvider: boolean;

  constructor(provider: Provider, options: AgentStateStoreOptions = {}) {
    super();
    this.provider = provider;
    this.#fields = [...(options.index?.fields ?? ['$'])];
    this.#batchId = options.batchId ?? randomUUID;
    this.#ownsProvider = options.ownsProvider ?? false;
  }

  /**
   * Runs the operations as LangGraph's `InMemoryStore` does: reads (get,
   * search, listNamespaces) see the state before the batch, then the puts
   * and deletes apply, one per key, the last one given winning. Every
   * operation is checked before anything is written. Each write is
   * idempotent under an operation id of this batch, so the bounded retry of
   * a retryable failure never applies a write twice.
   */
  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    for (const [i, op] of operations.entries()) this.#check(op, i);
    const last = new Map<string, PutOperation>();
    for (const op of operations) if (isPut(op)) last.set(JSON.stringify([op.namespace, op.key]), op);
    const batchId = this.#batchId();
    // Every write's input is checked (value, key, namespace limits) before anything is read or written.
    const writes = [...last.values()].map((op, n) => this.#plan(op, `langgraph.${batchId}.${n}`));
    const results = await Promise.all(
      operations.map((op) => {
        if (isPut(op)) return undefined;
        if (isGet(op)) return this.#get(op);
        if (isSearch(op)) return this.#search(op);
        return this.#listNamespaces(op as ListNamespacesOperation);
      }),
    );
    for (const write of writes) await this.#retrying(write);
    return results as OperationResults<Op>;
  }

  /** Closes the provider if the store opened it (`openSqliteStore`); otherwise the caller closes it. Idempotent. */
  async close(): Promise<void> {
    if (this.#ownsProvider) await this.provider.close();
  }

  #check(op: Operation, i: number): void {
    const at = `operations.${i}`;
    if (op === null || typeof op !== 'object') throw new ValidationError(at, 'must be a store operation');
    const labels = (namespace: string[], allowEmpty = true) => validateNamespace(namespace, { allowEmpty, allowReservedRoot: true });
    if (isPut(op) || isGet(op)) {
      // A put needs a namespace to live in; reading or deleting under none simply finds nothing.
      labels(op.namespace, !isPut(op) || op.value === null);
      if (typeof op.key !== 'string') throw new ValidationError(`${at}.key`, 'must be a string');
    }
    if (isPut(op)) {
      if (op.value !== null && (typeof op.value !== 'object' || Array.isArray(op.value)))
        throw new ValidationError(`${at}.value`, 'must be a JSON object or null');
      if (op.index !== undefined && op.index !== false && !(Array.isArray(op.index) && op.index.every((f) => typeof f === 'string'))) {
        throw new ValidationError(`${at}.index`, 'must be false or a list of field paths');
      }
    } else if (isSearch(op)) labels(op.namespacePrefix);
    else if (isList(op)) {
      for (const condition of op.matchConditions ?? []) {
        if (condition.matchType !== 'prefix' && condition.matchType !== 'suffix') {
          throw new ValidationError(`${at}.matchConditions`, `unknown match type ${JSON.stringify(condition.matchType)}`);
        }
        labels(condition.path);
      }
    } else if (!isGet(op)) throw new ValidationError(at, 'must be a get, search, put or listNamespaces operation');
    if (!isSearch(op) && !isList(op)) return;
    for (const field of ['maxDepth', 'limit', 'offset'] as const) {
      const n = (op as Partial<Record<typeof field, unknown>>)[field];
      if (n !== undefined && (!Number.isSafeInteger(n) || (n as number) < 0)) throw new ValidationError(`${at}.${field}`, 'must be a non-negative integer');
    }
  }

  /** The live item of exactly this namespace holding `key`, store item or not. */
  async #holder(namespace: string[], key: string): Promise<MemoryItem | undefined> {
    // An empty key can hold nothing: agentstate keys are non-empty.
    if (key === '') return undefined;
    try {
      return await this.provider.memory.getByKey(key, { scope: namespace });
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  async #get(op: GetOperation): Promise<Item | null> {
    const found = await this.#holder(op.namespace, op.key);
    return found && STORE_KINDS.includes(found.kind) ? toItem(found) : null;
  }

  /** The write of one put or delete, its input already checked. */
  #plan(op: PutOperation, operationId: string): () => Promise<void> {
    if (op.value === null) return () => this.#delete(op, operationId);
    const text = op.index === false ? '' : indexText(op.value, op.index ?? this.#fields);
    const input = parseInput(writeMemoryInputSchema, {
      operationId,
      scope: op.namespace,
      key: op.key,
      kind: text === '' ? UNINDEXED_KIND : STORE_KIND,
      // Content must not be empty; an unindexed item is never searched by text, so its key stands in.
      content: text === '' ? op.key : text,
      source: STORE_SOURCE,
      metadata: op.value,
    });
    return async () => {
      const holder = await this.#holder(op.namespace, op.key);
      if (holder && !STORE_KINDS.includes(holder.kind)) {
        throw new ConflictError(
          `key ${JSON.stringify(op.key)} of namespace ${JSON.stringify(op.namespace)} is held by a ${holder.kind} memory item, not a store item`,
        );
      }
      await this.provider.memory.write(input);
    };
  }

  async #delete(op: PutOperation, operationId: string): Promise<void> {
    const holder = await this.#holder(op.namespace, op.key);
    if (!holder || !STORE_KINDS.includes(holder.kind)) return;
    try {
      await this.provider.memory.delete(holder.id, { operationId });
    } catch (error) {
      // Someone else deleted it between the look-up and the write: the key is gone either way.
      if (!(error instanceof NotFoundError)) throw error;
    }
  }

  async #search(op: SearchOperation): Promise<SearchItem[]> {
    const limit = op.limit ?? 10;
    const offset = op.offset ?? 0;
    const where = toWhere(op.filter);
    if (where === MATCHES_NOTHING || limit === 0) return [];
    const base: RecallOptions = {
      ...(op.namespacePrefix.length > 0 ? { scope: op.namespacePrefix, includeDescendants: true } : {}),
      ...(where === undefined ? {} : { where }),
    };
    if (op.query) {
      const hits = await this.#recall({ ...base, kinds: [STORE_KIND], query: op.query, order: 'relevance', match: 'any' }, offset + limit);
      return hits.slice(offset, offset + limit).map((hit) => ({ ...toItem(hit), score: hit.score }));
    }
    const all = await this.#recall({ ...base, kinds: [...STORE_KINDS] }, Number.POSITIVE_INFINITY);
    return all
      .sort(newestUpdatedFirst)
      .slice(offset, offset + limit)
      .map((item) => toItem(item));
  }

  /** Up to `wanted` recall hits, following pages beyond the largest page size. */
  async #recall(options: RecallOptions, wanted: number): Promise<RecallHit[]> {
    const hits: RecallHit[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.provider.memory.recall({
        ...options,
        limit: Math.min(LIMITS.pageSize, wanted - hits.length),
        ...(cursor === undefined ? {} : { cursor }),
      });
      hits.push(...page);
      cursor = page.nextCursor;
    } while (cursor !== undefined && hits.length < wanted);
    return hits;
  }

  #listNamespaces(op: ListNamespacesOperation): Promise<string[][]> {
    return listStoreNamespaces(
      this.provider,
      op,
      async (scope) => (await this.provider.memory.recall({ scope, kinds: [...STORE_KINDS], limit: 1 })).length > 0,
    );
  }

  /** Runs a write, again on a retryable failure: safe, as a write under the same operation id applies once. */
  async #retrying(write: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await write();
      } catch (error) {
        if (attempt >= WRITE_ATTEMPTS || !isAgentStateError(error) || !error.retryable) throw error;
      }
    }
  }
}
