/**
 * Receiving a batch of another store's events (docs/contract.md §12): checked whole before
 * anything is written, then appended and folded in one transaction of the engine's queue.
 */
import { CorruptionError, SyncConflictError, UnavailableError, ValidationError } from '../errors.js';
import { META_KEYS, payloadJson } from '../log/append.js';
import { changeHlc, changeRecordIds, changeRecords } from '../log/changes.js';
import { decodeStateEvent } from '../log/decode.js';
import { canonicalJson } from '../log/json.js';
import { redactChange } from '../log/redact.js';
import { EventTypes, STATE_STREAM, type StateChange } from '../log/events.js';
import { storedPayload } from '../log/compact.js';
import { purgedHere } from '../fold/merge-purge.js';
import type { AppendInput, Log, LogEvent, Vector } from '../log/log.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import { lacks } from '../log/vector.js';
import type { Engine } from '../provider/engine.js';
import { recordEvents } from '../provider/history.js';
import type { HybridLogicalClock } from '../time/hlc.js';
import type { ReceivedEvent, StateLookups } from '../write/backend.js';
import { isGlobalScope } from '../records/scope.js';
import { inSubtree, outsideScope, partialNote, scopedNote, type SyncCoverage, SyncEventTypes, syncScope } from './scope.js';
import { summariesBeforePurges, summariesToMark } from './stale-summaries.js';
import type { SendContext } from './send.js';
import { checkSyncEvent, type SyncEvent, toSyncEvent } from './wire.js';

/** What a receive did. */
export interface ReceiveResult {
  /** Events appended. */
  received: number;
  /** Events already held, with the same digest: left as they are. */
  skipped: number;
  /**
   * Of the events appended, those written apart from versions this store held (concurrently), and so
   * folded by a merge rule (docs/contract.md §12, "Merge"): a version that lost is marked `conflict` in `history`.
   */
  merged: number;
}

/** What a receive needs besides the batch: its options, and the store's scopes and bookkeeping. */
export interface ReceiveContext extends SendContext {
  coverage: SyncCoverage;
  /** The subtree every event must lie in (absent: the whole store). */
  scope?: unknown;
  /** A finished sync's word: the store now holds every event lying in `scope` up to this vector. */
  covered?: unknown;
  /** The sender's word: each origin's events in the batch start after this origin seq (unnamed: where the store stands). */
  from?: unknown;
  /** Whether a follow-up embeds the memory items received, which then reads them as the fold left them. */
  embedsMemory?: boolean;
}

/** A log's sync reads, or `UnavailableError` for a log that does not sync yet. */
export function syncLog(log: Log): Required<Pick<Log, 'vector' | 'changes' | 'atOrigin'>> & Log {
  if (log.vector === undefined || log.changes === undefined || log.atOrigin === undefined)
    throw new UnavailableError('this store does not sync: its log answers no vector, changes or atOrigin');
  return log as Required<Pick<Log, 'vector' | 'changes' | 'atOrigin'>> & Log;
}

/** Checks a vector given by a caller (as `field`): replica ids to non-negative seqs. */
export function checkVector(vector: unknown, field = 'vector'): Vector {
  if (typeof vector !== 'object' || vector === null || Array.isArray(vector)) throw new ValidationError(field, 'must be an object of replica ids to seqs');
  for (const [origin, seq] of Object.entries(vector))
    if (!Number.isSafeInteger(seq) || (seq as number) < 0) throw new ValidationError(`${field}.${origin}`, 'must be a non-negative safe integer');
  return vector as Vector;
}

