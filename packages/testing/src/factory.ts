/**
 * The factory contracts a backend implements to run the conformance suite, and the capabilities it
 * may declare. A check is skipped only because the factory (or the provider it returns) lacks a
 * capability the check needs, never because of the backend's name.
 */
import type { Clock, Embedder, Entropy, Log, Provider, SnapshotCodec } from '@agentstate/core';

/**
 * Options the suite passes to {@link ProviderFactory.create} and {@link ProviderFactory.reopen}. A
 * factory forwards every option it is given to its provider (unless it declares the matching
 * capability `false`); an absent option means "your default".
 */
export interface ProviderFactoryOptions {
  /** Physical clock for instants, ids and the HLC (capability `injectableClock`). */
  clock?: Clock;
  /** Entropy for ids (capability `deterministic`). */
  entropy?: Entropy;
  /** Instance id written into envelopes (capability `deterministic`). */
  instanceId?: string;
  /** Seals and opens snapshots (capability `snapshotCodec`). */
  snapshotCodec?: SnapshotCodec;
  /** Enables semantic and hybrid recall and search (capability `embedder`). */
  embedder?: Embedder;
  /** Saves a snapshot after each mutation one of whose seqs is a multiple of k (an event-sourced provider's option). */
  snapshotEvery?: number;
}

/** What a backend can do beyond the {@link Provider} contract. Every flag is optional: an absent flag is derived as documented on it. */
export interface ProviderCapabilities {
  /**
   * The provider is an `EventSourcedProvider`: it exposes `log`, `snapshot()` and `saveSnapshot()`.
   * Default: detected on a fresh provider (`'log' in provider`).
   */
  eventSourced?: boolean;
  /** `reopen` closes a provider and opens the same storage again. Default: `reopen` is defined. */
  durable?: boolean;
  /** `openShared` opens a second provider on the same storage while the first stays open, as another process would. Default: `openShared` is defined. */
  sharedStorage?: boolean;
  /** `create({ clock })` and `reopen(p, { clock })` use the given clock. Default: true. */
  injectableClock?: boolean;
  /** `clock`, `entropy` and `instanceId` together make every id, instant and HLC reproducible (docs/contract.md §9). Default: true. */
  deterministic?: boolean;
  /** `create({ snapshotCodec })` seals and opens snapshots with that codec. Default: true when event sourced. */
  snapshotCodec?: boolean;
  /** `create({ embedder })` embeds with that embedder: semantic and hybrid recall and search. Default: true. */
  embedder?: boolean;
  /** `failCommits` makes the storage's COMMIT fail. Default: `failCommits` is defined. */
  commitFault?: boolean;
  /** `processTarget` says how another process opens the same storage. Default: `processTarget` is defined. */
  otherProcess?: boolean;
  /** The provider syncs with others (`replicaId`, `vector`, `changes`, `receive`, docs/contract.md §12). Default: same as `eventSourced`. */
  sync?: boolean;
}

/**
 * How a process other than the test's opens a provider on a storage: it imports `module` (a package
 * name or a `file:` URL of built JavaScript) and calls its export `open` with `args`, which must
 * survive JSON.
 */
export interface ProcessTarget {
  module: string;
  open: string;
  args: unknown[];
}

/** The capabilities of a factory once every default is applied. */
export type ResolvedCapabilities = Required<ProviderCapabilities>;

/** A capability a check may need. */
export type Capability = keyof ProviderCapabilities;

/**
 * How the suite obtains providers. Each check gets fresh, empty storage from {@link create} and
 * gives it back through {@link destroy}.
 *
 * @example
 * ```ts
 * runProviderConformance({
 *   name: 'in-memory',
 *   create: async (options) => createInMemoryProvider(options),
 * });
 * ```
 */
