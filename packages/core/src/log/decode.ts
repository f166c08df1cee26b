/**
 * Decoding of `state` events: upcast to the current shape, then validate
 * every payload. Anything malformed is a `CorruptionError` naming the event,
 * never an empty record (docs/contract.md §7).
 */
import { CorruptionError } from '../errors.js';
import { type StateChange, isStateEventType, STATE_SCHEMA_VERSION, statePayloadSchemas } from './events.js';
import type { LogEvent } from './log.js';
import type { UpcasterRegistry } from './upcasters.js';
import { BUILT_IN_UPCASTERS } from './legacy/index.js';
import { expandStoredPayload } from './compact.js';

/** Options of {@link decodeStateEvent}. */
export interface DecodeOptions {
  /** Migrations for older payload shapes, tried before the built-in ones. */
  upcasters?: UpcasterRegistry;
  /** Skip zod validation (only for payloads this process just produced). */
  trusted?: boolean;
}

/** Decodes one stored event of the `state` stream, or throws `CorruptionError`. */
export function decodeStateEvent(event: LogEvent, options: DecodeOptions = {}): StateChange {
  if (!isStateEventType(event.type)) {
    throw new CorruptionError(event.stream, event.seq, `unknown event type ${JSON.stringify(event.type)}`);
  }
  let payload = event.payload;
  const version = event.schemaVersion ?? 1;
  if (version > STATE_SCHEMA_VERSION) {
    throw new CorruptionError(event.stream, event.seq, `schema version ${version} is newer than this library (${STATE_SCHEMA_VERSION})`);
  }
  // A payload of this version is stored compacted; one of an older version is whole.
  if (version === STATE_SCHEMA_VERSION) payload = expandStoredPayload(event.type, payload, options.trusted === true);
  else if (version < STATE_SCHEMA_VERSION) {
    payload = (options.upcasters ?? BUILT_IN_UPCASTERS).upcast(event.type, version, STATE_SCHEMA_VERSION, payload, BUILT_IN_UPCASTERS);
    if (payload === undefined) {
      throw new CorruptionError(event.stream, event.seq, `no upcaster from schema version ${version} of ${event.type}`);
    }
  }
  if (options.trusted) return changeOf(event, payload);
  const result = statePayloadSchemas[event.type].safeParse(payload);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new CorruptionError(event.stream, event.seq, `malformed ${event.type} payload${where}: ${issue?.message ?? 'invalid'}`, {
      cause: result.error,
    });
  }
  return changeOf(event, result.data);
}

/** The change of `event` with `payload`; a received event is marked so, for the fold merges it when it does not chain. */
function changeOf(event: LogEvent, payload: unknown): StateChange {
  return (event.origin === undefined ? { type: event.type, payload } : { type: event.type, payload, received: true }) as StateChange;
}
