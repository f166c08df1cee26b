/** Shared append-side rules every log implementation applies. */
import { ValidationError } from '../errors.js';
import type { Instant } from '../time/instant.js';
import type { AppendInput, LogEvent } from './log.js';

const META_KEYS = ['actor', 'traceId', 'spanId', 'causationId', 'originInstanceId', 'principal'] as const;

/**
 * Validates an append and builds the event to store at `seq`: `time` from the
 * log's clock when absent, `schemaVersion` 1 when absent, linkage kept
 * verbatim. The payload is the caller's object: the log must serialise it
 * before it returns, so later mutation cannot change history.
 */
export function toLogEvent<P>(input: AppendInput<P>, seq: number, now: () => Instant): LogEvent<P> {
  if (typeof input.stream !== 'string' || input.stream === '') throw new ValidationError('stream', 'must be a non-empty string');
  if (typeof input.type !== 'string' || input.type === '') throw new ValidationError('type', 'must be a non-empty string');
  if (input.payload === undefined) throw new ValidationError('payload', 'is required');
  const schemaVersion = input.schemaVersion ?? 1;
  // 0 is allowed for payloads from before versioning (e.g. imported legacy logs), for upcasters to migrate.
  if (!Number.isInteger(schemaVersion) || schemaVersion < 0) throw new ValidationError('schemaVersion', 'must be a non-negative integer');
  const event: LogEvent<P> = {
    stream: input.stream,
    seq,
    type: input.type,
    time: input.time ?? now(),
    schemaVersion,
    payload: input.payload,
  };
  for (const key of META_KEYS) {
    const value = input[key];
    if (value !== undefined) event[key] = value;
  }
  return event;
}
