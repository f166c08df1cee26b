/**
 * Sync limited to a namespace subtree (docs/contract.md §12, "Scoped sync"): which events lie in a
 * subtree, and the `sync` stream, where a store keeps what it holds of each origin beyond its log's
 * vector once it holds only part of an origin's events.
 */
import { z } from 'zod';
import { CorruptionError, ValidationError } from '../errors.js';
import { changeRecords } from '../log/changes.js';
import type { StateChange } from '../log/events.js';
import type { AppendInput, Log, Vector } from '../log/log.js';
import { StreamFollower } from '../log/stream-follower.js';
import { parseInput } from '../records/inputs.js';
import { type Scope, scopeSchema } from '../records/records.js';
import { scopeChain, scopeKey, scopeStartsWith } from '../records/scope.js';

/** The log stream of a store's sync bookkeeping: it never travels, and exports leave it out. */
export const SYNC_STREAM = 'sync';

/** The bookkeeping events of the {@link SYNC_STREAM}. */
export const SyncEventTypes = {
  /** `{ scope, vector }`: the store holds every event lying in `scope` up to each origin seq of `vector`. */
  Covered: 'sync.covered',
  /** `{ vector }`: from now on the store may hold only part of each origin named; it held all of it up to the seq given. */
  Partial: 'sync.partial',
  /** `{ scope, vector }`: a batch of a sync of `scope` that passed the order check brought each origin named up to the seq given. */
  Reached: 'sync.reached',
} as const;

/** The notes of the {@link SYNC_STREAM} that name a scope. */
type ScopedNote = typeof SyncEventTypes.Covered | typeof SyncEventTypes.Reached;

const vectorSchema = z.record(z.string().min(1), z.int().nonnegative());
const payloadSchemas = {
  [SyncEventTypes.Covered]: z.strictObject({ scope: scopeSchema, vector: vectorSchema }),
  [SyncEventTypes.Partial]: z.strictObject({ vector: vectorSchema }),
  [SyncEventTypes.Reached]: z.strictObject({ scope: scopeSchema, vector: vectorSchema }),
} as const;

/** Made once: zod compiles a schema on its first parse, which costs far more than a parse (about 1 ms, several per sync over HTTP). */
const scopeInput = z.strictObject({ scope: scopeSchema });

/** A sync's scope as a caller gives it (absent: the whole store), checked: a `ValidationError` naming `scope`. */
export function syncScope(scope: unknown): Scope {
  return scope === undefined ? [] : parseInput(scopeInput, { scope }).scope;
}

/**
 * True when `change` lies in the subtree at `scope`: it carries a record of a scope and every record
 * it carries lies in the subtree (a turn in its session's scope, looked up with `sessionScope` unless
 * the change carries the session). A checkpoint's event carries none, so it lies in no subtree but
 * the whole store's; a purge naming records of two tenants lies in the subtree holding both.
 */
export async function inSubtree(change: StateChange, scope: Scope, sessionScope: (id: string) => Promise<Scope | undefined>): Promise<boolean> {
  const sessions = new Map<string, Scope>();
  const scopes: Array<Scope | string> = [];
  for (const entry of changeRecords(change)) {
    if (entry.kind === 'session') sessions.set(entry.record.id, entry.record.scope);
    if (entry.kind === 'session' || entry.kind === 'skill' || entry.kind === 'memory') scopes.push(entry.record.scope);
    else if (entry.kind === 'turn') scopes.push(entry.record.sessionId);
    else if (entry.kind === 'sessionAfterTurn') scopes.push(entry.turn.sessionId);
    else return false;
  }
  if (scopes.length === 0) return false;
  for (const item of scopes) {
    const of = typeof item === 'string' ? (sessions.get(item) ?? (await sessionScope(item))) : item;
    if (of === undefined || !scopeStartsWith(of, scope)) return false;
  }
  return true;
}

