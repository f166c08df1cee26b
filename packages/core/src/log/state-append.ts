/**
 * The rule every log applies to an append on the `state` stream: the event
 * must be one the decoder will read (docs/contract.md §7). A single undecodable event
 * would make every later fold, and so the whole store, fail; it is refused
 * instead, before anything is stored.
 */
import { CorruptionError, ValidationError } from '../errors.js';
import { decodeStateEvent } from './decode.js';
import { isStateEventType, STATE_SCHEMA_VERSION, STATE_STREAM } from './events.js';
import type { LogEvent } from './log.js';
import type { UpcasterRegistry } from './upcasters.js';

/**
 * Checks an event about to be stored, with its payload as it will be read
 * back (after its JSON round trip). Events of other streams pass untouched.
 * Returns true when the event is on the `state` stream at the current schema
 * version and decoded, so a store may mark it as validated.
 *
 * @throws ValidationError for an unknown type, a schema version newer than
 * this library, an older one with no upcaster (in `upcasters` or built in),
 * or a payload the decoder refuses; the message is the decoder's.
 */
export function checkStateAppend(event: LogEvent, upcasters?: UpcasterRegistry): boolean {
  if (event.stream !== STATE_STREAM) return false;
  if (!isStateEventType(event.type)) throw new ValidationError('type', `${JSON.stringify(event.type)} is not a ${STATE_STREAM} event type`);
  if (event.schemaVersion > STATE_SCHEMA_VERSION) {
    throw new ValidationError('schemaVersion', `${event.schemaVersion} is newer than this library's (${STATE_SCHEMA_VERSION})`);
  }
  try {
    decodeStateEvent(event, upcasters ? { upcasters } : {});
  } catch (error) {
    if (!(error instanceof CorruptionError)) throw error;
    throw new ValidationError('payload', error.message.replace(/^corrupt \S+: /, `not a valid ${STATE_STREAM} event: `));
  }
  return event.schemaVersion === STATE_SCHEMA_VERSION;
}
