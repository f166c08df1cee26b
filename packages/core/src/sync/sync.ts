/** `sync(a, b)`: two stores exchange what each lacks, batch by batch (docs/contract.md §12). */
import { setImmediate } from 'node:timers/promises';
import { SyncConflictError, ValidationError } from '../errors.js';
import type { PolicyMerge, RetentionStore } from '../provider/retention.js';
import type { EventSourcedProvider } from '../provider/types.js';
import type { Scope } from '../records/records.js';
import type { PolicyChange } from '../records/retention.js';
import type { ScopeInput } from '../records/scope.js';
import { syncScope } from './scope.js';
import { canonicalJson } from '../log/json.js';
import type { Vector } from '../log/log.js';
import { mergeVectors } from '../log/vector.js';
import { seedInto } from './seed.js';
import { EventTypes } from '../log/events.js';
import type { SyncEvent, SyncPlace } from './wire.js';

/**
 * A store that syncs: what {@link sync} calls. With its `replicaId`, an interrupted sync resumes after its own events
 * received. With `start`, the first calls a sync makes of the store it pulls from come as one ({@link startSync}):
 * one request over HTTP instead of three.
 */
export type SyncPeer = Pick<EventSourcedProvider, 'vector' | 'changes' | 'receive'> &
  Partial<Pick<EventSourcedProvider, 'replicaId'>> & {
    readonly retention: Pick<RetentionStore, 'merge'>;
    start?(request: SyncStart): Promise<SyncStarted>;
  };

/** What a sync asks first of the store it pulls from: see {@link startSync}. */
export interface SyncStart {
  /** What the caller holds: the first batch is the events the store holds that it lacks. */
  vector: Vector;
  /** The most events of the first batch. */
  limit: number;
  /** The subtree of the sync (absent: the whole store). */
  scope?: Scope;
  /** The caller's retention policy changes (a whole-store sync only), merged into the store's first. */
  changes?: readonly PolicyChange[];
  /** The caller's replica id, when it has one: the store refuses a caller that is itself (see {@link startSync}). */
  replicaId?: string;
}

/** The answer to a {@link SyncStart}. */
export interface SyncStarted {
  /** The store's vector of the scope, read before the batch. */
  vector: Vector;
  /** The store's replica id, when it has one. */
  replicaId?: string;
  /** The first batch of what the caller lacks, in the store's order. */
  events: SyncEvent[];
  /** The merge of the caller's policy changes, when it sent some. */
  retention?: PolicyMerge;
}

/**
 * What a sync asks first of `peer`, as separate calls: its id, then the merge of the caller's policy changes, then
 * its vector, then the first batch the caller lacks, read after the vector, so it holds every event of the vector
 * the caller lacks (the sync's word once a batch is shorter than asked for). A sync server answers `/sync/start`
 * with it. A caller of the peer's own replica id (the same store, or a byte copy of it) is a `SyncConflictError`
 * (`copy`) before anything is written: two copies that both wrote hold different events under the same places,
 * which no sync can tell apart (docs/contract.md §12, "Replicas").
 */
export async function startSync(peer: SyncPeer, { vector: lacking, limit, scope, changes, replicaId: caller }: SyncStart): Promise<SyncStarted> {
  const replicaId = await peer.replicaId?.();
  if (caller !== undefined && caller === replicaId)
    throw new SyncConflictError(
      'copy',
      replicaId,
      0,
      `both sides are replica ${replicaId}: the same store, or a byte copy of it, which syncs with nothing it holds (to make a new replica, sync into a new store); nothing was received`,
    );
  const retention = changes === undefined ? undefined : await peer.retention.merge(changes);
  const scoped = scope === undefined ? {} : { scope };
  const vector = await peer.vector(scoped);
  const events = await peer.changes(lacking, { ...scoped, limit });
  return { vector, events, ...(replicaId === undefined ? {} : { replicaId }), ...(retention === undefined ? {} : { retention }) };
}

/** How far a sync has come: events received by each side so far, and batches. */
export interface SyncSummary {
  /** Events `a` received from `b`: `state` events and retention policy changes. */
  toA: number;
  /** Events `b` received from `a`: `state` events and retention policy changes. */
  toB: number;
  /**
   * Of the `state` events received either way, those written apart from versions their receiver held, and so
   * folded by a merge rule (docs/contract.md §12, "Merge"): each version that lost is marked `conflict` in `history`.
   */
  merged: number;
  /** Batches of `state` events received, each one transaction. */
  batches: number;
}

