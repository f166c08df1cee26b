/**
 * The checkpointer: LangGraph's `BaseCheckpointSaver` over agentstate's
 * checkpoint store (docs/contract.md §2, "Checkpoints"). Checkpoints and
 * pending writes are events on the provider's log, so export, import, replay
 * and verify cover them like the rest of the agent's state.
 */
import type { CheckpointTuple as StoredTuple, CheckpointWrite, JsonObject, JsonValue, Provider } from '@agentstate/core';
import { LIMITS, ValidationError } from '@agentstate/core';
import type { RunnableConfig } from '@langchain/core/runnables';
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointPendingWrite,
  CheckpointTuple,
  PendingWrite,
  SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import {
  BaseCheckpointSaver,
  compareWritesSortKeys,
  copyCheckpoint,
  maxChannelVersion,
  TASKS,
  WRITES_IDX_MAP,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';

/**
 * One serialized value of the saver's serde, `[type, bytes]`, as JSON:
 * the text itself when the serde wrote JSON (readable in agentstate's tools),
 * base64 otherwise. Either way the bytes come back exactly.
 */
export type SerializedValue = { type: string; text: string } | { type: string; base64: string };

/** The JSON the saver stores as a core checkpoint's `checkpoint` value. */
interface StoredCheckpoint {
  /** The layout of this value, for later changes. */
  format: 1;
  checkpoint: SerializedValue;
  metadata: SerializedValue;
}

/** Options of {@link AgentStateSaver}. */
export interface AgentStateSaverOptions {
  /** LangGraph's serializer (default: the `JsonPlusSerializer` of `BaseCheckpointSaver`). */
  serde?: SerializerProtocol;
  /** Closes the provider when the saver is closed (what `openSqliteSaver` sets). */
  ownsProvider?: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/**
 * A LangGraph checkpointer whose checkpoints and pending writes live on an
 * agentstate provider (any backend). Channel versions are integers, as in
 * LangGraph's `MemorySaver` and `SqliteSaver`.
 */
export class AgentStateSaver extends BaseCheckpointSaver {
  /** The provider the checkpoints are kept in. */
  readonly provider: Provider;
  readonly #ownsProvider: boolean;
  #closed = false;

  constructor(provider: Provider, options: AgentStateSaverOptions = {}) {
    super(options.serde);
    this.provider = provider;
    this.#ownsProvider = options.ownsProvider ?? false;
  }

  /** The checkpoint of `config` (its `checkpoint_id`, else the thread's newest in `checkpoint_ns`) with its pending writes. */
  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const checkpointId = checkpointIdOf(config);
    const found = await this.provider.checkpoints.get({ threadId, namespace: namespaceOf(config) ?? '', ...(checkpointId ? { checkpointId } : {}) });
    return found === undefined ? undefined : this.#toTuple(found);
  }

  /**
   * Checkpoints newest first: of one thread (or all), one namespace (or all),
   * older than `before`, whose metadata holds every `filter` entry.
   */
  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { limit, before, filter } = options;
    if (limit !== undefined && limit <= 0) return;
    const threadId = threadIdOf(config);
    const namespace = namespaceOf(config);
    const checkpointId = checkpointIdOf(config);
    const beforeId = before ? checkpointIdOf(before) : undefined;
    const entries = Object.entries(filter ?? {});
    // The store compares JSON values; a filter it cannot hold (an `undefined`, a `Date`) is applied here instead.
    const storeFilter = entries.every(([, value]) => isPlainJson(value, 0)) ? (filter as JsonObject | undefined) : undefined;
    const local = storeFilter === undefined && entries.length > 0;
    let found: StoredTuple[];
    if (checkpointId) {
      // One id names at most one checkpoint per (thread, namespace).
      found = (await this.provider.checkpoints.list({ ...(threadId ? { threadId } : {}), ...(namespace === undefined ? {} : { namespace }) })).filter(
        (t) => t.checkpoint.checkpointId === checkpointId,
      );
      found = found.filter((t) => (beforeId ? t.checkpoint.checkpointId < beforeId : true));
    } else {
      const pageLimit = !local && limit !== undefined && limit <= LIMITS.pageSize ? limit : 0;
      found = await this.provider.checkpoints.list({
        ...(threadId ? { threadId } : {}),
        ...(namespace === undefined ? {} : { namespace }),
        ...(beforeId ? { before: beforeId } : {}),
        ...(storeFilter && entries.length > 0 ? { metadata: storeFilter } : {}),
        limit: pageLimit,
      });
    }
    let left = limit ?? Number.POSITIVE_INFINITY;
    for (const stored of found) {
      if (left <= 0) return;
      const tuple = await this.#toTuple(stored);
      if (local && !entries.every(([key, value]) => (tuple.metadata as Record<string, unknown> | undefined)?.[key] === value)) continue;
      left -= 1;
      yield tuple;
    }
  }

  /** Saves a checkpoint after the one `config` names; returns the config that names the new one. */
  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, _newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) throw new ValidationError('configurable.thread_id', 'a checkpointer needs a thread_id in the config to save a checkpoint');
    const namespace = namespaceOf(config) ?? '';
    const [checkpointValue, metadataValue] = await Promise.all([this.#dump(copyCheckpoint(checkpoint)), this.#dump(metadata)]);
    const value: StoredCheckpoint = { format: 1, checkpoint: checkpointValue, metadata: metadataValue };
    await this.provider.checkpoints.put({
      threadId,
      namespace,
      checkpointId: checkpoint.id,
      parentCheckpointId: checkpointIdOf(config) || null,
      checkpoint: value as unknown as JsonValue,
      metadata: filterableMetadata(metadata),
    });
    return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id } };
  }

  /** Saves one task's writes against the checkpoint `config` names. */
  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) throw new ValidationError('configurable.thread_id', 'a checkpointer needs a thread_id in the config to save writes');
    const checkpointId = checkpointIdOf(config);
    if (!checkpointId) throw new ValidationError('configurable.checkpoint_id', 'writes are saved against a checkpoint: give its checkpoint_id');
    // Special channels share one negative idx; as in MemorySaver, the last of a call wins.
    const byIdx = new Map<number, { idx: number; channel: string; value: JsonValue }>();
    const dumped = await Promise.all(writes.map(async ([, value]) => (await this.#dump(value)) as unknown as JsonValue));
    writes.forEach(([channel], i) => {
      const idx = WRITES_IDX_MAP[channel] ?? i;
      byIdx.set(idx, { idx, channel, value: dumped[i]! });
    });
    await this.provider.checkpoints.putWrites({
      threadId,
      namespace: namespaceOf(config) ?? '',
      checkpointId,
      taskId,
      taskPath: taskPath ?? '',
      writes: [...byIdx.values()],
    });
  }

  /** Removes every checkpoint and write of the thread. */
  async deleteThread(threadId: string): Promise<void> {
    await this.provider.checkpoints.deleteThread(String(threadId));
  }

  /** Closes the provider if the saver opened it (`openSqliteSaver`); otherwise the caller closes it. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsProvider) await this.provider.close();
  }

  async #dump(value: unknown): Promise<SerializedValue> {
    const [type, bytes] = await this.serde.dumpsTyped(value);
    if (type === 'json') {
      try {
        return { type, text: utf8.decode(bytes) };
      } catch {
        // Not UTF-8 after all: base64 keeps the bytes.
      }
    }
    return { type, base64: Buffer.from(bytes).toString('base64') };
  }

  async #load(value: SerializedValue): Promise<unknown> {
    const bytes = 'text' in value ? encoder.encode(value.text) : new Uint8Array(Buffer.from(value.base64, 'base64'));
    return this.serde.loadsTyped(value.type, bytes);
  }

  async #toTuple({ checkpoint: stored, pendingWrites }: StoredTuple): Promise<CheckpointTuple> {
    const { threadId, namespace, checkpointId, parentCheckpointId } = stored;
    const value = storedCheckpoint(stored.checkpoint, threadId, checkpointId);
    const writes = [...pendingWrites].sort((a, b) => compareWritesSortKeys(writeKey(a), writeKey(b)));
    const [checkpoint, metadata, loadedWrites] = await Promise.all([
      this.#load(value.checkpoint) as Promise<Checkpoint>,
      this.#load(value.metadata) as Promise<CheckpointMetadata>,
      Promise.all(writes.map(async (w): Promise<CheckpointPendingWrite> => [w.taskId, w.channel, await this.#load(w.value as unknown as SerializedValue)])),
    ]);
    const tuple: CheckpointTuple = {
      config: { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpointId } },
      checkpoint,
      metadata,
      pendingWrites: loadedWrites,
    };
    if (parentCheckpointId !== null) {
      tuple.parentConfig = { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: parentCheckpointId } };
      if (checkpoint.v < 4) await this.#migratePendingSends(checkpoint, threadId, namespace, parentCheckpointId);
    }
    return tuple;
  }

  /**
   * Checkpoints before format 4 kept the sends of a step as the parent's
   * writes to the tasks channel; LangGraph reads them from the checkpoint's
   * channel values, as `MemorySaver` moves them.
   */
  async #migratePendingSends(checkpoint: Checkpoint, threadId: string, namespace: string, parentCheckpointId: string): Promise<void> {
    const parent = await this.provider.checkpoints.get({ threadId, namespace, checkpointId: parentCheckpointId });
    const sends = (parent?.pendingWrites ?? []).filter((w) => w.channel === TASKS).sort((a, b) => compareWritesSortKeys(writeKey(a), writeKey(b)));
    checkpoint.channel_values ??= {};
    checkpoint.channel_values[TASKS] = await Promise.all(sends.map((w) => this.#load(w.value as unknown as SerializedValue)));
    checkpoint.channel_versions ??= {};
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }
}

function writeKey(write: CheckpointWrite) {
  return writesSortKey(write.taskPath, write.taskId, write.idx);
}

/** The saver's value of a stored checkpoint; one another program stored in its own shape is refused, not misread. */
function storedCheckpoint(value: JsonValue, threadId: string, checkpointId: string): StoredCheckpoint {
  if (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    value.format === 1 &&
    isSerialized(value.checkpoint) &&
    isSerialized(value.metadata)
  )
    return value as unknown as StoredCheckpoint;
  throw new ValidationError('checkpoint', `checkpoint ${checkpointId} of thread ${threadId} was not saved by AgentStateSaver`);
}

function isSerialized(value: JsonValue | undefined): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    typeof value.type === 'string' &&
    (typeof value.text === 'string' || typeof value.base64 === 'string')
  );
}

