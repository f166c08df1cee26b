/**
 * Time travel (docs/contract.md §11): a read-only view of the whole state as
 * a replay of the log cut at a point would read it. The view is folded from
 * the newest trustworthy snapshot at or below the point plus the events after
 * it, into the in-memory read model, so it only needs the {@link Log} and
 * works the same over every backend.
 */
import { z } from 'zod';
import { CorruptionError, ReadOnlyViewError, ValidationError } from '../errors.js';
import { STATE_STREAM } from '../log/events.js';
import type { Log, LogEvent, ReadQuery } from '../log/log.js';
import { type SnapshotPart, SNAPSHOT_PARTS } from '../snapshot/parts.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { parseInput } from '../records/inputs.js';
import type { Clock } from '../time/clock.js';
import { type Instant, formatInstant, instantToMs, normalizeInstant } from '../time/instant.js';
import type { EventSourcedProvider, Provider } from './types.js';
import type { RetentionStore } from './retention.js';

/** A point of the `state` stream: a seq (0 is the empty state), or an instant (the last event at or before it). */
export type PointInput = { seq: number } | { time: string };

/** A point resolved against the log. */
export interface ResolvedPoint {
  /** The seq of the last event the view folds (0: none). */
  seq: number;
  /**
   * The instant the view reads at, its "now": the instant asked for, else
   * the time of the event at `seq` (the epoch for seq 0). Expiry and retention
   * are judged at it, as they were at that moment.
   */
  time: Instant;
}

/** A read-only view of the state at a point: the read methods of a {@link Provider}; every write is a {@link ReadOnlyViewError}. */
export interface StateView extends Provider {
  /** The seq of the last event folded into the view. */
  readonly seq: number;
  /** The instant the view reads at (see {@link ResolvedPoint.time}). */
  readonly time: Instant;
  /** The whole projection at `seq`, tombstones included, as a snapshot taken then would hold it. */
  capture(): Promise<Snapshot>;
  /** The retention policies in force at the view's instant; only `list` reads. */
  readonly retention: RetentionStore;
}

/** The time of the event at `seq` of the `state` stream. */
async function eventTime(log: Log, seq: number): Promise<Instant> {
  const [event] = await log.read({ stream: STATE_STREAM, afterSeq: seq - 1, limit: 1 });
  if (event?.seq !== seq) throw new CorruptionError(STATE_STREAM, seq, 'the event is missing');
  return event.time;
}

/** The last `state` event at or before position `seq` of a gapped log, read backwards in growing spans. */
async function lastEventUpTo(log: Log, seq: number): Promise<LogEvent | undefined> {
  for (let span = 16; ; span *= 2) {
    const from = Math.max(0, seq - span);
    const events = (await log.read({ stream: STATE_STREAM, afterSeq: from, limit: span })).filter((e) => e.seq <= seq);
    if (events.length > 0 || from === 0) return events.at(-1);
  }
}

/**
 * The consistent cut of a gapped log at `target` (ms): the longest prefix
 * whose events are all at or before it, as the position of its last event
 * (0 for none). Its writers' clocks may disagree, so times are
 * not ordered along the stream: the events are read in order up to that
 * first later one.
 */
async function cutBefore(log: Log, target: number, head: number): Promise<number> {
  let last = 0;
  for (let after = 0; after < head; ) {
    const batch = await log.read({ stream: STATE_STREAM, afterSeq: after, limit: 10_000 });
    if (batch.length === 0) break;
    for (const event of batch) {
      if (event.seq > head || instantToMs(event.time) > target) return last;
      last = event.seq;
    }
    after = last;
  }
  return last;
}

/** The keys a point may hold; their values are checked as the point is resolved. */
const pointKeys = z.strictObject({ seq: z.unknown(), time: z.unknown() }).partial();

/**
 * Resolves `point` against the log: a seq must be an integer in
 * `[0, head]`; an instant selects the last event whose time is at or
 * before it, found by binary search over seqs (about 20 single-event reads
 * at a million events). A dense log keeps event times from decreasing along
 * a stream, whatever its writers' clocks do (docs/contract.md §7), so the
 * events at or before the instant are a prefix of the stream and the search
 * finds its end. A gapped one's cut is the longest prefix of events at or
 * before the instant ({@link cutBefore}). `path` is where the point lies in
 * the caller's input, for the field a `ValidationError` names.
 */
export async function resolvePoint(log: Log, point: PointInput, path: readonly string[] = []): Promise<ResolvedPoint> {
  const field = (...key: string[]) => [...path, ...key].join('.');
  if (point === null || typeof point !== 'object') throw new ValidationError(field(), 'a point must be { seq } or { time }');
  parseInput(pointKeys, point, path);
  const head = await log.head(STATE_STREAM);
  if ('seq' in point) {
    const { seq } = point;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) throw new ValidationError(field('seq'), 'must be a non-negative integer');
    if (seq > head) throw new ValidationError(field('seq'), `${seq} lies beyond the head of the state stream (${head})`);
    if (seq === 0) return { seq, time: formatInstant(0) };
    return { seq, time: log.gapped === true ? ((await lastEventUpTo(log, seq))?.time ?? formatInstant(0)) : await eventTime(log, seq) };
  }
  if ('time' in point) {
    const time = typeof point.time === 'string' ? normalizeInstant(point.time) : undefined;
    if (time === undefined) throw new ValidationError(field('time'), 'must be an ISO-8601 date or date-time with a zone');
    const target = instantToMs(time);
    if (log.gapped === true) return { seq: await cutBefore(log, target, head), time };
    // Invariant: events 1..lo are at or before the instant, events after hi are later.
    let lo = 0;
    let hi = head;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (instantToMs(await eventTime(log, mid)) <= target) lo = mid;
      else hi = mid - 1;
    }
    return { seq: lo, time };
  }
  throw new ValidationError(field(), 'a point must be { seq } or { time }');
}

