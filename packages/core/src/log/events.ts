/**
 * The `state` stream's vocabulary (docs/contract.md §7): event types and their payloads,
 * which are complete post-image records, so a fold needs no clock and no
 * random number. The one exception is `session.turn_appended`, the most
 * frequent event: it carries the new turn only, and the session's new
 * version is derived from the stored one and the turn ({@link sessionAfterTurn}).
 * Defined once here and used by every backend.
 */
import { z } from 'zod';
import {
  memoryItemSchema,
  sessionSchema,
  skillSchema,
  turnSchema,
  type MemoryItem,
  type Session,
  type Skill,
  type Turn,
  type WriteClock,
} from '../records/records.js';
import { checkpointSchema, checkpointWriteSchema } from '../records/checkpoints.js';
import { idField } from '../records/fields.js';
import { operationSchema } from './operation.js';
import { laterInstant } from '../time/instant.js';
import { compareHlc } from '../time/hlc.js';

/** The stream every store mutation is appended to. */
export const STATE_STREAM = 'state';

/**
 * The payload schema version this code writes. Payloads of versions 1 and 2
 * (written before) are read through the built-in upcasters of `./legacy`.
 * Version 3 stores a `session.turn_appended` without the session (see
 * {@link sessionAfterTurn}) and its turn compacted (see `./compact.ts`).
 */
export const STATE_SCHEMA_VERSION = 3;

/** Event type strings of the `state` stream. */
export const EventTypes = {
  SessionCreated: 'session.created',
  TurnAppended: 'session.turn_appended',
  SessionDeleted: 'session.deleted',
  TurnsRemoved: 'session.turns_removed',
  SuffixReplaced: 'session.suffix_replaced',
  SkillUpserted: 'skill.upserted',
  SkillDeleted: 'skill.deleted',
  MemoryWritten: 'memory.written',
  MemoryDeleted: 'memory.deleted',
  SkillOutcomeRecorded: 'skill.outcome_recorded',
  MemoryUpdated: 'memory.updated',
  CheckpointSaved: 'checkpoint.saved',
  CheckpointWritesSaved: 'checkpoint.writes_saved',
  CheckpointThreadDeleted: 'checkpoint.thread_deleted',
  RecordsPurged: 'records.purged',
  SessionUpdated: 'session.updated',
  SessionCompacted: 'session.compacted',
} as const;

/** One of the `state` stream's event types. */
export type StateEventType = (typeof EventTypes)[keyof typeof EventTypes];

/** The optional `operation` key every payload may carry (see `./operation.ts`). */
const operation = operationSchema.optional();

/**
 * The optional `erasedBy` key: the seq of the `records.purged` event that
 * rewrote this event's erased records in place (docs/contract.md §7, "Purge").
 */
const erasedBy = z.number().int().positive().optional();

/** Why a purge was made: short text, never the erased content. */
export const purgeReasonSchema = z.string().min(1, 'must not be empty').max(500, 'at most 500 characters');

/** What `skill.outcome_recorded` adds: one use, and one win on success. */
export const outcomeIncrementSchema = z.strictObject({ uses: z.literal(1), wins: z.union([z.literal(0), z.literal(1)]) });

/** What `skill.outcome_recorded` adds. */
export type OutcomeIncrement = z.output<typeof outcomeIncrementSchema>;

/** Payload schemas by event type. */
export const statePayloadSchemas = {
  [EventTypes.SessionCreated]: z.strictObject({ session: sessionSchema, operation, erasedBy }),
  /**
   * The new turn. `session`, the session's post-image, only in events of
   * schema versions 1 and 2, which stored it: it is then checked and
   * projected as it stands; without it, the fold derives it.
   */
  [EventTypes.TurnAppended]: z.strictObject({ session: sessionSchema.optional(), turn: turnSchema, operation, erasedBy }),
  [EventTypes.SessionDeleted]: z.strictObject({ session: sessionSchema, operation, erasedBy }),
  /** A live session's next version: its title, metadata or scope changed (`sessions.update`). */
  [EventTypes.SessionUpdated]: z.strictObject({ session: sessionSchema, operation, erasedBy }),
  /** A live session's next version with a new `summary` (`sessions.compact`); its transcript stays whole. */
  [EventTypes.SessionCompacted]: z.strictObject({ session: sessionSchema, operation, erasedBy }),
  [EventTypes.TurnsRemoved]: z.strictObject({ session: sessionSchema, turns: z.array(turnSchema).min(1), operation, erasedBy }),
  [EventTypes.SuffixReplaced]: z.strictObject({ session: sessionSchema, removed: z.array(turnSchema), added: z.array(turnSchema), operation, erasedBy }),
  [EventTypes.SkillUpserted]: z.strictObject({ skill: skillSchema, operation, erasedBy }),
  [EventTypes.SkillDeleted]: z.strictObject({ skill: skillSchema, operation, erasedBy }),
  [EventTypes.MemoryWritten]: z.strictObject({ item: memoryItemSchema, operation, erasedBy }),
  [EventTypes.MemoryDeleted]: z.strictObject({ item: memoryItemSchema, operation, erasedBy }),
  [EventTypes.SkillOutcomeRecorded]: z.strictObject({ skill: skillSchema, increment: outcomeIncrementSchema, operation, erasedBy }),
  [EventTypes.MemoryUpdated]: z.strictObject({ item: memoryItemSchema, operation, erasedBy }),
  [EventTypes.CheckpointSaved]: z.strictObject({ checkpoint: checkpointSchema, operation }),
  /** The writes that change the projection: one task's, against one checkpoint. */
  [EventTypes.CheckpointWritesSaved]: z.strictObject({ writes: z.array(checkpointWriteSchema).min(1), operation }),
  /** Removes every checkpoint and write of the thread. */
  [EventTypes.CheckpointThreadDeleted]: z.strictObject({ threadId: idField, operation }),
  /**
   * Erased tombstones of every record a purge removed (docs/contract.md §7, "Purge"): who and why
   * are the envelope's `actor` and `reason`; the erased text never appears.
   */
  [EventTypes.RecordsPurged]: z.strictObject({
    sessions: z.array(sessionSchema),
    turns: z.array(turnSchema),
    skills: z.array(skillSchema),
    memory: z.array(memoryItemSchema),
    reason: purgeReasonSchema,
    operation,
  }),
} as const;