/** Options of {@link sync}. */
export interface SyncOptions {
  /** Only the events lying in this namespace subtree travel, both ways. Default: the whole store. */
  scope?: ScopeInput;
  /** Events per batch (one transaction each). Default: 1,000 for the first batch, then as many as make about 4 MiB of JSON (at most 10,000). */
  batchSize?: number;
  /** Told the summary so far after each batch. */
  onProgress?: (progress: SyncSummary) => void;
  /** Stops the sync before its next batch, with the signal's reason; the batches received stay. */
  signal?: AbortSignal;
}

/** The default number of events of a first batch. */
export const SYNC_BATCH = 1_000;

/** The JSON a batch after the first aims at when the caller names no size. */
const BATCH_BYTES = 4 * 1024 * 1024;
/** The most events such a batch holds, however small they are. */
const BATCH_MAX = 10_000;

/**
 * The events of a batch of about {@link BATCH_BYTES} of JSON, judged by up to 64 events spread over `batch`: each
 * transaction of a receive writes the pages its rows touch, and the fewer the transactions, the fewer times the
 * same pages are written (a first sync of 20,000 events wrote 88 MB of WAL in batches of 1,000, 40 MB in 5,000).
 */
function sizedBatch(batch: readonly SyncEvent[]): number {
  const step = Math.ceil(batch.length / 64);
  let bytes = 0;
  let sampled = 0;
  for (let i = 0; i < batch.length; i += step) {
    bytes += JSON.stringify(batch[i]).length;
    sampled += 1;
  }
  return Math.max(1, Math.min(BATCH_MAX, Math.floor((BATCH_BYTES * sampled) / bytes)));
}

/**
 * Exchanges the retention policy changes (a whole-store sync only), then pulls into `a` what `b`
 * holds and `a` lacks, then pushes into `b` what `a` holds and `b` lacks, each batch one
 * transaction: an interrupted sync resumes where it stopped, and a finished one run again sends
 * nothing and writes nothing (the stale marks `b` wrote of its own while receiving come back to `a`
 * with it). With `scope`, only the events lying in that subtree travel.
 */