/**
 * The {@link SYNC_STREAM} of a log, folded incrementally: a read costs one `head` when nothing changed.
 * A store that holds every event of an origin up to its highest (a prefix, as a store that only ever
 * synced whole stores does) needs none of it; a scoped receive, or one from a store holding part of an
 * origin, leaves gaps, and then what it holds is what this stream says.
 */
export class SyncCoverage {
  readonly #follower: StreamFollower;
  readonly #partial = new Map<string, number>();
  /** Per note type and scope (`<type> <scope key>`), per origin: the highest seq noted. */
  readonly #scoped = new Map<string, Map<string, number>>();

  constructor(log: Log) {
    this.#follower = new StreamFollower(log, SYNC_STREAM, (event) => this.#apply(event.type, event.payload, event.seq));
  }

  /** Catches up with the stream: the origins held in part, each with the seq up to which all of it is held. */
  async partial(): Promise<ReadonlyMap<string, number>> {
    await this.#follower.catchUp();
    return this.#partial;
  }

  /**
   * What the store holds of the subtree at `scope`, for each origin: the highest origin seq up to which it holds
   * every event lying there, from the stream as the last {@link partial} read it (no `head` read of its own).
   * `held` is the log's vector: right for an origin held whole.
   */
  vector(held: Vector, scope: Scope): Vector {
    const out: Record<string, number> = { ...held };
    // An origin pinned before anything of it was held stays unnamed until a sync's word covers it.
    for (const [origin, seq] of this.#partial) if (seq > 0 || origin in out) out[origin] = seq;
    return this.#highest(SyncEventTypes.Covered, scope, out);
  }

  /** For each origin, the highest seq a batch of a sync of `scope` or a wider one reached, as the last {@link partial} read left the stream. */
  reached(scope: Scope): Vector {
    return this.#highest(SyncEventTypes.Reached, scope, {});
  }

  /** `out` raised to the seqs noted as `type` for `scope` and every wider scope. */
  #highest(type: ScopedNote, scope: Scope, out: Record<string, number>): Vector {
    for (const at of scopeChain(scope))
      for (const [origin, seq] of this.#scoped.get(`${type} ${scopeKey(at)}`) ?? []) out[origin] = Math.max(out[origin] ?? 0, seq);
    return out;
  }

  #apply(type: string, payload: unknown, seq: number): void {
    const parsed = Object.hasOwn(payloadSchemas, type) ? payloadSchemas[type as keyof typeof payloadSchemas].safeParse(payload) : undefined;
    if (parsed === undefined || !parsed.success) throw new CorruptionError(SYNC_STREAM, seq, `not a ${SYNC_STREAM} event: ${JSON.stringify(type)}`);
    const { vector, scope } = parsed.data as { vector: Vector; scope?: Scope };
    if (scope === undefined) {
      for (const [origin, n] of Object.entries(vector)) if (!this.#partial.has(origin)) this.#partial.set(origin, n);
      return;
    }
    const key = `${type} ${scopeKey(scope)}`;
    const noted = this.#scoped.get(key) ?? new Map<string, number>();
    for (const [origin, n] of Object.entries(vector)) noted.set(origin, Math.max(noted.get(origin) ?? 0, n));
    this.#scoped.set(key, noted);
  }
}

/** The note that the origins of `vector` are held in part from now on, each held whole up to its seq. */
export function partialNote(vector: Vector): AppendInput {
  return { stream: SYNC_STREAM, type: SyncEventTypes.Partial, payload: { vector } };
}

/** A note of `type` naming `scope`: that the store holds every event lying there up to `vector` (`sync.covered`), or what a batch brought (`sync.reached`). */
export function scopedNote(type: ScopedNote, scope: Scope, vector: Vector): AppendInput {
  return { stream: SYNC_STREAM, type, payload: { scope, vector } };
}

/** Refuses a batch event outside `scope`: a `ValidationError` naming it. */
export function outsideScope(index: number, scope: Scope): ValidationError {
  return new ValidationError(
    `${index}`,
    `lies outside the sync's scope ${JSON.stringify(scope)}: a scoped sync sends only events whose records all lie in its subtree`,
  );
}
