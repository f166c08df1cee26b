/**
 * The Stamper turns validated input plus the records it replaces into one
 * `state` change: ids, times, HLC, content and sync versions, envelope,
 * tombstones and optimistic-concurrency checks. It reads no store and writes
 * nothing, so every backend stamps identically (docs/architecture.md, the write path).
 */
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { IdGenerator } from '../ids/uuidv7.js';
import type { Clock } from '../time/clock.js';
import type { Hlc, HybridLogicalClock } from '../time/hlc.js';
import { formatInstant, MAX_INSTANT_MS } from '../time/instant.js';
import type { Instant } from '../time/instant.js';
import type { z } from 'zod';
import type { appendTurnInputSchema, createSessionInputSchema, upsertSkillInputSchema, writeMemoryInputSchema } from '../records/inputs.js';
import type { Envelope, MemoryItem, Session, Skill, Turn } from '../records/records.js';
import { toScope } from '../records/scope.js';
import { idField } from '../records/fields.js';
import { EventTypes } from '../log/events.js';
import type { StateChangeOf } from '../log/events.js';

/** What the stamper draws on: who writes, and the injected clocks and ids. */
export interface StamperContext {
  instanceId: string;
  clock: Clock;
  hlc: HybridLogicalClock;
  ids: IdGenerator;
}

/** Validated `sessions.create` input. */
export type SessionDraft = z.output<typeof createSessionInputSchema>;

/** Validated `sessions.appendTurn` input. */
export type TurnDraft = z.output<typeof appendTurnInputSchema>;

/** Validated `skills.upsert` input. */
export type SkillDraft = z.output<typeof upsertSkillInputSchema>;

/** Validated `memory.write` input. */
export type MemoryDraft = z.output<typeof writeMemoryInputSchema>;

/** The kind a memory item gets when the caller names none. */
export const DEFAULT_MEMORY_KIND = 'fact';

const later = (a: Instant, b: Instant): Instant => (a >= b ? a : b);

/** The earliest clock reading an instant can hold: 0000-01-01T00:00:00.000Z. */
const MIN_CLOCK_MS = -62_167_219_200_000;

/**
 * `value + 1`, or a `ValidationError` naming `field` when that would leave the
 * safe integers: the event would be one the decoder refuses (docs/contract.md §7). Not a
 * `ConflictError`, which is retryable: no retry can ever succeed.
 */
function increment(value: number, field: string): number {
  if (value >= Number.MAX_SAFE_INTEGER) throw new ValidationError(field, `is at its largest value (${Number.MAX_SAFE_INTEGER}) and cannot grow`);
  return value + 1;
}

/** Stamps changes of the `state` stream. */
export class Stamper {
  constructor(private readonly ctx: StamperContext) {}

  /** A new session; `existing` is whatever already holds the requested id. */
  createSession(draft: SessionDraft, existing: Session | undefined): StateChangeOf<typeof EventTypes.SessionCreated> {
    if (existing) throw new ConflictError(`session id already taken: ${existing.id}`);
    const createdAt = draft.createdAt ?? this.#now();
    const id = draft.id ?? this.#newId();
    const session: Session = {
      id,
      title: draft.title ?? '',
      model: draft.model ?? '',
      scope: toScope(draft.scope),
      createdAt,
      updatedAt: createdAt,
      ...this.#firstEnvelope(),
    };
    return { type: EventTypes.SessionCreated, payload: { session } };
  }

