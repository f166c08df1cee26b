/**
 * The wire form of sync (docs/contract.md §12): an event without its local seq, at its place in
 * its origin's log, with a digest any holder can check. Defined once here, for every backend
 * and face.
 */
import { ValidationError } from '../errors.js';
import { META_KEYS } from '../log/append.js';
import { canonicalJsonWithout } from '../log/json.js';
import type { EventMeta, LogEvent } from '../log/log.js';
import { sha256Hex } from '../snapshot/binding.js';
import { isCanonicalInstant, type Instant } from '../time/instant.js';

/** A `state` event as one store sends it to another. */
export interface SyncEvent extends EventMeta {
  /** The replica id of the store it was first appended to. */
  origin: string;
  /** Its seq in that store's log. */
  originSeq: number;
  type: string;
  /** Its time there. */
  time: Instant;
  schemaVersion: number;
  /** As stored, without a purge's `erasedBy` mark (a seq of the sender's log). */
  payload: unknown;
  /** SHA-256 (hex) of the canonical JSON of every other field. */
  digest: string;
}

/** An event's place: its origin and its seq there, the same on every store that holds it. */
export type SyncPlace = Pick<SyncEvent, 'origin' | 'originSeq'>;

/** The digest of a sync event: SHA-256 of the canonical JSON of all its fields but the digest. */
export function syncDigest(event: Omit<SyncEvent, 'digest'> & { digest?: string }): string {
  return sha256Hex(canonicalJsonWithout(event, 'digest'));
}

/** The wire form of `event`, a `state` event of the log whose identity is `replicaId`. */
export function toSyncEvent(event: LogEvent, replicaId: string): SyncEvent {
  const payload = event.payload as Record<string, unknown>;
  const out: Omit<SyncEvent, 'digest'> & { digest?: string } = {
    origin: event.origin ?? replicaId,
    originSeq: event.originSeq ?? event.seq,
    type: event.type,
    time: event.originTime ?? event.time,
    schemaVersion: event.schemaVersion,
    // The mark names a seq of this log only: the receiver's own purge marks its copy.
    payload: 'erasedBy' in payload ? Object.fromEntries(Object.entries(payload).filter(([key]) => key !== 'erasedBy')) : payload,
  };
  for (const key of META_KEYS) if (event[key] !== undefined) out[key] = event[key];
  // Added in place, last: a copy of each event sent was one of the sync's larger allocations.
  out.digest = syncDigest(out);
  return out as SyncEvent;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const WIRE_KEYS = new Set<string>(['origin', 'originSeq', 'type', 'time', 'schemaVersion', 'payload', 'digest', ...META_KEYS]);

/**
 * Checks the form of the sync event at `index` of a batch: its fields, and its digest against
 * them. Its payload is checked by the decoder afterwards. A `ValidationError` naming
 * `index.field`.
 */
export function checkSyncEvent(value: unknown, index: number): SyncEvent {
  const fail = (field: string, message: string) => new ValidationError(`${index}${field ? `.${field}` : ''}`, message);
  if (!isObject(value)) throw fail('', 'a sync event must be an object');
  for (const key of Object.keys(value)) if (!WIRE_KEYS.has(key)) throw fail(key, 'is not a field of a sync event');
  if (typeof value.origin !== 'string' || value.origin === '') throw fail('origin', 'must be a non-empty string');
  if (!Number.isSafeInteger(value.originSeq) || (value.originSeq as number) < 1) throw fail('originSeq', 'must be a positive safe integer');
  if (typeof value.type !== 'string' || value.type === '') throw fail('type', 'must be a non-empty string');
  if (typeof value.time !== 'string' || !isCanonicalInstant(value.time)) throw fail('time', 'must be an instant like 2026-11-29T16:54:02.123Z');
  if (!Number.isSafeInteger(value.schemaVersion) || (value.schemaVersion as number) < 0) throw fail('schemaVersion', 'must be a non-negative integer');
  if (!isObject(value.payload)) throw fail('payload', 'must be an object');
  if ('erasedBy' in value.payload) throw fail('payload.erasedBy', 'names a seq of the sender: a sync event carries none');
  for (const key of META_KEYS) if (value[key] !== undefined && typeof value[key] !== 'string') throw fail(key, 'must be a string');
  const event = value as unknown as SyncEvent;
  if (typeof event.digest !== 'string' || event.digest !== syncDigest(event))
    throw fail('digest', 'does not match the event: it was changed on the way, or forged');
  return event;
}
