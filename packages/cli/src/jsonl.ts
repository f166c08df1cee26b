/**
 * The export format: JSON Lines, one event of the `state` stream per line,
 * in seq order, each line canonical JSON (keys sorted), so the same log
 * exports to the same bytes from any backend, then a trailer line (see
 * `trailer.ts`). Import checks every line before anything is kept: shape,
 * seq continuity, payload validity, then the fold's rules.
 */
import type { AppendInput, LogEvent, StateChange } from '@agentstate/core';
import { CorruptionError, STATE_STREAM, canonicalJson, decodeStateEvent, isCanonicalInstant } from '@agentstate/core';
import { UserError } from './errors.js';

const META_KEYS = ['actor', 'traceId', 'spanId', 'causationId', 'originInstanceId', 'principal'] as const;
const KNOWN_KEYS = new Set<string>(['stream', 'seq', 'type', 'time', 'schemaVersion', 'payload', ...META_KEYS]);

/** One exported line (without its newline). */
export function exportLine(event: LogEvent): string {
  return canonicalJson(event);
}

/** A checked line of an export: the append that restores it and its decoded change. */
export interface ImportedEvent {
  input: AppendInput & { time: string; schemaVersion: number };
  change: StateChange;
  seq: number;
}

/** A refusal of line `lineNo` of an export. */
export function lineError(lineNo: number, message: string): UserError {
  return new UserError(`line ${lineNo}: ${message}; nothing was imported`);
}

/** Parses one line of an export as JSON. */
export function parseJsonLine(line: string, lineNo: number): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw lineError(lineNo, line.trim() === '' ? 'a blank line (an export has none)' : 'not valid JSON');
  }
}

/** Checks one parsed event line of an export; `expectedSeq` is the seq it must carry. Bad input is a {@link UserError} naming the line. */
export function checkEventLine(value: unknown, lineNo: number, expectedSeq: number): ImportedEvent {
  const fail = (message: string): UserError => lineError(lineNo, message);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail('expected a JSON object (one event per line)');
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) if (!KNOWN_KEYS.has(key)) throw fail(`unknown field ${JSON.stringify(key)}`);
  if (raw.stream !== STATE_STREAM) throw fail(`expected stream "${STATE_STREAM}", found ${JSON.stringify(raw.stream)}`);
  if (raw.seq !== expectedSeq) throw fail(`expected seq ${expectedSeq}, found ${JSON.stringify(raw.seq)} (the events must be continuous from 1)`);
  if (typeof raw.type !== 'string' || raw.type === '') throw fail('"type" must be a non-empty string');
  if (typeof raw.time !== 'string' || !isCanonicalInstant(raw.time)) throw fail('"time" must be an instant like 2026-11-29T16:54:02.123Z');
  const schemaVersion = raw.schemaVersion ?? 1;
  if (!Number.isSafeInteger(schemaVersion) || (schemaVersion as number) < 0) throw fail('"schemaVersion" must be a non-negative integer');
  if (!('payload' in raw)) throw fail('"payload" is missing');
  for (const key of META_KEYS) if (raw[key] !== undefined && typeof raw[key] !== 'string') throw fail(`"${key}" must be a string`);
  const event = { ...raw, schemaVersion } as unknown as LogEvent;
  let change: StateChange;
  try {
    change = decodeStateEvent(event);
  } catch (error) {
    if (error instanceof CorruptionError) throw fail(error.message.replace(/^corrupt [^:]*: /, ''));
    throw error;
  }
  const input: ImportedEvent['input'] = {
    stream: STATE_STREAM,
    type: event.type,
    time: event.time,
    schemaVersion: event.schemaVersion,
    payload: event.payload,
  };
  for (const key of META_KEYS) if (raw[key] !== undefined) input[key] = raw[key] as string;
  return { input, change, seq: expectedSeq };
}