export async function sync(a: SyncPeer, b: SyncPeer, options: SyncOptions = {}): Promise<SyncSummary> {
  let batchSize = options.batchSize ?? SYNC_BATCH;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new ValidationError('batchSize', 'must be a positive integer');
  const scoped = options.scope === undefined ? {} : { scope: syncScope(options.scope) };
  const summary: SyncSummary = { toA: 0, toB: 0, merged: 0, batches: 0 };
  options.signal?.throwIfAborted();
  // Policies are few, and merge as a last-writer-wins map: exchanged whole, with the start. A removal names no
  // scope, so, like checkpoints, policies travel only when the whole store does.
  const whole = scoped.scope === undefined || scoped.scope.length === 0;
  const [policies, heldByA, idA] = await Promise.all([whole ? a.retention.merge([]) : undefined, a.vector(scoped), a.replicaId?.()]);
  // Into a store that holds nothing, all of the other at once where their backends allow and no batch size was asked
  // for (§12, "A first sync into an empty store"): `b`'s into `a` before the start, `a`'s into `b` after it.
  const seeds = whole && options.batchSize === undefined;
  const seed = async (into: SyncPeer, from: SyncPeer, held: Vector, side: 'toA' | 'toB'): Promise<Vector> => {
    // Told as it goes, as after each batch: a large file takes seconds.
    const onProgress = (taken: number) => options.onProgress?.({ ...summary, [side]: summary[side] + taken });
    const seeded = seeds && Object.values(held).every((seq) => seq === 0) ? await seedInto(into, from, onProgress) : undefined;
    if (seeded === undefined) return held;
    summary[side] += seeded.received;
    summary.batches += 1;
    options.onProgress?.({ ...summary });
    return into.vector(scoped);
  };
  const atA = await seed(a, b, heldByA, 'toA');
  // One call to `b` before the batches (one request over HTTP): its policies, its vector and id, the first batch.
  const request: SyncStart = {
    ...scoped,
    vector: atA,
    limit: batchSize,
    ...(policies ? { changes: policies.changes } : {}),
    ...(idA === undefined ? {} : { replicaId: idA }),
  };
  const started = await (b.start ? b.start(request) : startSync(b, request));
  if (policies !== undefined && started.retention !== undefined) {
    summary.toB += started.retention.received;
    // `b` holding just what `a` sent, `a` has nothing to take back.
    if (canonicalJson(started.retention.changes) !== canonicalJson(policies.changes))
      summary.toA += (await a.retention.merge(started.retention.changes)).received;
  }
  // What each holds for sure, read once: a direction sends what its receiver lacks of it, and once every event it
  // lacks is in, the receiver holds the sender's too, and its own: so the second direction's word is both vectors'.
  const { replicaId: idB } = started;
  const atB = await seed(b, a, started.vector, 'toB');
  const both = mergeVectors(atA, atB);
  // The first batch into `a` came with the start.
  let first: Promise<SyncEvent[]> | undefined = Promise.resolve(started.events);
  const direction = async (from: SyncPeer, to: SyncPeer, side: 'toA' | 'toB', lacking: Vector, covered: Vector, sender: string | undefined) => {
    let after: SyncPlace | undefined;
    // Whether the last batch carried `covered`.
    let done = false;
    // The sender's own events come in their order: once one is in, so is every one before it.
    let own: Vector = {};
    // Where each origin's events of the next batch start: after what the receiver held, then after the last sent.
    const sent: Record<string, number> = { ...lacking };
    // Whether it sent a purge or a compaction, after which a receive may write a stale mark of its own (§12).
    let marking = false;
    let next = first ?? from.changes(lacking, { ...scoped, limit: batchSize });
    first = undefined;
    for (;;) {
      options.signal?.throwIfAborted();
      const batch = await next;
      const last = batch.at(-1);
      // Nothing new, or the sender answering the same page again: this direction is done.
      if (last === undefined || (last.origin === after?.origin && last.originSeq === after.originSeq)) break;
      const starts = Object.fromEntries(batch.map(({ origin }) => [origin, sent[origin] ?? 0]));
      for (const event of batch) {
        if (event.origin === sender) own = { [sender]: event.originSeq };
        sent[event.origin] = event.originSeq;
        marking ||= event.type === EventTypes.RecordsPurged || event.type === EventTypes.SessionCompacted;
      }
      // Fewer than asked for: the sender had nothing more, and asking again would cost two more calls.
      const final = batch.length < batchSize;
      after = { origin: last.origin, originSeq: last.originSeq };
      if (!final) {
        if (options.batchSize === undefined) batchSize = sizedBatch(batch);
        // Asked for while the receiver takes this batch: a sender over HTTP or another process, or a receiver
        // waiting on its database, works meanwhile. Awaited (and any failure thrown) after the receive only.
        next = from.changes(lacking, { ...scoped, limit: batchSize, after });
        next.catch(() => undefined);
      }
      // The last batch carries the sync's word itself: one receive fewer.
      const { received, merged } = await to.receive(batch, { ...scoped, covered: final ? covered : own, from: starts });
      summary[side] += received;
      summary.merged += merged;
      summary.batches += 1;
      options.onProgress?.({ ...summary });
      if (final) {
        done = true;
        break;
      }
      // The event loop takes a turn between batches: between two files, whose drivers answer at once, a sync would
      // otherwise hold it from start to end, and the process would serve no signal, timer or request till then.
      await setImmediate();
    }
    // Only after a batch: a sync that sent nothing leaves both stores as they were.
    if (after !== undefined && !done) await to.receive([], { ...scoped, covered });
    return marking;
  };
  await direction(b, a, 'toA', atA, atB, idB);
  // A receive of a purge or a compaction may write a stale mark of its own (§12): one `b` wrote comes back.
  if ((await direction(a, b, 'toB', atB, both, idA)) && idB !== undefined) {
    const now = await b.vector(scoped);
    if ((now[idB] ?? 0) > (atB[idB] ?? 0)) await direction(b, a, 'toA', both, now, idB);
  }
  return summary;
}
