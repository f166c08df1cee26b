/**
 * How provider checks are declared and run: each check is data (a name, the capabilities it needs,
 * a body), and runs on fresh storage that is destroyed afterwards, whether the check passed or not.
 */
import type { Embedder, EventSourcedProvider, Log, Provider, ReplayOptions } from '@agentstate/core';
import { replay as coreReplay, ManualClock, ValidationError } from '@agentstate/core';
import fc from 'fast-check';
import type { Capability, ProcessTarget, ProviderFactory, ProviderFactoryOptions, ResolvedCapabilities } from '../factory.js';
import { resolveCapabilities } from '../factory.js';
import { isEventSourced, T0 } from './fixtures.js';

/** What a check body is handed. */
export interface CheckEnv {
  /** The capabilities of the factory under test. */
  readonly caps: ResolvedCapabilities;
  /** Runs per property-based check. */
  readonly propertyRuns: number;
  /** Seed of property-based checks, when fixed. */
  readonly seed: number | undefined;
  /** Fresh, empty storage from the factory; destroyed after the check. */
  open(options?: ProviderFactoryOptions): Promise<Provider>;
  /** Closes `provider` and opens its storage again (capability `durable`). */
  reopen(provider: Provider, options?: ProviderFactoryOptions): Promise<Provider>;
  /** A second provider on the storage of `provider` (capability `sharedStorage`); closed after the check. */
  openShared(provider: Provider, options?: ProviderFactoryOptions): Promise<Provider>;
  /** Makes every COMMIT on the storage of `provider` fail until the returned function is called (capability `commitFault`). */
  failCommits(provider: Provider): Promise<() => Promise<void>>;
  /** How another process opens the storage of `provider` (capability `otherProcess`). */
  processTarget(provider: Provider): Promise<ProcessTarget>;
  /** Destroys a provider from {@link open} before the check ends. */
  release(provider: Provider): Promise<void>;
  /** Skips the rest of the check; only for a missing capability, named in `note`. */
  skip(note: string): never;
  /** `provider` as an event-sourced provider; fails the check when it is not one. */
  eventSourced(provider: Provider): EventSourcedProvider;
  /** Core's `replay`, closed after the check. */
  replay(log: Log, options?: ReplayOptions): Promise<EventSourcedProvider>;
  /** `provider` (one the factory did not make, such as a reference), closed after the check. */
  closes<P extends Provider>(provider: P): P;
  /** Runs `body`, then destroys or closes whatever it opened, pass or fail: one run of a property. */
  scoped<T>(body: () => Promise<T>): Promise<T>;
}

/** One conformance check. */
export interface ProviderCheck {
  /** Starts with its number in docs/conformance.md (`A21`, `B34`) or `X…` for extra checks. */
  name: string;
  /** Capabilities without which the check is skipped. */
  needs?: readonly Capability[];
  run(env: CheckEnv): Promise<void>;
}

/** A check body, with the capabilities it needs beyond those of its table (see {@link needing}). */
export type CheckBody<E, N extends string> = ((env: E) => Promise<void>) & { readonly needs?: readonly N[] };

/**
 * Checks written as a table: each name (its number in docs/conformance.md first) to its body, in
 * the order written, every one needing `needs` (none when empty) and those its body adds.
 */
export function checks<E = CheckEnv, N extends string = Capability>(
  needs: readonly N[],
  table: Readonly<Record<string, CheckBody<E, N>>>,
): { name: string; needs?: readonly N[]; run(env: E): Promise<void> }[] {
  return Object.entries(table).map(([name, run]) => {
    const all = [...new Set([...needs, ...(run.needs ?? [])])];
    return all.length === 0 ? { name, run } : { name, needs: all, run };
  });
}

/** A body that needs `needs` beyond the capabilities of its table. */
export function needing<E = CheckEnv, N extends string = Capability>(needs: readonly N[], run: (env: E) => Promise<void>): CheckBody<E, N> {
  return Object.assign((env: E) => run(env), { needs });
}

/** A check body handed a fresh provider of the factory (and the environment). */
export function fresh(body: (p: Provider, env: CheckEnv) => Promise<void>): (env: CheckEnv) => Promise<void> {
  return async (env) => body(await env.open(), env);
}

/** A check body (needing `eventSourced`) handed a fresh event-sourced provider of the factory (and the environment). */
export function freshLog(body: (p: EventSourcedProvider, env: CheckEnv) => Promise<void>): CheckBody<CheckEnv, Capability> {
  return needing(['eventSourced'], async (env) => body(env.eventSourced(await env.open()), env));
}

/** A check body (needing `injectableClock`) handed a fresh provider on a manual clock at {@link T0} (and the environment). */
export function clocked(body: (p: Provider, clock: ManualClock, env: CheckEnv) => Promise<void>): CheckBody<CheckEnv, Capability> {
  return needing(['injectableClock'], async (env) => {
    const clock = new ManualClock(T0);
    return body(await env.open({ clock }), clock, env);
  });
}

/** A check body (needing `embedder`) handed a fresh provider that embeds with a new `embedder()` (and the environment). */
export function embedding(embedder: () => Embedder, body: (p: Provider, env: CheckEnv) => Promise<void>): CheckBody<CheckEnv, Capability> {
  return needing(['embedder'], async (env) => body(await env.open({ embedder: embedder() }), env));
}

