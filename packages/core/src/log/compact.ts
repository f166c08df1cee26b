/**
 * How a change is stored (schema version 3): as its payload, except that
 * the new turn of a `session.turn_appended` leaves out every field a reader
 * derives from the rest of it, the most frequent event being also the one
 * most worth keeping small. Each field is left out only when it equals what
 * {@link expandStoredPayload} puts back, so reading gives the turn exactly.
 */
import { partsFromContent, renderPartsText } from '../records/parts.js';
import type { Part } from '../records/parts.js';
import type { Turn } from '../records/records.js';
import type { StateChange } from './events.js';
import { EventTypes } from './events.js';

/** A JSON object as a stored payload holds it. */
type Loose = Record<string, unknown>;

/** The payload of `change` as a log stores it. */
export function storedPayload(change: StateChange): unknown {
  if (change.type !== EventTypes.TurnAppended || change.payload.session !== undefined) return change.payload;
  return { ...change.payload, turn: compactTurn(change.payload.turn) };
}

/**
 * A new turn without what its other fields imply: `syncVersion` 1, not
 * deleted, written by its origin, no metadata, and either its parts (one
 * text part holding the content, or none for `''`) or its content (the text
 * of its parts), whichever the other implies.
 */
function compactTurn(turn: Turn): Loose {
  const { syncVersion, deleted, lastWriterId, metadata, parts, content, ...rest } = turn;
  const stored: Loose = rest;
  if (syncVersion !== 1) stored.syncVersion = syncVersion;
  if (deleted) stored.deleted = deleted;
  if (lastWriterId !== turn.originInstanceId) stored.lastWriterId = lastWriterId;
  if (Object.keys(metadata).length > 0) stored.metadata = metadata;
  if (!isContentPart(parts, content)) {
    stored.parts = parts;
    if (content !== renderPartsText(parts)) stored.content = content;
  } else stored.content = content;
  return stored;
}

/**
 * True when `parts` are exactly what `content` alone gives (see
 * `partsFromContent`): one text part holding it, or none for `''`. Such
 * parts need not be stored beside the content.
 */
export function isContentPart(parts: readonly Part[], content: string): boolean {
  if (parts.length === 0) return content === '';
  const [part] = parts;
  return parts.length === 1 && part!.type === 'text' && part!.text === content && Object.keys(part!).length === 2;
}

/**
 * A stored payload of the current schema version with every left-out field
 * put back. Anything that is not the shape it expects is returned
 * unchanged, for the decoder to refuse.
 */
export function expandStoredPayload(type: string, payload: unknown): unknown {
  if (type !== EventTypes.TurnAppended || !isObject(payload) || !isObject(payload.turn)) return payload;
  return { ...payload, turn: expandTurn(payload.turn) };
}

function expandTurn(stored: Loose): Loose {
  const turn: Loose = { ...stored };
  // Only an absent field is filled: a present but malformed one (null included) stays, for the decoder to refuse.
  const fill = (key: string, value: unknown) => {
    if (!Object.hasOwn(turn, key)) turn[key] = value;
  };
  fill('syncVersion', 1);
  fill('deleted', false);
  fill('lastWriterId', turn.originInstanceId);
  fill('metadata', {});
  if (!Object.hasOwn(turn, 'parts') && typeof turn.content === 'string') turn.parts = partsFromContent(turn.content);
  else if (!Object.hasOwn(turn, 'content') && Array.isArray(turn.parts) && turn.parts.every(isObject)) turn.content = renderPartsText(turn.parts as Part[]);
  return turn;
}

function isObject(value: unknown): value is Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