/** A checked sync event with the append that stores it and its decoded change. */
function prepare(value: unknown, index: number, upcasters: UpcasterRegistry | undefined): { event: SyncEvent } & ReceivedEvent {
  const event = checkSyncEvent(value, index);
  const { origin, originSeq, time, type, schemaVersion } = event;
  // A copy, and its text for the log: later changes to the caller's objects never reach the log.
  const text = payloadJson(event.payload);
  const input: AppendInput = { stream: STATE_STREAM, type, schemaVersion, payload: JSON.parse(text), origin, originSeq, originTime: time };
  for (const key of META_KEYS) if (event[key] !== undefined) input[key] = event[key];
  try {
    const change = decodeStateEvent(
      { stream: STATE_STREAM, seq: 0, type, time, schemaVersion, payload: input.payload, origin },
      upcasters ? { upcasters } : {},
    );
    return { event, input, change, text };
  } catch (error) {
    if (!(error instanceof CorruptionError)) throw error;
    throw new ValidationError(`${index}.payload`, error.message.replace(/^corrupt \S+: /, `not a valid ${STATE_STREAM} event: `));
  }
}

/**
 * Receives `batch` into the store of `engine` over `log`: each event checked (form, digest,
 * payload, places increasing per origin), those held with the same digest skipped, the rest
 * appended and folded in order in one transaction, or nothing. The clock `hlc` then observes
 * every HLC received.
 */
