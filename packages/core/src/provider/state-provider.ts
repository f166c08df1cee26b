/**
 * Builds an {@link EventSourcedProvider} on any {@link StateBackend}: the
 * stores, the stamper, the clock, automatic snapshots and embeddings. Every
 * backend gets the same validation and rules by construction.
 */
import type { Embedder } from '../embedding/embedder.js';
import { UuidV7Generator } from '../ids/uuidv7.js';
import { systemEntropy } from '../ids/entropy.js';
import { EventTypes, STATE_STREAM, type StateChange } from '../log/events.js';
import type { MemoryItem, Scope, Turn } from '../records/records.js';
import { compareScopes, scopeKey, toScope } from '../records/scope.js';
import { type Page, openPager, TEXT_ASC } from '../paging/cursor.js';
import { plainCodec } from '../snapshot/codecs.js';
import { SNAPSHOT_PARTS, type SnapshotPart } from '../snapshot/parts.js';
import { bindSnapshotChunks } from '../snapshot/chunks.js';
import { ConflictError } from '../errors.js';
import { receiveEvents, syncLog } from '../sync/receive.js';
import { registerSeeding, seedEvents } from '../sync/seed.js';
import type { Vector } from '../log/log.js';
import { SyncCoverage, syncScope } from '../sync/scope.js';
import { type SendContext, sendChanges } from '../sync/send.js';
import { systemClock } from '../time/clock.js';
import { HybridLogicalClock } from '../time/hlc.js';
import type { Embeddable, StateBackend, StateQueries, VectorStore } from '../write/backend.js';
import { Stamper } from '../write/stamper.js';
import { Engine } from './engine.js';
import { createCheckpointStore } from './checkpoint-store.js';
import { createMemoryStore } from './memory-store.js';
import { type StateProviderOptions, checkProviderOptions, DEFAULT_FUSION_WEIGHTS } from './options.js';
import { createSessionStore } from './session-store.js';
import { assembleContext, type ContextOptions } from './context.js';
import { createSkillStore } from './skill-store.js';
import { createWorkingMemoryStore } from './working-memory.js';
import type { EventSourcedProvider } from './types.js';
import { embedCommitted } from './vectors.js';
import { InMemoryBackend } from '../in-memory/backend.js';
import { cutLog, readOnlyView, resolvePoint, stoppedClock } from './time-travel.js';
import { ViewFold } from '../fold/view-fold.js';
import type { InMemoryState } from '../fold/state.js';
import { diffPoints } from './diff.js';
import { RetentionJudge, RetentionPolicies } from './retention-policies.js';
import { withRetention } from './retention-filter.js';
import { createRetentionStore } from './retention.js';
import { recordHistory } from './history.js';
import { purgeRecords } from './purge.js';
import { type NamespacesOptions, namespacesOptionsSchema, parseInput } from '../records/inputs.js';
import { idField } from '../records/fields.js';

/**
 * Captures a snapshot save tries before it gives up: each one a purge appended after its capture made
 * the backend refuse (docs/contract.md §8). Purges are rare; one in each of several windows is a storm.
 */
const SNAPSHOT_ATTEMPTS = 5;

