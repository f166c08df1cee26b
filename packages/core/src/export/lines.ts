/**
 * The export format: JSON Lines, one event of the `state` stream per line,
 * in seq order, then the events of the `retention` stream (its policies) in
 * seq order, each line canonical JSON (keys sorted), so the same log
 * exports to the same bytes from any backend, then a trailer line (see
 * `trailer.ts`). Reading checks each event line on its own: shape, seq
 * continuity and payload validity; the fold's rules come after (see
 * `reader.ts`).
 */
import { CorruptionError, ExportFormatError } from '../errors.js';
import { decodeStateEvent } from '../log/decode.js';
import { type StateChange, RETENTION_STREAM, STATE_STREAM } from '../log/events.js';
import { retentionPayloadSchema } from '../records/retention.js';
import { META_KEYS } from '../log/append.js';
import { canonicalJson } from '../log/json.js';
import type { AppendInput, LogEvent } from '../log/log.js';
import { isCanonicalInstant } from '../time/instant.js';

/** A received event's place at its origin (docs/contract.md §12), exported as stored: all three or none. */
const ORIGIN_KEYS = ['origin', 'originSeq', 'originTime'] as const;
const KNOWN_KEYS = new Set<string>(['stream', 'seq', 'type', 'time', 'schemaVersion', 'payload', ...META_KEYS, ...ORIGIN_KEYS]);

/** One exported line (without its newline). */
export function exportLine(event: LogEvent): string {
  return canonicalJson(event);
}

/** A checked line of an export: the append that restores it and its seq in its stream. */
export interface ImportedStreamEvent {
  input: AppendInput & { time: string; schemaVersion: number };
  seq: number;
}

/** A checked `state` line of an export: the append that restores it, its decoded change and its seq. */
export interface ImportedEvent extends ImportedStreamEvent {
  change: StateChange;
}

/** The reason a decoder or fold gave, without its `corrupt <stream>#<seq>: ` prefix (the line number replaces it). */
export function corruptionReason(error: CorruptionError): string {
  return error.message.replace(/^corrupt [^:]*: /, '');
}

/** Parses one line of an export as JSON; anything else is an {@link ExportFormatError} naming the line. */
export function parseJsonLine(line: string, lineNo: number): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new ExportFormatError(line.trim() === '' ? 'a blank line (an export has none)' : 'not valid JSON', lineNo);
  }
}

/** Checks one parsed event line of an export; `expectedSeq` is the seq it must carry. Bad input is an {@link ExportFormatError} naming the line. */
export function checkEventLine(value: unknown, lineNo: number, expectedSeq: number): ImportedEvent {
  const { event, input, fail } = checkEnvelope(value, lineNo, STATE_STREAM, expectedSeq);
  let change: StateChange;
  try {
    change = decodeStateEvent(event);
  } catch (error) {
    if (error instanceof CorruptionError) throw fail(corruptionReason(error));
    throw error;
  }
  return { input, change, seq: expectedSeq };
}

/**
 * Checks one parsed line of the `retention` stream: a policy set or removed,
 * whose payload matches its schema. Bad input is an {@link ExportFormatError}
 * naming the line.
 */
export function checkRetentionLine(value: unknown, lineNo: number, expectedSeq: number): ImportedStreamEvent {
  const { event, input, fail } = checkEnvelope(value, lineNo, RETENTION_STREAM, expectedSeq);
  const schema = retentionPayloadSchema(event.type);
  if (schema === undefined) throw fail(`unknown event type ${JSON.stringify(event.type)} of stream "${RETENTION_STREAM}"`);
  const parsed = schema.safeParse(event.payload);
  if (!parsed.success) throw fail(`the payload of ${event.type} does not match its schema: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return { input, seq: expectedSeq };
}

/** The stream a parsed line names, when it is an object with a string `stream`. */
export function lineStream(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const stream = (value as Record<string, unknown>).stream;
  return typeof stream === 'string' ? stream : undefined;
}

/** The checks every event line takes, whatever its stream: shape, stream, seq, type, time, version and envelope. */
function checkEnvelope(
  value: unknown,
  lineNo: number,
  stream: string,
  expectedSeq: number,
): { event: LogEvent; input: ImportedStreamEvent['input']; fail: (message: string) => ExportFormatError } {
  const fail = (message: string): ExportFormatError => new ExportFormatError(message, lineNo);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail('expected a JSON object (one event per line)');
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) if (!KNOWN_KEYS.has(key)) throw fail(`unknown field ${JSON.stringify(key)}`);
  if (raw.stream !== stream) throw fail(`expected stream "${stream}", found ${JSON.stringify(raw.stream)}`);
  if (raw.seq !== expectedSeq) throw fail(`expected seq ${expectedSeq}, found ${JSON.stringify(raw.seq)} (the events must be continuous from 1)`);
  if (typeof raw.type !== 'string' || raw.type === '') throw fail('"type" must be a non-empty string');
  if (typeof raw.time !== 'string' || !isCanonicalInstant(raw.time)) throw fail('"time" must be an instant like 2026-11-29T16:54:02.123Z');
  const schemaVersion = raw.schemaVersion ?? 1;
  if (!Number.isSafeInteger(schemaVersion) || (schemaVersion as number) < 0) throw fail('"schemaVersion" must be a non-negative integer');
  if (!('payload' in raw)) throw fail('"payload" is missing');
  for (const key of META_KEYS) if (raw[key] !== undefined && typeof raw[key] !== 'string') throw fail(`"${key}" must be a string`);
  const event = { ...raw, schemaVersion } as unknown as LogEvent;
  const input: ImportedStreamEvent['input'] = {
    stream,
    type: event.type,
    time: event.time,
    schemaVersion: event.schemaVersion,
    payload: event.payload,
  };
  for (const key of META_KEYS) if (raw[key] !== undefined) input[key] = raw[key] as string;
  if (ORIGIN_KEYS.some((key) => raw[key] !== undefined)) {
    if (typeof raw.origin !== 'string' || raw.origin === '' || !Number.isSafeInteger(raw.originSeq) || (raw.originSeq as number) < 1)
      throw fail('"origin" must be a non-empty string and "originSeq" a positive integer, given together with "originTime"');
    if (typeof raw.originTime !== 'string' || !isCanonicalInstant(raw.originTime)) throw fail('"originTime" must be an instant like 2026-11-29T16:54:02.123Z');
    Object.assign(input, { origin: raw.origin, originSeq: raw.originSeq, originTime: raw.originTime });
  }
  return { event, input, fail };
}