export async function receiveEvents(
  engine: Engine,
  log: Log,
  hlc: HybridLogicalClock,
  batch: readonly unknown[],
  context: ReceiveContext,
): Promise<ReceiveResult> {
  const { upcasters, coverage } = context;
  const sync = syncLog(log);
  if (!Array.isArray(batch)) throw new ValidationError('', 'receive takes an array of sync events');
  const scope = syncScope(context.scope);
  const covered = context.covered === undefined ? undefined : checkVector(context.covered, 'covered');
  const from = checkVector(context.from ?? {}, 'from');
  const prepared = batch.map((value, i) => prepare(value, i, upcasters));
  const places = new Set<string>();
  prepared.forEach(({ event }, i) => {
    // The seq first: it holds no space, so no two places give one key.
    const place = `${event.originSeq} ${event.origin}`;
    if (places.has(place)) throw new ValidationError(`${i}.originSeq`, `event ${event.originSeq} of origin ${event.origin} comes twice in the batch`);
    places.add(place);
  });
  // Thrown after the order check: a batch that came ahead of an earlier one of its origin may hold a turn whose session is in that one.
  let outside: ValidationError | undefined;
  if (!isGlobalScope(scope)) {
    // A turn's session may come earlier in the batch: its scope is known before the store holds it.
    const sessions = new Map(
      prepared.flatMap(({ change }) =>
        changeRecords(change).flatMap((entry) => (entry.kind === 'session' ? [[entry.record.id, entry.record.scope] as const] : [])),
      ),
    );
    const sessionScope = async (id: string) => sessions.get(id) ?? (await context.sessionScope(id));
    for (const [i, { change }] of prepared.entries())
      if (!(await inSubtree(change, scope, sessionScope))) {
        outside = outsideScope(i, scope);
        break;
      }
  }
  const noting = covered !== undefined && Object.keys(covered).length > 0;
  if (prepared.length === 0 && !noting) return { received: 0, skipped: 0, merged: 0 };
  // One transaction of the engine's queue: the checks, the batch and the sync's notes, read once and written together.
  return engine.transact(async (tx) => {
    if (tx.receive === undefined || tx.append === undefined) throw new UnavailableError('this store does not sync yet: its backend cannot receive events');
    // Read once, in the queue: no other receive of this store moves them before this one commits.
    const [held, replicaId, partial] = await Promise.all([sync.vector(), sync.identity(), coverage.partial()]);
    const known = coverage.vector(held, scope);
    const reached = await checkOrder(sync, { known, reached: coverage.reached(scope), held }, from, prepared, replicaId);
    if (outside !== undefined) throw outside;
    // Held in part from this batch on, noted with it.
    const pinned = wholeUntilNow(prepared, { held, replicaId, partial });
    const fresh: Array<{ event: SyncEvent } & ReceivedEvent> = [];
    for (const item of prepared) {
      const { origin, originSeq } = item.event;
      const place = `event ${originSeq} of origin ${origin}`;
      if (!lacks(held, origin, originSeq)) {
        const mine = await sync.atOrigin(origin, originSeq);
        if (mine !== undefined && sameEvent(toSyncEvent(mine, replicaId), item, upcasters)) continue;
        // A gap of an origin held in part: the event is new here.
        if (mine === undefined && (partial.has(origin) || Object.hasOwn(pinned, origin))) {
          fresh.push(item);
          continue;
        }
        throw new SyncConflictError(
          'replaced',
          origin,
          originSeq,
          `${place} is held here as another event: the replicas diverged or the batch is forged; nothing was received`,
        );
      }
      if (origin === replicaId) throw ownEventsError(origin, originSeq);
      fresh.push(item);
    }
    // Nothing is written before the batch is: every event is judged against the store as it was.
    const before = await heldAtOnce(tx, fresh);
    const versions = new Map<string, number>();
    // Whether the log holds a purge of a record that looks purged: a user may have written its text as `[erased]`.
    const purgeHeld = async (id: string) => (await recordEvents(tx, log, id)).some(({ event }) => event?.type === EventTypes.RecordsPurged);
    for (const [i, item] of fresh.entries()) {
      fresh[i] = await erasedWherePurged(before, item, (id) => versions.get(id) ?? 0, purgeHeld);
      for (const id of changeRecordIds(item.change)) versions.set(id, (versions.get(id) ?? 0) + 1);
    }
    const skipped = prepared.length - fresh.length;
    const incoming = fresh.map(({ change }) => change);
    const summaries = await summariesBeforePurges(tx, incoming);
    let stored: LogEvent[] = [];
    let merged = 0;
    if (fresh.length > 0) {
      try {
        ({ stored, merged } = await tx.receive(fresh));
      } catch (error) {
        throw concurrent(error, fresh, held[replicaId] ?? 0);
      }
    }
    for (const { change } of fresh) hlc.observe(changeHlc(change));
    // The summaries a received purge made stale, as a local purge marks them: events of this store's own, after the batch.
    const marks = (await summariesToMark(tx, log, incoming, summaries, upcasters)).map((session) => engine.stamper.staleSummary(session));
    for (const mark of marks) stored.push(await tx.commit(mark, engine.meta));
    // A finished sync's word, noted with the batch that completes it: only the entries that raise what the store knew.
    const raised = noting ? Object.entries(covered).filter(([origin, seq]) => seq > (known[origin] ?? 0)) : [];
    const notes = [
      ...(Object.keys(pinned).length > 0 ? [partialNote(pinned)] : []),
      ...(raised.length > 0 ? [scopedNote(SyncEventTypes.Covered, scope, Object.fromEntries(raised))] : []),
      ...(Object.keys(reached).length > 0 ? [scopedNote(SyncEventTypes.Reached, scope, reached)] : []),
    ];
    if (notes.length > 0) await tx.append(notes);
    const folded = fresh.length > 0 && context.embedsMemory ? await asFolded(await heldAtOnce(tx, fresh), fresh) : incoming;
    const changes = [...folded, ...marks];
    return { result: { received: fresh.length, skipped, merged }, changes, seqs: stored.map((event) => event.seq) };
  });
}

/** Event `originSeq` of this store's own origin, which it never wrote, brought to it: it is a byte copy of the store that wrote it (`copy`). */
export function ownEventsError(origin: string, originSeq: number): SyncConflictError {
  return new SyncConflictError(
    'copy',
    origin,
    originSeq,
    `event ${originSeq} of origin ${origin} is this store's own, which it never wrote: it comes from a byte copy of this store (to make a new replica, sync into a new store); nothing was received`,
  );
}