  /**
   * A turn with seq `lastSeq + 1`, and the session bumped by the same event:
   * `syncVersion + 1`, the turn's HLC, `updatedAt` that never moves back.
   */
  appendTurn(draft: TurnDraft, session: Session | undefined, lastSeq: number, turnIdTaken: boolean): StateChangeOf<typeof EventTypes.TurnAppended> {
    if (!session || session.deleted) throw new NotFoundError('session', draft.sessionId);
    if (turnIdTaken && draft.id !== undefined) throw new ConflictError(`turn id already taken: ${draft.id}`);
    const createdAt = draft.createdAt ?? this.#now();
    const id = draft.id ?? this.#newId();
    const envelope = this.#nextEnvelope(session, false);
    const turn: Turn = {
      id,
      sessionId: session.id,
      seq: increment(lastSeq, 'seq'),
      role: draft.role,
      content: draft.content,
      createdAt,
      syncVersion: 1,
      originInstanceId: this.ctx.instanceId,
      updatedHlc: envelope.updatedHlc,
      lastWriterId: this.ctx.instanceId,
      deleted: false,
    };
    const bumped: Session = { ...session, scope: [...session.scope], ...envelope, updatedAt: later(session.updatedAt, createdAt) };
    return { type: EventTypes.TurnAppended, payload: { session: bumped, turn } };
  }

