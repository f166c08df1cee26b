/**
 * A first sync into an empty store (docs/contract.md §12, "A first sync into an empty store"): where
 * its backend can, the store takes every `state` event of the store it pulls from in one transaction,
 * each checked as a receive checks it, with the tables that store's fold made, instead of folding
 * them again batch by batch.
 */
import { CorruptionError } from '../errors.js';
import { META_KEYS } from '../log/append.js';
import { decodeStateEvent } from '../log/decode.js';
import { STATE_STREAM } from '../log/events.js';
import type { AppendInput, Log, LogEvent, Vector } from '../log/log.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import type { Engine } from '../provider/engine.js';
import type { HybridLogicalClock } from '../time/hlc.js';
import type { StateBackend } from '../write/backend.js';
import type { ReceiveResult } from './receive.js';
import { ownEventsError, syncLog } from './receive.js';
import { partialNote, scopedNote, SyncEventTypes } from './scope.js';
import type { SyncPeer } from './sync.js';

/**
 * `event`, a `state` event the store `sender` holds, as a receive of it from `sender` appends it: at its
 * place at its origin. Its payload is decoded (a `CorruptionError` naming the event there where it must not
 * be received) unless `validated`: the sender decoded it as a current event when it stored it, and its fold
 * trusts that mark as much.
 */
export function receivedFrom(event: LogEvent, sender: string, validated: boolean, upcasters: UpcasterRegistry | undefined): AppendInput {
  const input: AppendInput = {
    stream: STATE_STREAM,
    type: event.type,
    schemaVersion: event.schemaVersion,
    payload: event.payload,
    origin: event.origin ?? sender,
    originSeq: event.originSeq ?? event.seq,
    originTime: event.originTime ?? event.time,
  };
  for (const key of META_KEYS) if (event[key] !== undefined) input[key] = event[key];
  if (validated) return input;
  try {
    decodeStateEvent(event, upcasters ? { upcasters } : {});
  } catch (error) {
    if (!(error instanceof CorruptionError)) throw error;
    throw new CorruptionError(STATE_STREAM, event.seq, `${error.message.replace(/^corrupt \S+: /, '')}, in the store synced from; nothing was received`);
  }
  return input;
}

/** A seeding store: the seed it runs (absent where its backend or options allow none), and its backend, for a store seeded from it. */
interface Seeding {
  backend: StateBackend;
  seed?: (source: StateBackend, covered: Vector, onProgress?: (taken: number) => void) => Promise<ReceiveResult | undefined>;
}

/**
 * What a seed from or into each provider made by `createStateProvider` needs, kept out of the provider's API: keyed
 * by the provider's `receive`, which a backend's provider spread into an object of its own keeps.
 */
const SEEDING = new WeakMap<object, Seeding>();

/** Registers the provider whose `receive` is `receive` for {@link seedInto}. */
export function registerSeeding(receive: object, seeding: Seeding): void {
  SEEDING.set(receive, seeding);
}

/**
 * Seeds `into`, which holds no `state` event, from `from` where both are providers made here whose
 * backends seed one from the other; undefined where not, and nothing was written: the sync then goes
 * batch by batch. `from`'s vector, read first, is the seed's word of what `into` then holds; `onProgress` is told
 * the events taken so far as the seed goes.
 */
export async function seedInto(
  into: Pick<SyncPeer, 'receive'>,
  from: Pick<SyncPeer, 'receive' | 'vector'>,
  onProgress?: (taken: number) => void,
): Promise<ReceiveResult | undefined> {
  const seeding = SEEDING.get(into.receive);
  const source = SEEDING.get(from.receive)?.backend;
  if (seeding?.seed === undefined || source === undefined || seeding.backend.seedsFrom?.(source) !== true) return undefined;
  return seeding.seed(source, await from.vector(), onProgress);
}

/**
 * The seed of the store of `engine` over `log` from `source`, in one transaction of the engine's queue:
 * nothing, and undefined, unless its backend's transaction seeds (the store holds no `state` event, and
 * the backend seeds from `source`);
 * else every event checked (`receivedFrom`) and appended, the tables copied, and the sync's notes
 * written as a receive of the whole would write them, with `covered` as its word; `onProgress` told the events
 * taken so far as it goes. The clock `hlc` then observes the highest HLC taken.
 */
export function seedEvents(
  engine: Engine,
  log: Log,
  hlc: HybridLogicalClock,
  source: StateBackend,
  covered: Vector,
  upcasters: UpcasterRegistry | undefined,
  onProgress?: (taken: number) => void,
): Promise<ReceiveResult | undefined> {
  const sync = syncLog(log);
  return engine.transact(async (tx) => {
    const none = { result: undefined, changes: [], seqs: [] };
    if (tx.seed === undefined || tx.append === undefined) return none;
    const seeded = await tx.seed(source, (event, sender, validated) => receivedFrom(event, sender, validated, upcasters), onProgress);
    if (seeded === undefined) return none;
    const replicaId = await sync.identity();
    if (Object.hasOwn(seeded.vector, replicaId)) throw ownEventsError(replicaId, seeded.vector[replicaId]!);
    hlc.observe(seeded.maxHlc);
    // The notes a receive of the whole in one batch writes: each origin held whole from nothing, to the sender's word.
    const whole = Object.fromEntries(Object.keys(seeded.vector).map((origin) => [origin, 0]));
    const raised = Object.fromEntries(Object.entries(covered).filter(([, seq]) => seq > 0));
    await tx.append([
      partialNote(whole),
      ...(Object.keys(raised).length > 0 ? [scopedNote(SyncEventTypes.Covered, [], raised)] : []),
      scopedNote(SyncEventTypes.Reached, [], seeded.vector),
    ]);
    return { result: { received: seeded.received, skipped: 0, merged: 0 }, changes: [], seqs: [] };
  });
}