/**
 * Refuses (`order`) a batch bringing an origin's events ahead of earlier ones this store lacks: the merge rules
 * assume each origin's events of a scope are folded in its order. `from` is the sender's word that the batch's
 * events of an origin go on after its seq with every one lying in `scope` the sender holds, in its order; so a batch
 * bringing one the store lacks must start where the store stands: at most its vector of `scope` (`known`; a gap
 * left by another subtree is no gap there), or at an event it holds no later than what a batch of a sync of `scope`
 * or a wider one `reached` (batch k+1 of a sync follows batch k; an event held through another subtree's sync alone
 * vouches for nothing). An origin `from` does not name is the caller's word that it starts where the store stands
 * (an origin's own seqs have gaps: the events it received). Returns, for the `sync.reached` note, the last seq the
 * batch brings of each origin that starts there, where that raises what the store knew.
 */
async function checkOrder(
  sync: ReturnType<typeof syncLog>,
  { known, reached, held }: { known: Vector; reached: Vector; held: Vector },
  from: Vector,
  prepared: readonly { event: SyncEvent }[],
  replicaId: string,
): Promise<Vector> {
  const lasts = new Map<string, number>();
  for (const { event } of prepared) if (event.origin !== replicaId && Object.hasOwn(from, event.origin)) lasts.set(event.origin, event.originSeq);
  const raised: Record<string, number> = {};
  for (const [origin, last] of lasts) {
    const [after, whole, reach] = [from[origin]!, known[origin] ?? 0, reached[origin] ?? 0];
    if (after <= whole || (after <= reach && (await sync.atOrigin(origin, after)) !== undefined)) {
      if (last > Math.max(whole, reach)) raised[origin] = last;
      continue;
    }
    // Events it holds already are skipped, never folded: only one it lacks comes ahead of what it lacks.
    for (const { event } of prepared)
      if (event.origin === origin && (lacks(held, origin, event.originSeq) || (await sync.atOrigin(origin, event.originSeq)) === undefined))
        throw new SyncConflictError(
          'order',
          origin,
          event.originSeq,
          `event ${event.originSeq} of origin ${origin} comes after its event ${after}, which this store does not hold yet: the batch came ahead of an earlier one of that origin; nothing was received`,
        );
  }
  return raised;
}

/**
 * Each origin the batch brings that the store held whole until now, with how far: from the first receive on, what
 * the store holds of an origin is what a finished sync's word says (events may come out of their origin's order, or
 * only those of a subtree). Its `sync.partial` note commits with the batch, so no crash leaves a gap the log's
 * vector would overstate.
 */
function wholeUntilNow(
  prepared: readonly { event: SyncEvent }[],
  { held, replicaId, partial }: { held: Vector; replicaId: string; partial: ReadonlyMap<string, number> },
): Vector {
  const whole = prepared.map(({ event }) => event.origin).filter((origin) => origin !== replicaId && !partial.has(origin));
  return Object.fromEntries(whole.map((origin) => [origin, held[origin] ?? 0]));
}

/**
 * The received changes as the fold left their records, for what follows a commit (embedding a memory
 * item's content): a merge may have kept another version of an item than the one an event carries.
 */
async function asFolded(lookups: Pick<StateLookups, 'memoryItem'>, received: readonly ReceivedEvent[]): Promise<StateChange[]> {
  const changes: StateChange[] = [];
  for (const { change } of received) {
    if (change.type !== EventTypes.MemoryWritten && change.type !== EventTypes.MemoryUpdated && change.type !== EventTypes.MemoryDeleted) changes.push(change);
    else {
      const item = (await lookups.memoryItem(change.payload.item.id))!;
      changes.push({ type: item.deleted ? EventTypes.MemoryDeleted : EventTypes.MemoryUpdated, payload: { ...change.payload, item } });
    }
  }
  return changes;
}

/**
 * The look-ups of the memory items and skills `received` carry: answered from one read of each kind
 * where the backend reads many at once (`memoryAndSkills`), else one by one by `lookups`.
 */