/** Builds a provider over `backend`. The backend is closed with the provider. */
export function createStateProvider(backend: StateBackend, options: StateProviderOptions = {}): EventSourcedProvider {
  checkProviderOptions(options);
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? new UuidV7Generator(clock, options.entropy ?? systemEntropy);
  const instanceId = options.instanceId ?? ids.next();
  const hlc = new HybridLogicalClock(clock);
  const coverage = new SyncCoverage(backend.log);
  const sendContext: SendContext = {
    sessionScope: async (id) => (await backend.queries.session(id))?.scope,
    ...(options.upcasters ? { upcasters: options.upcasters } : {}),
  };
  const stamper = new Stamper({ instanceId, clock, hlc, ids });
  const reportError = options.onBackgroundError ?? (() => undefined);
  const engine = new Engine(backend, stamper, hlc, { ...options.eventMeta }, reportError, options.upcasters);
  const codec = options.snapshotCodec ?? plainCodec;
  const embedder = options.embedder;
  const receiveContext = { ...sendContext, coverage, embedsMemory: embedder !== undefined && backend.vectors !== undefined };
  let closed = false;

  const saveSnapshot = async () => {
    for (let attempt = 1; ; attempt += 1) {
      const snapshot = await backend.capture();
      // Only a purge rewrites events: binding to the event at the captured seq after the capture is sound
      // unless one comes between, and then the store below refuses these rows.
      const { head, chunks } = await bindSnapshotChunks(backend.log, snapshot);
      const stored = { stream: STATE_STREAM, seq: snapshot.seq, data: codec.seal(head) };
      if (await backend.storeSnapshot([...chunks, stored], snapshot.seq)) return stored;
      if (attempt === SNAPSHOT_ATTEMPTS)
        throw new ConflictError(`purges were appended during each of ${SNAPSHOT_ATTEMPTS} snapshot saves in a row: nothing was stored, try again`);
    }
  };

  const every = options.snapshotEvery ?? 0;
  if (every > 0) {
    // One snapshot when a mutation's events reach a multiple of k, however many they are.
    engine.afterCommit(async (_changes, seqs) => {
      if (seqs.some((seq) => seq % every === 0)) await saveSnapshot();
    });
  }
  /** Embeds, after each commit, the records `pick` takes from its changes into `store`. */
  const embedAfterCommit = <R extends Embeddable, Q>(store: VectorStore<R, Q> | undefined, pick: (change: StateChange) => R[]) => {
    if (embedder && store) engine.afterCommit((changes) => embedCommitted(embedder, store, changes.flatMap(pick)));
  };
  const { vectors, turnVectors } = backend;
  embedAfterCommit(vectors, (c) => (c.type === EventTypes.MemoryWritten || c.type === EventTypes.MemoryUpdated ? [c.payload.item as MemoryItem] : []));
  embedAfterCommit(turnVectors, (c) =>
    c.type === EventTypes.TurnAppended ? [c.payload.turn as Turn] : c.type === EventTypes.SuffixReplaced ? (c.payload.added as Turn[]) : [],
  );
  const foldOptions = { snapshotCodec: codec, ...(options.upcasters ? { upcasters: options.upcasters } : {}) };
  // The fallback embedder is loaded once, on first use, and shared.
  const loadEmbedder = options.defaultEmbedder;
  let loaded: Promise<Embedder> | undefined;
  const recallContext = {
    queries: backend.queries,
    embedder,
    defaultEmbedder: loadEmbedder && (() => (loaded ??= Promise.resolve().then(loadEmbedder))),
    fusionWeights: options.fusionWeights ?? DEFAULT_FUSION_WEIGHTS,
    now: () => stamper.now(),
  };

  const policies = new RetentionPolicies(backend.log, hlc);
  const judge = async () => new RetentionJudge(await policies.current(), stamper.now());
  const filtered = withRetention(
    {
      sessions: createSessionStore(engine, { ...recallContext, vectors: turnVectors }),
      skills: createSkillStore(engine),
      memory: createMemoryStore(engine, { ...recallContext, vectors }),
    },
    judge,
  );
  const workingMemory = createWorkingMemoryStore(engine, filtered.memory, judge);
  // The context reads through the filtered stores, so retention hides from it what it hides from every read.
  const reads = { ...filtered, workingMemory };
  const stores = { ...filtered, workingMemory, sessions: { ...filtered.sessions, context: (id: string, o: ContextOptions) => assembleContext(reads, id, o) } };

  const provider: EventSourcedProvider = {
    name: backend.name,
    instanceId,
    log: backend.log,
    ...stores,
    retention: createRetentionStore(engine, policies, judge, hlc),
    checkpoints: createCheckpointStore(engine),
    namespaces: (namespaceOptions) => listNamespaces(backend.queries, namespaceOptions),
    snapshot: () => backend.capture(),
    saveSnapshot,
    async at(point) {
      const resolved = await resolvePoint(backend.log, point);
      const fold = await ViewFold.open(backend.log, resolved.seq, foldOptions);
      const { embedder: e, defaultEmbedder, fusionWeights, upcasters, snapshotCodec } = options;
      // One provider per state the fold holds (a new one only when a damaged part makes it fold from an older snapshot).
      let current: { state: InMemoryState; view: EventSourcedProvider } | undefined;
      const provider = async (parts: readonly SnapshotPart[]) => {
        const state = await fold.state(parts);
        if (current?.state !== state) {
          // The view reads at its point's instant, so expiry is judged as it was then.
          const view = createStateProvider(new InMemoryBackend(cutLog(backend.log, resolved), state), {
            ...{ embedder: e, defaultEmbedder, fusionWeights, upcasters, snapshotCodec },
            instanceId,
            clock: stoppedClock(resolved.time),
          });
          current = { state, view };
        }
        return current.view;
      };
      return readOnlyView(backend.name, provider, resolved, async () => (await fold.state(SNAPSHOT_PARTS)).capture());
    },
    diff: (input) => diffPoints(backend.log, input, foldOptions),
    history: async (id) => recordHistory(backend.queries, backend.log, parseInput(idField, id), options.upcasters),
    purge: (input) => purgeRecords(engine, input),
    replicaId: () => backend.log.identity(),
    async vector(vectorOptions = {}) {
      const [held] = await Promise.all([syncLog(backend.log).vector(), coverage.partial()]);
      return coverage.vector(held, syncScope(vectorOptions.scope));
    },
    changes: (vector, changeOptions = {}) => sendChanges(backend.log, sendContext, vector, changeOptions),
    receive: (events, receiveOptions = {}) => receiveEvents(engine, backend.log, hlc, events, { ...receiveOptions, ...receiveContext }),
    async close() {
      if (closed) return;
      closed = true;
      await backend.close();
    },
  };
  // A seed folds nothing, so it embeds nothing: a store with an embedder takes what it lacks batch by batch.
  const seed =
    embedder === undefined
      ? (source: StateBackend, covered: Vector, onProgress?: (taken: number) => void) =>
          seedEvents(engine, backend.log, hlc, source, covered, options.upcasters, onProgress)
      : undefined;
  registerSeeding(provider.receive, { backend, ...(seed ? { seed } : {}) });
  return provider;
}