/**
 * The log as it was at `point`: the `state` stream ends at its seq, every
 * other stream at its instant; appends and snapshot saves are refused.
 */
export function cutLog(log: Log, point: ResolvedPoint): Log {
  const until = instantToMs(point.time);
  const refuse = (): never => {
    throw new ReadOnlyViewError(`the log of a view at seq ${point.seq} is read-only`);
  };
  const read = async (query: ReadQuery): Promise<LogEvent[]> => {
    if (query.stream === STATE_STREAM) {
      const room = point.seq - (query.afterSeq ?? 0);
      if (room <= 0) return [];
      // A gapped log may hold later positions within `room` events: they are past the cut.
      return (await log.read({ ...query, limit: query.limit ? Math.min(query.limit, room) : room })).filter((e) => e.seq <= point.seq);
    }
    // Other streams (retention policies) are short: cut by time, then apply the limit.
    const events = (await log.read({ ...query, limit: 0 })).filter((e) => instantToMs(e.time) <= until);
    return query.limit ? events.slice(0, query.limit) : events;
  };
  return {
    ...(log.gapped === true ? { gapped: true } : {}),
    identity: () => log.identity(),
    append: async () => refuse(),
    saveSnapshot: async () => refuse(),
    read,
    async head(stream) {
      if (stream === STATE_STREAM) return point.seq;
      const events = await read({ stream });
      return events.at(-1)?.seq ?? 0;
    },
    latestSnapshot: (stream, options) =>
      log.latestSnapshot(stream, {
        upToSeq: Math.min(options?.upToSeq ?? Number.MAX_SAFE_INTEGER, stream === STATE_STREAM ? point.seq : Number.MAX_SAFE_INTEGER),
      }),
  };
}

/** A clock stopped at `time`. */
export function stoppedClock(time: Instant): Clock {
  const ms = instantToMs(time);
  return { now: () => ms };
}

/** The provider over a view's state holding at least the collections of `parts`. */
export type ViewProvider = (parts: readonly SnapshotPart[]) => Promise<EventSourcedProvider>;

/** The stores of a view, by the name a provider gives them. */
type ViewStores = Pick<StateView, 'sessions' | 'skills' | 'memory' | 'workingMemory' | 'checkpoints' | 'retention'>;

const SESSIONS: readonly SnapshotPart[] = ['sessions'];
const TRANSCRIPTS: readonly SnapshotPart[] = ['sessions', 'turns'];
const SKILLS: readonly SnapshotPart[] = ['skills'];
const MEMORY: readonly SnapshotPart[] = ['memory'];
const CHECKPOINTS: readonly SnapshotPart[] = ['checkpoints'];

/**
 * A view's read methods, each asking `provider` for the parts of the
 * snapshot it reads (so a view folds only what its reads need) and handing
 * its arguments as given to the store there; each write method throws
 * {@link ReadOnlyViewError}.
 */
export function readOnlyView(name: string, provider: ViewProvider, point: ResolvedPoint, capture: () => Promise<Snapshot>): StateView {
  /** Store `store`: each of `reads` on the parts it reads, and each of `writes` (space-separated) refused. */
  const store = <K extends keyof ViewStores>(store: K, reads: Record<string, readonly SnapshotPart[]>, writes: string) => {
    const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const [method, parts] of Object.entries(reads)) {
      methods[method] = async (...args) => {
        const target = (await provider(parts))[store] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
        return target[method]!(...args);
      };
    }
    for (const method of writes.split(' ')) {
      methods[method] = async () => {
        throw new ReadOnlyViewError(`${store}.${method} writes, but this is a read-only view of the state at seq ${point.seq}`);
      };
    }
    return methods as unknown as ViewStores[K];
  };
  return {
    name,
    seq: point.seq,
    time: point.time,
    sessions: store(
      'sessions',
      { get: SESSIONS, getAny: SESSIONS, list: SESSIONS, turns: TRANSCRIPTS, search: TRANSCRIPTS, context: [...TRANSCRIPTS, ...MEMORY] },
      'create appendTurn appendTurns removeLastTurn clear replaceSuffix delete update compact',
    ),
    skills: store('skills', { get: SKILLS, getAny: SKILLS, list: SKILLS, search: SKILLS }, 'upsert recordOutcome delete'),
    memory: store('memory', { get: MEMORY, getByKey: MEMORY, getAny: MEMORY, recall: MEMORY }, 'write writeMany update delete sweep'),
    workingMemory: store('workingMemory', { get: MEMORY }, 'replace patch'),
    checkpoints: store('checkpoints', { get: CHECKPOINTS, list: CHECKPOINTS }, 'put putWrites deleteThread'),
    retention: store('retention', { list: [] }, 'set remove apply merge'),
    namespaces: async (options) => (await provider(SNAPSHOT_PARTS)).namespaces(options),
    capture,
    close: async () => (await provider([])).close(),
  };
}
