/**
 * Payload schema version 1, the shape written before version 2 (docs/contract.md §7):
 * how its records become today's. Record-level steps are shared by the event
 * upcasters and by snapshots of format 1, so an old event and an old snapshot
 * of the same record read the same.
 */
import { partsFromContent } from '../../records/parts.js';
import { type LegacyScope, legacyScope } from '../../records/scope.js';
import type { UpcasterRegistry } from '../upcasters.js';

/** A record as version 1 stored it: a JSON object whose keys the step below fills in. */
type V1Record = Record<string, unknown>;

/**
 * A version 1 scope object as a path, by the legacy rule. Anything that is
 * not an object of strings is passed on unchanged, for the decoder to refuse.
 */
function upcastV1Scope(scope: unknown): unknown {
  if (scope === null || typeof scope !== 'object' || Array.isArray(scope)) return scope;
  if (!Object.values(scope).every((level) => typeof level === 'string')) return scope;
  return legacyScope(scope as LegacyScope);
}

/** A version 1 session, as version 2 reads it: sessions had no scope, so it is global; no metadata. */
export function upcastV1Session(session: V1Record): V1Record {
  return { ...session, scope: [], metadata: {} };
}

/**
 * A version 1 turn, as version 2 reads it: its parts from its content by the
 * content rendering rule (one text part, none for `''`), no metadata. A
 * content that is not text is left for the decoder to refuse.
 */
export function upcastV1Turn(turn: V1Record): V1Record {
  const parts = typeof turn.content === 'string' ? partsFromContent(turn.content) : [];
  return { ...turn, parts, metadata: {} };
}

/** A version 1 skill, as version 2 reads it. */
export function upcastV1Skill(skill: V1Record): V1Record {
  return { ...skill, scope: upcastV1Scope(skill.scope) };
}

/**
 * A version 1 memory item, as version 2 reads it: no key, no metadata, no
 * expiry, and last written when it was created (version 1 never changed an item).
 */
export function upcastV1MemoryItem(item: V1Record): V1Record {
  return { key: null, metadata: {}, expiresAt: null, updatedAt: item.createdAt, ...item, scope: upcastV1Scope(item.scope) };
}

const RECORD_STEPS: Record<string, (record: V1Record) => V1Record> = {
  session: upcastV1Session,
  turn: upcastV1Turn,
  skill: upcastV1Skill,
  item: upcastV1MemoryItem,
};

/** The event types version 1 wrote; each payload holds records under the keys of {@link RECORD_STEPS}. */
const V1_EVENT_TYPES = [
  'session.created',
  'session.turn_appended',
  'session.deleted',
  'skill.upserted',
  'skill.deleted',
  'memory.written',
  'memory.deleted',
] as const;

/**
 * Upcasts each record of a version 1 payload. Anything that is not an
 * object is passed on unchanged, for the decoder to refuse as malformed.
 */
function upcastV1Payload(payload: unknown): unknown {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return payload;
  const next: Record<string, unknown> = { ...payload };
  for (const [key, value] of Object.entries(next)) {
    const step = RECORD_STEPS[key];
    if (step && value !== null && typeof value === 'object' && !Array.isArray(value)) next[key] = step(value as V1Record);
  }
  return next;
}

/** Registers the version 1 → 2 step of every event type version 1 wrote. */
export function registerV1Upcasters(registry: UpcasterRegistry): UpcasterRegistry {
  for (const type of V1_EVENT_TYPES) registry.register(type, 1, upcastV1Payload);
  return registry;
}