/**
 * A scope's sort key: its labels joined by NUL, which no label holds and
 * which sorts below every other character, so text order on the key is
 * exactly label-by-label order with a prefix first (`compareScopes`).
 */
const labelsKey = (scope: Scope): string => scope.join('\u0000');

/**
 * `provider.namespaces` over any backend, one page at a time: the backend names the distinct live
 * scopes under a prefix; truncation, deduplication, order and paging are decided here, once.
 */
async function listNamespaces(queries: StateQueries, options: NamespacesOptions = {}): Promise<Page<Scope>> {
  const o = parseInput(namespacesOptionsSchema, options);
  const prefix = toScope(o.prefix);
  const pager = openPager<Scope>(
    { method: 'provider.namespaces', query: { prefix, maxDepth: o.maxDepth }, order: [TEXT_ASC], key: (scope) => [labelsKey(scope)] },
    o.cursor,
  );
  const distinct = new Map<string, Scope>();
  for (const scope of await queries.liveScopes(prefix)) {
    const cut = o.maxDepth === undefined ? scope : scope.slice(0, o.maxDepth);
    distinct.set(scopeKey(cut), cut);
  }
  const limit = o.limit ?? 0;
  const after = [...distinct.values()].filter((scope) => pager.isAfter(scope)).sort(compareScopes);
  return pager.page(
    (limit > 0 ? after.slice(0, limit + 1) : after).map((scope) => [...scope]),
    limit,
  );
}
