/**
 * The checkpointer: LangGraph's `BaseCheckpointSaver` over agentstate's
 * checkpoint store (docs/contract.md §2, "Checkpoints"). Checkpoints and
 * pending writes are events on the provider's log, so export, import, replay
 * and verify cover them like the rest of the agent's state.
 */
import type { ContextOptions, ContextWindow, CheckpointTuple as StoredTuple, CheckpointWrite, JsonObject, JsonValue, Provider } from '@agentstate/core';
import { LIMITS, ValidationError, writeMemoryInputSchema } from '@agentstate/core';
import type { BaseMessage } from '@langchain/core/messages';
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
import { BaseCheckpointSaver, compareWritesSortKeys, maxChannelVersion, TASKS, WRITES_IDX_MAP, writesSortKey } from '@langchain/langgraph-checkpoint';
import type { MirrorMessagesOptions } from './transcript.js';
import { MESSAGES_CHANNEL, mirrorMessages } from './transcript.js';

/**
 * One serialized value of the saver's serde, `[type, bytes]`, as JSON:
 * the text itself when the serde wrote JSON (readable in agentstate's tools),
 * base64 otherwise. Either way the bytes come back exactly.
 */
export type SerializedValue = { type: string; text: string } | { type: string; base64: string };

/**
 * What LangGraph's JSON serializer writes, instead of throwing, for a value
 * `JSON.stringify` refuses (a BigInt): the value would be lost, and the
 * checkpoint would fail to load.
 */
const GAVE_UP = JSON.stringify('[unable to serialize, circular reference is too complex to analyze]');

/** Where the value of one channel of a checkpoint is kept. */
interface ChannelPlace {
  /** The channel's version in this checkpoint. */
  version: number | string;
  /** The ancestor checkpoint whose stored values hold it, or `null`: this one. */
  at: string | null;
}

/** The JSON the saver stores as a core checkpoint's `checkpoint` value. */
interface StoredCheckpoint {
  /** The layout of this value, for later changes. */
  format: 1;
  /** The checkpoint, holding only the channel values its save changed. */
  checkpoint: SerializedValue;
  metadata: SerializedValue;
  /** Every channel with a value, and where that value is kept. */
  channels: Record<string, ChannelPlace>;
}

/** Stored checkpoints already read during one call, by `[threadId, namespace, checkpointId]` as JSON. */
type ReadCache = Map<string, Promise<StoredCheckpoint | undefined>>;

/** Options of {@link AgentStateSaver}. */
export interface AgentStateSaverOptions {
  /** LangGraph's serializer (default: the `JsonPlusSerializer` of `BaseCheckpointSaver`). */
  serde?: SerializerProtocol;
  /** Closes the provider when the saver is closed (what `openSqliteSaver` sets). */
  ownsProvider?: boolean;
  /**
   * Mirrors each thread's messages channel into a session transcript whose
   * id is the thread id (see `transcript.ts`), so the chat is searchable and
   * shown by the inspector: `true`, or which channel and the scope of the
   * sessions it creates. Default: off.
   */
  mirrorMessages?: boolean | MirrorMessagesOptions;
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
  readonly #mirror: MirrorMessagesOptions | undefined;
  /** Each thread's pending mirror writes, chained: a {@link context} read follows its own write, never half of a put's. */
  readonly #mirroring = new Map<string, Promise<unknown>>();
  #closed = false;

  constructor(provider: Provider, options: AgentStateSaverOptions = {}) {
    super(options.serde);
    this.provider = provider;
    this.#ownsProvider = options.ownsProvider ?? false;
    const mirror = options.mirrorMessages;
    this.#mirror = mirror === true ? {} : mirror || undefined;
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
    const storeFilter = isMetadata(filter) ? (filter as JsonObject) : undefined;
    const local = storeFilter === undefined && entries.length > 0;
    const narrowed = {
      ...(threadId ? { threadId } : {}),
      ...(namespace === undefined ? {} : { namespace }),
      ...(storeFilter && entries.length > 0 ? { metadata: storeFilter } : {}),
    };
    let found: StoredTuple[];
    if (checkpointId && threadId && namespace !== undefined && entries.length === 0) {
      // One id names at most one checkpoint per (thread, namespace).
      const one = await this.provider.checkpoints.get({ threadId, namespace, checkpointId });
      found = one && !(beforeId && checkpointId >= beforeId) ? [one] : [];
    } else {
      const pageLimit = !checkpointId && !local && limit !== undefined && limit <= LIMITS.pageSize ? limit : 0;
      found = await this.provider.checkpoints.list({ ...narrowed, ...(beforeId ? { before: beforeId } : {}), limit: pageLimit });
      if (checkpointId) found = found.filter((t) => t.checkpoint.checkpointId === checkpointId);
    }
    let left = limit ?? Number.POSITIVE_INFINITY;
    const cache: ReadCache = new Map();
    for (const stored of found) {
      if (left <= 0) return;
      const tuple = await this.#toTuple(stored, cache);
      if (local && !entries.every(([key, value]) => (tuple.metadata as Record<string, unknown> | undefined)?.[key] === value)) continue;
      left -= 1;
      yield tuple;
    }
  }

