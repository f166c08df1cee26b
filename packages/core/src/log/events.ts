/**
 * The `state` stream's vocabulary (docs/contract.md §7): event types and their payloads,
 * which are complete post-image records, so a fold needs no clock and no
 * random number. Defined once here and used by every backend.
 */
import { z } from 'zod';
import { memoryItemSchema, sessionSchema, skillSchema, turnSchema } from '../records/records.js';
import type { MemoryItem, Session, Skill, Turn } from '../records/records.js';

/** The stream every store mutation is appended to. */
export const STATE_STREAM = 'state';

/**
 * The payload schema version this code writes. Version 1 payloads (written
 * before) are read through the built-in upcasters of `./legacy`.
 */
export const STATE_SCHEMA_VERSION = 2;

/** Event type strings of the `state` stream. */
export const EventTypes = {
  SessionCreated: 'session.created',
  TurnAppended: 'session.turn_appended',
  SessionDeleted: 'session.deleted',
  SkillUpserted: 'skill.upserted',
  SkillDeleted: 'skill.deleted',
  MemoryWritten: 'memory.written',
  MemoryDeleted: 'memory.deleted',
  MemoryUpdated: 'memory.updated',
} as const;

/** One of the `state` stream's event types. */
export type StateEventType = (typeof EventTypes)[keyof typeof EventTypes];

/** Payload schemas by event type. */
export const statePayloadSchemas = {
  [EventTypes.SessionCreated]: z.strictObject({ session: sessionSchema }),
  [EventTypes.TurnAppended]: z.strictObject({ session: sessionSchema, turn: turnSchema }),
  [EventTypes.SessionDeleted]: z.strictObject({ session: sessionSchema }),
  [EventTypes.SkillUpserted]: z.strictObject({ skill: skillSchema }),
  [EventTypes.SkillDeleted]: z.strictObject({ skill: skillSchema }),
  [EventTypes.MemoryWritten]: z.strictObject({ item: memoryItemSchema }),
  [EventTypes.MemoryDeleted]: z.strictObject({ item: memoryItemSchema }),
  [EventTypes.MemoryUpdated]: z.strictObject({ item: memoryItemSchema }),
} as const;

/** A decoded `state` event: its type and its typed payload. */
export type StateChange =
  | { type: typeof EventTypes.SessionCreated; payload: { session: Session } }
  | { type: typeof EventTypes.TurnAppended; payload: { session: Session; turn: Turn } }
  | { type: typeof EventTypes.SessionDeleted; payload: { session: Session } }
  | { type: typeof EventTypes.SkillUpserted; payload: { skill: Skill } }
  | { type: typeof EventTypes.SkillDeleted; payload: { skill: Skill } }
  | { type: typeof EventTypes.MemoryWritten; payload: { item: MemoryItem } }
  | { type: typeof EventTypes.MemoryDeleted; payload: { item: MemoryItem } }
  | { type: typeof EventTypes.MemoryUpdated; payload: { item: MemoryItem } };

/** The change of one event type, with its payload typed: what a mutation of that kind returns. */
export type StateChangeOf<T extends StateEventType> = Extract<StateChange, { type: T }>;

/** True for a known `state` event type. */
export function isStateEventType(type: string): type is StateEventType {
  return Object.hasOwn(statePayloadSchemas, type);
}