  /** Tombstones a live session. */
  deleteSession(session: Session | undefined, id: string): StateChangeOf<typeof EventTypes.SessionDeleted> {
    if (!session || session.deleted) throw new NotFoundError('session', id);
    const tombstone: Session = {
      ...session,
      scope: [...session.scope],
      ...this.#nextEnvelope(session, true),
      updatedAt: later(session.updatedAt, this.#now()),
    };
    return { type: EventTypes.SessionDeleted, payload: { session: tombstone } };
  }

  /**
   * Creates or updates the skill at `(scope, slug)`. `stored` is the record
   * at that key (live or tombstone); `holderOfId` whatever holds the
   * requested id. Update keeps omitted fields, resurrects tombstones and
   * bumps `version` and `syncVersion`; a non-zero `syncVersion` must match.
   */
  upsertSkill(draft: SkillDraft, stored: Skill | undefined, holderOfId: Skill | undefined): StateChangeOf<typeof EventTypes.SkillUpserted> {
    const expected = draft.syncVersion ?? 0;
    if (expected !== 0 && expected !== stored?.syncVersion) {
      throw new ConflictError(
        stored
          ? `skill ${draft.slug} is at syncVersion ${stored.syncVersion}, not ${expected}`
          : `skill ${draft.slug} does not exist, so syncVersion ${expected} cannot match`,
      );
    }
    if (draft.id !== undefined && holderOfId && holderOfId.id !== stored?.id) {
      throw new ConflictError(`skill id already taken: ${draft.id}`);
    }
    if (stored && draft.id !== undefined && draft.id !== stored.id) {
      throw new ConflictError(`skill ${draft.slug} already exists with id ${stored.id}`);
    }
    const uses = draft.uses ?? stored?.uses ?? 0;
    const wins = draft.wins ?? stored?.wins ?? 0;
    if (wins > uses) throw new ValidationError('wins', `must not exceed uses (${wins} wins, ${uses} uses)`);
    if (!stored) {
      const createdAt = draft.createdAt ?? this.#now();
      const skill: Skill = {
        id: draft.id ?? this.#newId(),
        slug: draft.slug,
        name: draft.name ?? '',
        body: draft.body ?? '',
        tags: [...(draft.tags ?? [])],
        scope: toScope(draft.scope),
        uses,
        wins,
        check: draft.check ?? '',
        version: 1,
        createdAt,
        updatedAt: createdAt,
        ...this.#firstEnvelope(),
      };
      return { type: EventTypes.SkillUpserted, payload: { skill } };
    }
    const skill: Skill = {
      ...stored,
      name: draft.name ?? stored.name,
      body: draft.body ?? stored.body,
      tags: [...(draft.tags ?? stored.tags)],
      scope: [...stored.scope],
      uses,
      wins,
      check: draft.check ?? stored.check,
      version: increment(stored.version, 'version'),
      updatedAt: later(stored.updatedAt, this.#now()),
      ...this.#nextEnvelope(stored, false),
    };
    return { type: EventTypes.SkillUpserted, payload: { skill } };
  }

  /** One more use (and win on success); the content `version` stays. */
  recordOutcome(skill: Skill, success: boolean): StateChangeOf<typeof EventTypes.SkillUpserted> {
    const next: Skill = {
      ...skill,
      scope: [...skill.scope],
      tags: [...skill.tags],
      uses: increment(skill.uses, 'uses'),
      wins: success ? increment(skill.wins, 'wins') : skill.wins,
      updatedAt: later(skill.updatedAt, this.#now()),
      ...this.#nextEnvelope(skill, false),
    };
    return { type: EventTypes.SkillUpserted, payload: { skill: next } };
  }

  /** Tombstones a live skill; the content `version` moves too. */
  deleteSkill(skill: Skill): StateChangeOf<typeof EventTypes.SkillDeleted> {
    const tombstone: Skill = {
      ...skill,
      scope: [...skill.scope],
      tags: [...skill.tags],
      version: increment(skill.version, 'version'),
      updatedAt: later(skill.updatedAt, this.#now()),
      ...this.#nextEnvelope(skill, true),
    };
    return { type: EventTypes.SkillDeleted, payload: { skill: tombstone } };
  }

  /** A new memory item; `existing` is whatever already holds the requested id. */
  writeMemory(draft: MemoryDraft, existing: MemoryItem | undefined): StateChangeOf<typeof EventTypes.MemoryWritten> {
    if (existing) throw new ConflictError(`memory id already taken: ${existing.id}`);
    const createdAt = draft.createdAt ?? this.#now();
    const item: MemoryItem = {
      id: draft.id ?? this.#newId(),
      kind: draft.kind ?? DEFAULT_MEMORY_KIND,
      content: draft.content,
      scope: toScope(draft.scope),
      source: draft.source ?? '',
      createdAt,
      ...this.#firstEnvelope(),
    };
    return { type: EventTypes.MemoryWritten, payload: { item } };
  }

  /** Tombstones a live memory item. */
  deleteMemory(item: MemoryItem | undefined, id: string): StateChangeOf<typeof EventTypes.MemoryDeleted> {
    if (!item || item.deleted) throw new NotFoundError('memory', id);
    const tombstone: MemoryItem = { ...item, scope: [...item.scope], ...this.#nextEnvelope(item, true) };
    return { type: EventTypes.MemoryDeleted, payload: { item: tombstone } };
  }

  /** A generated id, refused when a custom generator yields one no decoder would accept. */
  #newId(): string {
    const id = this.ctx.ids.next();
    if (!idField.safeParse(id).success) throw new ValidationError('ids', `the id generator returned ${JSON.stringify(id).slice(0, 80)}, not a valid id`);
    return id;
  }

  #now(): Instant {
    const ms = this.ctx.clock.now();
    if (!(ms >= MIN_CLOCK_MS && ms <= MAX_INSTANT_MS)) throw new ValidationError('clock', `reads ${ms}, outside the instants years 0–9999 can hold`);
    return formatInstant(ms);
  }

  /** The next HLC; its wall is bounded like an instant's, so the decoder accepts it. */
  #hlcNow(): Hlc {
    const next = this.ctx.hlc.now();
    if (next.wall > MAX_INSTANT_MS) throw new ValidationError('clock', `the HLC reached ${next.wall}, beyond year 9999`);
    return next;
  }

  #firstEnvelope(): Envelope {
    return {
      syncVersion: 1,
      originInstanceId: this.ctx.instanceId,
      updatedHlc: this.#hlcNow(),
      lastWriterId: this.ctx.instanceId,
      deleted: false,
    };
  }

  /** The envelope of a replacement: always later than what it replaces. */
  #nextEnvelope(previous: Envelope, deleted: boolean): Envelope {
    this.ctx.hlc.observe(previous.updatedHlc);
    return {
      syncVersion: increment(previous.syncVersion, 'syncVersion'),
      originInstanceId: previous.originInstanceId,
      updatedHlc: this.#hlcNow(),
      lastWriterId: this.ctx.instanceId,
      deleted,
    };
  }
}