  /**
   * Saves a checkpoint after the one `config` names; returns the config that
   * names the new one. Only the values of the channels in `newVersions` are
   * stored with it; the others are found in the ancestor that stored them at
   * the same version, and a value no ancestor holds is not kept, as
   * LangGraph's Postgres saver does.
   */
  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) throw new ValidationError('configurable.thread_id', 'a checkpointer needs a thread_id in the config to save a checkpoint');
    const namespace = namespaceOf(config) ?? '';
    const parentId = checkpointIdOf(config);
    const { channels, changed } = await this.#placeChannels(threadId, namespace, parentId, checkpoint, newVersions);
    // The fields LangGraph's `copyCheckpoint` keeps, uncopied: they are serialized before this call returns.
    const saved: Checkpoint = {
      v: checkpoint.v,
      id: checkpoint.id,
      ts: checkpoint.ts,
      channel_values: changed,
      channel_versions: checkpoint.channel_versions ?? {},
      versions_seen: checkpoint.versions_seen ?? {},
    };
    const [checkpointValue, metadataValue] = await Promise.all([this.#dump(saved, 'checkpoint'), this.#dump(metadata, 'metadata')]);
    const value: StoredCheckpoint = { format: 1, checkpoint: checkpointValue, metadata: metadataValue, channels };
    await this.provider.checkpoints.put({
      threadId,
      namespace,
      checkpointId: checkpoint.id,
      parentCheckpointId: parentId || null,
      checkpoint: value as unknown as JsonValue,
      metadata: filterableMetadata(metadata),
    });
    const channel = this.#mirror?.channel ?? MESSAGES_CHANNEL;
    // The root graph's messages are the chat; a subgraph's are its own business.
    if (this.#mirror && namespace === '' && Object.hasOwn(newVersions, channel)) {
      const { scope } = this.#mirror;
      await this.#inTurn(threadId, () => mirrorMessages(this.provider, threadId, checkpoint.channel_values[channel], scope));
    }
    return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id } };
  }

  /**
   * The context window (`sessions.context`) of the thread's mirrored session
   * as of `messages`, a node's own messages: the session is first brought up
   * to them, as the put of the checkpoint holding them will, and created in
   * the mirror's scope on the thread's first step. So a node reads its
   * context on any step with LangGraph's default `async` durability, which
   * runs it before the previous step's checkpoint is saved. Needs
   * `mirrorMessages`; a session the app deleted stays a `NotFoundError`.
   */
  async context(config: RunnableConfig, messages: readonly BaseMessage[], options: ContextOptions): Promise<ContextWindow> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) throw new ValidationError('configurable.thread_id', "a thread's context needs its thread_id in the config");
    if (!this.#mirror) throw new ValidationError('mirrorMessages', "a thread's context is its mirrored session: open the saver with mirrorMessages");
    const { scope } = this.#mirror;
    return this.#inTurn(threadId, async () => {
      await mirrorMessages(this.provider, threadId, messages, scope);
      return this.provider.sessions.context(threadId, options);
    });
  }

  /** Saves one task's writes against the checkpoint `config` names. */
  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) throw new ValidationError('configurable.thread_id', 'a checkpointer needs a thread_id in the config to save writes');
    const checkpointId = checkpointIdOf(config);
    if (!checkpointId) throw new ValidationError('configurable.checkpoint_id', 'writes are saved against a checkpoint: give its checkpoint_id');
    // Special channels share one negative idx; as in MemorySaver, the last of a call wins.
    const byIdx = new Map<number, { idx: number; channel: string; value: JsonValue }>();
    const dumped = await Promise.all(writes.map(async ([, value], i) => (await this.#dump(value, `writes.${i}`)) as unknown as JsonValue));
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

  /** Runs `work` after the thread's earlier mirror work, settled or failed. */
  #inTurn<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    const done = (this.#mirroring.get(threadId) ?? Promise.resolve()).then(work, work);
    const settled = done.catch(() => undefined);
    this.#mirroring.set(threadId, settled);
    void settled.then(() => this.#mirroring.get(threadId) === settled && this.#mirroring.delete(threadId));
    return done;
  }

  /** `value` as its serde writes it; a value the serde cannot write (a BigInt for the default one) is a `ValidationError` on `field`. */
  async #dump(value: unknown, field: string): Promise<SerializedValue> {
    let typed: [string, Uint8Array];
    try {
      typed = await this.serde.dumpsTyped(value);
    } catch (error) {
      throw new ValidationError(field, `the saver's serializer cannot write it: ${error instanceof Error ? error.message : String(error)}`);
    }
    const [type, bytes] = typed;
    if (type === 'json') {
      let text: string | undefined;
      try {
        text = utf8.decode(bytes);
      } catch {
        // Not UTF-8 after all: base64 keeps the bytes.
      }
      if (text === GAVE_UP && value !== JSON.parse(GAVE_UP)) {
        throw new ValidationError(field, "the saver's serializer cannot write it as JSON (a BigInt, say): it would store a placeholder instead");
      }
      if (text !== undefined) return { type, text };
    }
    return { type, base64: Buffer.from(bytes).toString('base64') };
  }

  async #load(value: SerializedValue): Promise<unknown> {
    const bytes = 'text' in value ? encoder.encode(value.text) : new Uint8Array(Buffer.from(value.base64, 'base64'));
    return this.serde.loadsTyped(value.type, bytes);
  }

  /** Which channel values `checkpoint` stores itself (`changed`), and where each of its channels is kept. */
  async #placeChannels(threadId: string, namespace: string, parentId: string, checkpoint: Checkpoint, newVersions: ChannelVersions) {
    const channels: Record<string, ChannelPlace> = {};
    const changed: Record<string, unknown> = {};
    let parent: Promise<Record<string, ChannelPlace>> | undefined;
    for (const [channel, value] of Object.entries(checkpoint.channel_values)) {
      const version = checkpoint.channel_versions[channel];
      if (Object.hasOwn(newVersions, channel)) {
        changed[channel] = value;
        if (version !== undefined) channels[channel] = { version, at: null };
        continue;
      }
      parent ??= this.#stored(threadId, namespace, parentId, new Map()).then((stored) => stored?.channels ?? {});
      const there = (await parent)[channel];
      if (version === undefined || there?.version !== version) continue;
      const at = there.at ?? parentId;
      // A checkpoint saved again over itself would point at the value it is replacing: it keeps the value instead.
      if (at === checkpoint.id) {
        changed[channel] = value;
        channels[channel] = { version, at: null };
      } else channels[channel] = { version, at };
    }
    return { channels, changed };
  }

  /** The saver's value of checkpoint `checkpointId` (none for `''`), read once per `cache`. */
  #stored(threadId: string, namespace: string, checkpointId: string, cache: ReadCache): Promise<StoredCheckpoint | undefined> {
    const key = JSON.stringify([threadId, namespace, checkpointId]);
    let found = cache.get(key);
    if (found === undefined) {
      found = checkpointId
        ? this.provider.checkpoints
            .get({ threadId, namespace, checkpointId })
            .then((t) => (t === undefined ? undefined : storedCheckpoint(t.checkpoint.checkpoint, threadId, checkpointId)))
        : Promise.resolve(undefined);
      cache.set(key, found);
    }
    return found;
  }

  /** The checkpoint with the values of its channels kept in ancestors put back. */
  async #withChannels(value: StoredCheckpoint, threadId: string, namespace: string, cache: ReadCache): Promise<Checkpoint> {
    const checkpoint = (await this.#load(value.checkpoint)) as Checkpoint;
    const byAncestor = new Map<string, string[]>();
    for (const [channel, { at }] of Object.entries(value.channels)) if (at !== null) byAncestor.set(at, [...(byAncestor.get(at) ?? []), channel]);
    const values: Record<string, unknown> = {};
    for (const [at, channels] of byAncestor) {
      // Freshly deserialized from the ancestor's stored value, so no two tuples share a value.
      const stored = await this.#stored(threadId, namespace, at, cache);
      const ancestor = stored && ((await this.#load(stored.checkpoint)) as Checkpoint);
      for (const channel of channels) if (ancestor && Object.hasOwn(ancestor.channel_values, channel)) values[channel] = ancestor.channel_values[channel];
    }
    checkpoint.channel_values = { ...values, ...checkpoint.channel_values };
    return checkpoint;
  }

  async #toTuple({ checkpoint: stored, pendingWrites }: StoredTuple, cache: ReadCache = new Map()): Promise<CheckpointTuple> {
    const { threadId, namespace, checkpointId, parentCheckpointId } = stored;
    const value = storedCheckpoint(stored.checkpoint, threadId, checkpointId);
    const writes = [...pendingWrites].sort((a, b) => compareWritesSortKeys(writeKey(a), writeKey(b)));
    const [checkpoint, metadata, loadedWrites] = await Promise.all([
      this.#withChannels(value, threadId, namespace, cache),
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
  if (isPlainObject(value) && value.format === 1 && isSerialized(value.checkpoint) && isSerialized(value.metadata) && isPlainObject(value.channels))
    return value as unknown as StoredCheckpoint;
  throw new ValidationError('checkpoint', `checkpoint ${checkpointId} of thread ${threadId} was not saved by AgentStateSaver`);
}

function isPlainObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isSerialized(value: JsonValue | undefined): boolean {
  return isPlainObject(value) && typeof value.type === 'string' && (typeof value.text === 'string' || typeof value.base64 === 'string');
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
    if (!isMetadata({ [key]: value })) continue;
    const size = JSON.stringify(key).length + JSON.stringify(value).length + 2;
    if (chars + size > LIMITS.metadata) continue;
    chars += size;
    kept[key] = value as JsonValue;
  }
  return kept;
}

/** True for an object the store keeps as `metadata` unchanged: core's own rule, so the saver never guesses it. */
function isMetadata(value: unknown): boolean {
  return value !== undefined && writeMemoryInputSchema.shape.metadata.safeParse(value).success;
}
