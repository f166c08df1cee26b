/**
 * How a change is stored (schema version 3): as its payload, except that
 * the new turn of a `session.turn_appended` leaves out every field a reader
 * derives from the rest of it, the most frequent event being also the one
 * most worth keeping small. Each field is left out only when it equals what
 * {@link expandStoredPayload} puts back, so reading gives the turn exactly.
 */
import { partsFromContent, renderPartsText, type Part } from '../records/parts.js';
import type { Turn } from '../records/records.js';
import { type StateChange, EventTypes } from './events.js';

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
  const { syncVersion, deleted, lastWriterId, metadata, parts, content } = turn;
  // The fields always kept, named in the turn's key order: an object rest pattern costs a runtime call per turn.
  const stored: Loose = {
    id: turn.id,
    sessionId: turn.sessionId,
    seq: turn.seq,
    role: turn.role,
    createdAt: turn.createdAt,
    originInstanceId: turn.originInstanceId,
    updatedHlc: turn.updatedHlc,
  };
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
  // `''` gives no part at all, so an empty text part is more than the content gives.
  if (parts.length === 0 || content === '') return parts.length === 0 && content === '';
  const [part] = parts;
  return parts.length === 1 && part!.type === 'text' && part!.text === content && Object.keys(part!).length === 2;
}

/**
 * A stored payload of the current schema version with every left-out field
 * put back. Anything that is not the shape it expects is returned
 * unchanged, for the decoder to refuse. `validated`: the payload is known
 * to decode (a log checked it on append), so the turn is built in one step
 * with the stamper's key order, and nothing is kept for the decoder to refuse.
 */
export function expandStoredPayload(type: string, payload: unknown, validated = false): unknown {
  if (type !== EventTypes.TurnAppended || !isObject(payload) || !isObject(payload.turn)) return payload;
  return { ...payload, turn: validated ? expandValidTurn(payload.turn as Partial<Turn>) : expandTurn(payload.turn) };
}

/** {@link expandTurn} of a stored turn known to be valid: one object literal, the shape every stamped turn has. */
function expandValidTurn(stored: Partial<Turn>): Turn {
  const parts = stored.parts ?? partsFromContent(stored.content!);
  return {
    id: stored.id!,
    sessionId: stored.sessionId!,
    seq: stored.seq!,
    role: stored.role!,
    content: stored.content ?? renderPartsText(parts),
    parts,
    metadata: stored.metadata ?? {},
    createdAt: stored.createdAt!,
    syncVersion: stored.syncVersion ?? 1,
    originInstanceId: stored.originInstanceId!,
    updatedHlc: stored.updatedHlc!,
    lastWriterId: stored.lastWriterId ?? stored.originInstanceId!,
    deleted: stored.deleted ?? false,
  };
}

function expandTurn(stored: Loose): Loose {
  const turn: Loose = { ...stored };
  // Only an absent field is filled: a present but malformed one (null included) stays, for the decoder to refuse.
  // Named stores, not a loop over keys: this runs once per turn event of every fold.
  if (!Object.hasOwn(turn, 'syncVersion')) turn.syncVersion = 1;
  if (!Object.hasOwn(turn, 'deleted')) turn.deleted = false;
  if (!Object.hasOwn(turn, 'lastWriterId')) turn.lastWriterId = turn.originInstanceId;
  if (!Object.hasOwn(turn, 'metadata')) turn.metadata = {};
  if (!Object.hasOwn(turn, 'parts') && typeof turn.content === 'string') turn.parts = partsFromContent(turn.content);
  else if (!Object.hasOwn(turn, 'content') && Array.isArray(turn.parts) && turn.parts.every(isObject)) turn.content = renderPartsText(turn.parts as Part[]);
  return turn;
}

function isObject(value: unknown): value is Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