async function heldAtOnce(lookups: StateLookups, received: readonly ReceivedEvent[]): Promise<Pick<StateLookups, 'memoryItem' | 'skill' | 'turn' | 'session'>> {
  if (lookups.memoryAndSkills === undefined) return lookups;
  const ids = { memory: new Set<string>(), skill: new Set<string>() };
  for (const { change } of received)
    for (const entry of changeRecords(change)) if (entry.kind === 'memory' || entry.kind === 'skill') ids[entry.kind].add(entry.record.id);
  if (ids.memory.size + ids.skill.size === 0) return lookups;
  const held = await lookups.memoryAndSkills({ memory: [...ids.memory], skill: [...ids.skill] });
  // An id the read did not ask about is looked up alone.
  return {
    turn: (id) => lookups.turn(id),
    session: (id) => lookups.session(id),
    memoryItem: (id) => (ids.memory.has(id) ? held.memory.get(id) : lookups.memoryItem(id)),
    skill: (id) => (ids.skill.has(id) ? held.skill.get(id) : lookups.skill(id)),
  };
}

/**
 * `item`, stored erased when the memory item, skill or session it carries, or a turn it removes, is held here as a purge left
 * it: a purge wins and stays (docs/contract.md §12, "Merge"), so the text of a version written apart from it, which
 * arrives after it, never reaches this store's log. Stored as an event that arrives already erased is.
 */
async function erasedWherePurged<I extends ReceivedEvent>(
  lookups: Pick<StateLookups, 'memoryItem' | 'skill' | 'turn' | 'session'>,
  item: I,
  earlier: (id: string) => number,
  purgeHeld: (id: string) => Promise<boolean>,
): Promise<I> {
  const { change } = item;
  const ids = await purgedHere(change, lookups, earlier, purgeHeld);
  if (ids.length === 0) return item;
  const { erasedBy: _, ...payload } = redactChange(change, new Set(ids), 0)!.change.payload as { erasedBy?: number };
  const erased = { type: change.type, payload, received: true } as StateChange;
  // The payload's text was the event's as it came: the log makes the erased one's.
  const { text: __, ...rest } = item;
  return { ...rest, change: erased, input: { ...item.input, payload: storedPayload(erased) } } as I;
}

/**
 * Whether `held` and `item` are one event: the same digest, or the same once every record they carry
 * is erased (a purge rewrote one of the two copies since they parted). Either way nothing is written.
 */
function sameEvent(held: SyncEvent, item: { event: SyncEvent; change: StateChange }, upcasters: UpcasterRegistry | undefined): boolean {
  if (held.digest === item.event.digest) return true;
  const erased = (event: SyncEvent, change: StateChange) => {
    const { payload: _, digest: __, ...envelope } = event;
    const payload = redactChange(change, new Set(changeRecordIds(change)), 0)?.change.payload ?? change.payload;
    return canonicalJson({ ...envelope, payload: { ...payload, erasedBy: undefined, operation: payload.operation?.id } });
  };
  const heldChange = prepare(held, 0, upcasters).change;
  return erased(held, heldChange) === erased(item.event, item.change);
}

/** A fold's refusal of a received event (the event that would have taken its seq) as the `concurrent` conflict it is. */
function concurrent(error: unknown, fresh: readonly ({ event: SyncEvent } & ReceivedEvent)[], head: number): unknown {
  const refused = error instanceof CorruptionError && error.stream === STATE_STREAM ? fresh[error.seq - head - 1] : undefined;
  if (refused === undefined) return error;
  const { origin, originSeq } = refused.event;
  const record = changeRecordIds(refused.change)[0];
  const reason = (error as CorruptionError).message.replace(/^corrupt \S+: /, '');
  return new SyncConflictError(
    'concurrent',
    origin,
    originSeq,
    `event ${originSeq} of origin ${origin} changes ${record === undefined ? 'a record' : `record ${record}`}, which this store changed too (${reason}): no merge rule covers this change yet; nothing was received`,
    record,
  );
}