export interface ProviderFactory {
  /** Shown in the suite's title, e.g. `memory` or `sqlite`. */
  name: string;
  /** A fresh, empty provider. Options are honoured when given (see {@link ProviderCapabilities}). */
  create(options?: ProviderFactoryOptions): Promise<Provider>;
  /** Closes `provider` (if still open) and opens the same storage again with `options`. Declaring it gives the capability `durable`. */
  reopen?(provider: Provider, options?: ProviderFactoryOptions): Promise<Provider>;
  /**
   * Opens a second provider on the storage of `provider`, which stays open and in use, as another
   * process would (SQLite and Postgres backends). The suite closes it before destroying the
   * storage. Declaring it gives the capability `sharedStorage`.
   */
  openShared?(provider: Provider, options?: ProviderFactoryOptions): Promise<Provider>;
  /**
   * Makes every COMMIT of a write transaction on the storage of `provider` fail, for real (a
   * deferred constraint the storage checks at COMMIT, say), until the returned function is called.
   * Only for a backend whose writes have a COMMIT that can fail. Declaring it gives the capability
   * `commitFault`.
   */
  failCommits?(provider: Provider): Promise<() => Promise<void>>;
  /**
   * How another process opens the storage of `provider` while it stays open (the writer processes
   * of G9 and V9). Declaring it gives the capability `otherProcess`.
   */
  processTarget?(provider: Provider): Promise<ProcessTarget>;
  /**
   * Closes `provider` (it may already be closed) and removes its storage. Called once per check for
   * the last provider of each storage (after a `reopen`, with the reopened one). Default:
   * `provider.close()`.
   */
  destroy?(provider: Provider): Promise<void>;
  /** Declared capabilities; anything left out is derived. */
  capabilities?: ProviderCapabilities;
}

/** Options the suite passes to {@link LogFactory.create}. */
export interface LogFactoryOptions {
  /** Stamps `time` on events appended without one (capability `injectableClock`). */
  clock?: Clock;
}

/** How the log suite obtains logs: a fresh, empty log per check. */
export interface LogFactory {
  /** Shown in the suite's title. */
  name: string;
  /** A fresh, empty log. */
  create(options?: LogFactoryOptions): Promise<Log>;
  /** Releases the log's storage. Default: nothing. */
  destroy?(log: Log): Promise<void>;
  /** Declared capabilities. */
  capabilities?: {
    /** `create({ clock })` stamps times from that clock. Default: true. */
    injectableClock?: boolean;
  };
}

/** Options of {@link runProviderConformance}. */
export interface ProviderSuiteOptions {
  /** Per-check timeout in milliseconds: a guard against a hang, not a bound on speed. Default: 600 000. */
  timeout?: number;
  /** Runs of each property-based check (fresh storage per run); one that runs fewer by default keeps its count. Default: 20. */
  propertyRuns?: number;
  /** Seed for the property-based checks, to reproduce a failure. Default: random. */
  seed?: number;
  /**
   * Registers only the checks whose name this accepts (e.g. the recall checks, for a second driver
   * of a backend whose full suite runs elsewhere). Default: every check.
   */
  only?: (checkName: string) => boolean;
}

/** Options of {@link runLogConformance}. */
export interface LogSuiteOptions {
  /** Per-check timeout in milliseconds: a guard against a hang, not a bound on speed. Default: 600 000. */
  timeout?: number;
}

/** Applies the documented defaults. `detectedEventSourced` is the result of probing a fresh provider, used only when the factory does not declare it. */
export function resolveCapabilities(factory: ProviderFactory, detectedEventSourced: boolean): ResolvedCapabilities {
  const declared = factory.capabilities ?? {};
  const eventSourced = declared.eventSourced ?? detectedEventSourced;
  return {
    eventSourced,
    durable: declared.durable ?? factory.reopen !== undefined,
    sharedStorage: declared.sharedStorage ?? factory.openShared !== undefined,
    injectableClock: declared.injectableClock ?? true,
    deterministic: declared.deterministic ?? true,
    snapshotCodec: declared.snapshotCodec ?? eventSourced,
    embedder: declared.embedder ?? true,
    commitFault: declared.commitFault ?? factory.failCommits !== undefined,
    otherProcess: declared.otherProcess ?? factory.processTarget !== undefined,
    sync: declared.sync ?? eventSourced,
  };
}

/** A check's default timeout: a guard against a hang, never a bound on speed (a loaded machine may take minutes for a property check). */
export const DEFAULT_CHECK_TIMEOUT = 600_000;