/** The records one purge erased, as their erased tombstones. */
export interface PurgedRecords {
  sessions: Session[];
  turns: Turn[];
  skills: Skill[];
  memory: MemoryItem[];
}

/**
 * A decoded `state` event: its type and its payload as the schema of that type gives it. `received`:
 * the event came from another store (its row has an origin), so the fold may merge it (docs/contract.md §12, "Merge").
 */
export type StateChange = {
  [T in StateEventType]: { type: T; payload: z.output<(typeof statePayloadSchemas)[T]>; received?: true };
}[StateEventType];

/** The change of one event type, with its payload typed: what a mutation of that kind returns. */
export type StateChangeOf<T extends StateEventType> = Extract<StateChange, { type: T }>;

/** True for a known `state` event type. */
export function isStateEventType(type: string): type is StateEventType {
  return Object.hasOwn(statePayloadSchemas, type);
}

/**
 * The session after `turn` was appended to it by a `session.turn_appended`
 * that does not carry it: one version later, with the turn's clock and
 * writer, live, and last updated at the later of its `updatedAt` and the
 * turn's `createdAt`. Exactly what the stamper writes, so every backend's
 * fold derives the same record.
 */
export function sessionAfterTurn(session: Session, turn: Pick<Turn, 'createdAt' | 'updatedHlc' | 'lastWriterId'>): Session {
  // One literal in the stamper's key order rather than a spread: this runs once per turn of every fold.
  const next: Session = {
    id: session.id,
    title: session.title,
    model: session.model,
    metadata: session.metadata,
    scope: session.scope,
    createdAt: session.createdAt,
    updatedAt: laterInstant(session.updatedAt, turn.createdAt),
    syncVersion: session.syncVersion + 1,
    originInstanceId: session.originInstanceId,
    updatedHlc: turn.updatedHlc,
    lastWriterId: turn.lastWriterId,
    deleted: false,
  };
  if (session.summary !== undefined) next.summary = session.summary;
  if (session.fieldsClock !== undefined) next.fieldsClock = session.fieldsClock;
  return next;
}

/** `session`, the post-image of a field write (`sessions.update`, `delete`), with its own clock and writer as its fields'. */
export function withFieldsClock(session: Session): Session {
  return { ...session, fieldsClock: { updatedHlc: { ...session.updatedHlc }, lastWriterId: session.lastWriterId } };
}

/** The clock and writer of a skill's latest content write (its creation, `upsert`, `delete`): its own while it holds none. */
export function contentClockOf(skill: Skill): WriteClock {
  return skill.contentClock ?? { updatedHlc: skill.updatedHlc, lastWriterId: skill.lastWriterId };
}

/**
 * `skill` with `clock` as its latest content write's and `outcomes` (absent: none) as its outcomes' totals. The
 * clock is left out when it is the skill's own (its latest version is that content write), so that every store
 * holds one form of one set of versions (docs/contract.md §12).
 */
export function withSkillCounts(skill: Skill, clock: WriteClock, outcomes: Skill['outcomes']): Skill {
  // In the order of the skill's fields, the envelope last, as a skill read back lists them.
  const { contentClock: _clock, outcomes: _outcomes, syncVersion, originInstanceId, updatedHlc, lastWriterId, deleted, ...content } = skill;
  const own = compareHlc(clock.updatedHlc, updatedHlc) === 0 && clock.lastWriterId === lastWriterId;
  return {
    ...content,
    ...(own ? {} : { contentClock: { updatedHlc: { ...clock.updatedHlc }, lastWriterId: clock.lastWriterId } }),
    ...(outcomes === undefined ? {} : { outcomes: { ...outcomes } }),
    syncVersion,
    originInstanceId,
    updatedHlc,
    lastWriterId,
    deleted,
  };
}

/** The totals of a skill's outcomes (absent: none) with one more outcome's `increment` added. */
export function withOutcome(outcomes: Skill['outcomes'], increment: OutcomeIncrement): NonNullable<Skill['outcomes']> {
  return { uses: (outcomes?.uses ?? 0) + increment.uses, wins: (outcomes?.wins ?? 0) + increment.wins };
}

/**
 * The stream of retention policies (docs/contract.md §11), beside `state` in
 * the same log so every process and face reads the same policies. Its
 * events never touch the read model: they are read by the retention filter.
 */
export const RETENTION_STREAM = 'retention';

/** Event types of the `retention` stream: payload `{ policy }`, and `{ id }` on removal. */
export const RetentionEventTypes = {
  PolicySet: 'retention.policy_set',
  PolicyRemoved: 'retention.policy_removed',
} as const;
