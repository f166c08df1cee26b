/** Shared rules every log implementation applies to appends, reads and snapshots. */
import { ValidationError } from '../errors.js';
import { type Instant, isCanonicalInstant } from '../time/instant.js';
import type { AppendInput, LogEvent, ReadQuery, StoredSnapshot } from './log.js';

/** The optional string fields of an event's envelope. */
export const META_KEYS = ['actor', 'traceId', 'spanId', 'causationId', 'originInstanceId', 'principal'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isSeq = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * The payload as the log will store and return it: a JSON copy, so later
 * mutation of the caller's object never changes history. `undefined` stays
 * as is for {@link toLogEvent} to refuse.
 */
export function jsonPayload<P>(payload: P): P {
  if (payload === undefined) return payload;
  return JSON.parse(payloadJson(payload)) as P;
}

/** A payload as JSON text; one that is not JSON-serialisable (a cycle, a BigInt, a bare function) is a `ValidationError`. */
export function payloadJson(payload: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(payload);
  } catch (cause) {
    throw new ValidationError('payload', `must be JSON-serialisable (${cause instanceof Error ? cause.message : String(cause)})`);
  }
  if (text === undefined) throw new ValidationError('payload', 'must be JSON-serialisable');
  return text;
}

/** Refuses a stream name that is not a non-empty string. */
export function checkStream(stream: unknown): string {
  if (typeof stream !== 'string' || stream === '') throw new ValidationError('stream', 'must be a non-empty string');
  return stream;
}

/**
 * Validates an append and builds the event to store at `seq`: `time` from the
 * log's clock when absent, `schemaVersion` 1 when absent, linkage kept
 * verbatim. `previous` gives the time of the event at `seq - 1` of the
 * stream (asked unless `seq` is 1; at seq 0, an event whose position the
 * database takes later, the time of the last): times never decrease along a stream
 * (docs/contract.md §7), so a clock reading earlier than it is raised to it
 * and a given time earlier than it is a `ValidationError`. The payload is the
 * caller's object: the log must serialise it before it returns, so later
 * mutation cannot change history.
 */
export function toLogEvent<P>(input: AppendInput<P>, seq: number, now: () => Instant, previous: (stream: string) => Instant | undefined): LogEvent<P> {
  if (!isObject(input)) throw new ValidationError('', 'an append must be an object');
  checkStream(input.stream);
  if (typeof input.type !== 'string' || input.type === '') throw new ValidationError('type', 'must be a non-empty string');
  if (input.payload === undefined) throw new ValidationError('payload', 'is required');
  if (input.time !== undefined && (typeof input.time !== 'string' || !isCanonicalInstant(input.time))) {
    throw new ValidationError('time', 'must be an instant like 2026-11-29T16:54:02.123Z, of a date that exists');
  }
  // Seq 0: an event the database places later (PostgreSQL's one-round-trip append), after the last it knows of.
  const time = notBefore(input.time, now, seq !== 1 ? previous(input.stream) : undefined, input.stream, seq);
  const schemaVersion = input.schemaVersion ?? 1;
  // 0 is allowed for payloads from before versioning (e.g. imported legacy logs), for upcasters to migrate.
  if (!isSeq(schemaVersion)) throw new ValidationError('schemaVersion', 'must be a non-negative integer');
  const event: LogEvent<P> = {
    stream: input.stream,
    seq,
    type: input.type,
    time,
    schemaVersion,
    payload: input.payload,
  };
  for (const key of META_KEYS) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new ValidationError(key, 'must be a string');
    event[key] = value;
  }
  if (input.origin !== undefined || input.originSeq !== undefined || input.originTime !== undefined) {
    // A received event's place at its origin, kept verbatim: all three or none.
    if (typeof input.origin !== 'string' || input.origin === '') throw new ValidationError('origin', 'must be a non-empty string');
    if (!isSeq(input.originSeq) || input.originSeq === 0) throw new ValidationError('originSeq', 'must be a positive safe integer');
    if (typeof input.originTime !== 'string' || !isCanonicalInstant(input.originTime)) throw new ValidationError('originTime', 'must be an instant');
    event.origin = input.origin;
    event.originSeq = input.originSeq;
    event.originTime = input.originTime;
  }
  return event;
}

/**
 * The time of the event at `seq`: `given` when the caller set one, else the
 * clock's reading, either at or after `floor`, the time of the event before
 * it. A clock set back, or writers whose clocks disagree, so move no event
 * time back: a clock reading is raised to `floor`, a given time is refused.
 */
function notBefore(given: Instant | undefined, now: () => Instant, floor: Instant | undefined, stream: string, seq: number): Instant {
  if (given === undefined) {
    const reading = now();
    return floor !== undefined && reading < floor ? floor : reading;
  }
  if (floor !== undefined && given < floor) {
    throw new ValidationError(
      'time',
      `${given} is earlier than ${floor}, the time of ${seq > 0 ? `event ${seq - 1}` : 'the last event'} of stream ${stream}: times never decrease along a stream`,
    );
  }
  return given;
}

/**
 * Checks a read and fills its defaults: `afterSeq` 0 and `limit` 0 (all).
 * Both must be safe non-negative integers: a string or a fraction is refused
 * rather than guessed at.
 */
export function parseReadQuery(query: ReadQuery): Required<ReadQuery> {
  if (!isObject(query)) throw new ValidationError('', 'a read must be an object like { stream }');
  const stream = checkStream(query.stream);
  const afterSeq = query.afterSeq ?? 0;
  const limit = query.limit ?? 0;
  if (!isSeq(afterSeq)) throw new ValidationError('afterSeq', 'must be a non-negative safe integer');
  if (!isSeq(limit)) throw new ValidationError('limit', 'must be a non-negative safe integer (0: all)');
  return { stream, afterSeq, limit };
}

/** Checks the options of `latestSnapshot` and returns the bound (default: none). */
export function parseUpToSeq(options: { upToSeq?: number } | undefined): number {
  if (options === undefined) return Number.MAX_SAFE_INTEGER;
  if (!isObject(options)) throw new ValidationError('', 'options must be an object like { upToSeq }');
  const upTo = options.upToSeq ?? Number.MAX_SAFE_INTEGER;
  if (!isSeq(upTo)) throw new ValidationError('upToSeq', 'must be a non-negative safe integer');
  return upTo;
}

/** Checks a snapshot before it is stored. */
export function checkSnapshot(snapshot: StoredSnapshot): void {
  if (!isObject(snapshot)) throw new ValidationError('', 'a snapshot must be an object like { stream, seq, data }');
  checkStream(snapshot.stream);
  if (!isSeq(snapshot.seq)) throw new ValidationError('seq', 'must be a non-negative integer');
  if (typeof snapshot.data !== 'string') throw new ValidationError('data', 'must be a string');
}