/**
 * Asserts that `body` holds for every value `arbitrary` generates; what a run opens is destroyed
 * after it, pass or fail. Runs and seed default to the suite's, unless `params` (given before the
 * body) say otherwise; runs never exceed the suite's, so a backend that runs fewer runs them everywhere.
 */
export function property<T>(env: CheckEnv, arbitrary: fc.Arbitrary<T>, ...rest: [Body<T>] | [fc.Parameters<[T]>, Body<T>]): Promise<void> {
  const [params, body] = rest.length === 1 ? [{}, rest[0]] : rest;
  return fc.assert(
    fc.asyncProperty(arbitrary, (value) => env.scoped(() => body(value))),
    { seed: env.seed, ...params, numRuns: Math.min(params.numRuns ?? env.propertyRuns, env.propertyRuns) },
  );
}

/** What {@link property} asserts of each value. */
type Body<T> = (value: T) => Promise<void>;

/** Resolves a factory's capabilities, probing one fresh provider only when it must. */
export async function probeCapabilities(factory: ProviderFactory): Promise<ResolvedCapabilities> {
  if (factory.capabilities?.eventSourced !== undefined) return resolveCapabilities(factory, factory.capabilities.eventSourced);
  const provider = await factory.create();
  try {
    return resolveCapabilities(factory, isEventSourced(provider));
  } finally {
    await (factory.destroy ? factory.destroy(provider) : provider.close());
  }
}

/** The per-check environment: tracks every provider it hands out. */
export class Env implements CheckEnv {
  /** Providers from the factory, each standing for its storage. */
  readonly #owned: Provider[] = [];
  /** Providers from core's replay and second providers on shared storage, only to be closed. */
  readonly #borrowed: Provider[] = [];

  constructor(
    private readonly factory: ProviderFactory,
    readonly caps: ResolvedCapabilities,
    readonly propertyRuns: number,
    readonly seed: number | undefined,
    readonly skip: (note: string) => never,
  ) {}

  async open(options?: ProviderFactoryOptions): Promise<Provider> {
    const provider = await this.factory.create(options);
    this.#owned.push(provider);
    return provider;
  }

  async reopen(provider: Provider, options?: ProviderFactoryOptions): Promise<Provider> {
    if (!this.factory.reopen) throw new ValidationError('factory', `${this.factory.name} declares durable but has no reopen()`);
    const i = this.#owned.indexOf(provider);
    if (i < 0) throw new ValidationError('provider', 'reopen() was given a provider this check did not open');
    const reopened = await this.factory.reopen(provider, options);
    this.#owned[i] = reopened;
    return reopened;
  }

  async openShared(provider: Provider, options?: ProviderFactoryOptions): Promise<Provider> {
    if (!this.factory.openShared) throw new ValidationError('factory', `${this.factory.name} declares sharedStorage but has no openShared()`);
    return this.closes(await this.factory.openShared(provider, options));
  }

  failCommits(provider: Provider): Promise<() => Promise<void>> {
    if (!this.factory.failCommits) throw new ValidationError('factory', `${this.factory.name} declares commitFault but has no failCommits()`);
    return this.factory.failCommits(provider);
  }

  processTarget(provider: Provider): Promise<ProcessTarget> {
    if (!this.factory.processTarget) throw new ValidationError('factory', `${this.factory.name} declares otherProcess but has no processTarget()`);
    return this.factory.processTarget(provider);
  }

  async release(provider: Provider): Promise<void> {
    const i = this.#owned.indexOf(provider);
    if (i >= 0) {
      this.#owned.splice(i, 1);
      await this.#destroy(provider);
    }
  }

  eventSourced(provider: Provider): EventSourcedProvider {
    if (!isEventSourced(provider)) {
      throw new ValidationError('factory', `${this.factory.name} is declared event sourced, but its provider lacks log, snapshot() or saveSnapshot()`);
    }
    return provider;
  }

  async replay(log: Log, options?: ReplayOptions): Promise<EventSourcedProvider> {
    return this.closes(await coreReplay(log, options));
  }

  closes<P extends Provider>(provider: P): P {
    this.#borrowed.push(provider);
    return provider;
  }

  async scoped<T>(body: () => Promise<T>): Promise<T> {
    const [owned, borrowed] = [this.#owned.length, this.#borrowed.length];
    try {
      return await body();
    } finally {
      await this.#disposeFrom(owned, borrowed);
    }
  }

  /** Closes and destroys everything, newest first; the first failure is rethrown. */
  dispose(): Promise<void> {
    return this.#disposeFrom(0, 0);
  }

  /** Closes and destroys what was handed out after the first `owned` and `borrowed`, newest first; the first failure is rethrown. */
  async #disposeFrom(owned: number, borrowed: number): Promise<void> {
    let failure: unknown;
    const closeAll = async (list: Provider[], close: (p: Provider) => Promise<void>) => {
      for (const p of list.reverse()) {
        try {
          await close(p);
        } catch (error) {
          failure ??= error;
        }
      }
    };
    await closeAll(this.#borrowed.splice(borrowed), (p) => p.close());
    await closeAll(this.#owned.splice(owned), (p) => this.#destroy(p));
    if (failure !== undefined) throw failure;
  }

  #destroy(provider: Provider): Promise<void> {
    return this.factory.destroy ? this.factory.destroy(provider) : provider.close();
  }
}