function threadIdOf(config: RunnableConfig): string | undefined {
  const id = config.configurable?.thread_id;
  return id === undefined || id === null || id === '' ? undefined : String(id);
}

function namespaceOf(config: RunnableConfig): string | undefined {
  const ns = config.configurable?.checkpoint_ns;
  return ns === undefined || ns === null ? undefined : String(ns);
}

/** The `checkpoint_id` of a config (or its older name `thread_ts`), `''` when none. */
function checkpointIdOf(config: RunnableConfig): string {
  const id = config.configurable?.checkpoint_id ?? config.configurable?.thread_ts;
  return id === undefined || id === null ? '' : String(id);
}

/**
 * The metadata entries the store can filter on: those that are plain JSON,
 * in order, while they fit the store's metadata limit. The full metadata is
 * kept serialized beside the checkpoint.
 */
function filterableMetadata(metadata: CheckpointMetadata): JsonObject {
  const kept: JsonObject = {};
  let chars = 2;
  for (const [key, value] of Object.entries(metadata ?? {})) {
    if (PROTOTYPE_KEYS.has(key) || !isCleanText(key) || !isPlainJson(value, 1)) continue;
    const size = JSON.stringify(key).length + JSON.stringify(value).length + 2;
    if (chars + size > LIMITS.metadata) continue;
    chars += size;
    kept[key] = value as JsonValue;
  }
  return kept;
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters the store refuses.
const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isCleanText(text: string): boolean {
  return !UNSTORABLE_TEXT.test(text);
}

/** True for a value the store keeps as JSON unchanged (as its metadata rules say). */
function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string') return isCleanText(value);
  if (typeof value !== 'object' || depth >= LIMITS.jsonDepth) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) if (!(i in value) || !isPlainJson(value[i], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.entries(value).every(([key, item]) => !PROTOTYPE_KEYS.has(key) && isCleanText(key) && isPlainJson(item, depth + 1));
}
