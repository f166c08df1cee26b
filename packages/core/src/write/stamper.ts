/**
 * The Stamper turns validated input plus the records it replaces into one
 * `state` change: ids, times, HLC, content and sync versions, envelope,
 * tombstones and optimistic-concurrency checks. It reads no store and writes
 * nothing, so every backend stamps identically (docs/architecture.md, the write path).
 */
import { ConflictError, NotFoundError } from '../errors.js';
import type { IdGenerator } from '../ids/uuidv7.js';
import type { Clock } from '../time/clock.js';
import type { HybridLogicalClock } from '../time/hlc.js';
import { formatInstant } from '../time/instant.js';
import type { Instant } from '../time/instant.js';
import type { Envelope, MemoryItem, Session, Skill, Turn, TurnRole } from '../records/records.js';
import type { ScopeInput } from '../records/scope.js';
import { toScope } from '../records/scope.js';
import { EventTypes } from '../spine/events.js';
import type { StateChange } from '../spine/events.js';

/** What the stamper draws on: who writes, and the injected clocks and ids. */
export interface StamperContext {
  instanceId: string;
  clock: Clock;
  hlc: HybridLogicalClock;
  ids: IdGenerator;
}

/** Validated `sessions.create` input. */
export interface SessionDraft {
  id?: string | undefined;
  title?: string | undefined;
  model?: string | undefined;
  createdAt?: Instant | undefined;
}

/** Validated `sessions.appendTurn` input. */
export interface TurnDraft {
  sessionId: string;
  role: TurnRole;
  content: string;
  id?: string | undefined;
  createdAt?: Instant | undefined;
}

/** Validated `skills.upsert` input. */
export interface SkillDraft {
  slug: string;
  name?: string | undefined;
  body?: string | undefined;
  tags?: string[] | undefined;
  scope?: ScopeInput | undefined;
  check?: string | undefined;
  uses?: number | undefined;
  wins?: number | undefined;
  syncVersion?: number | undefined;
  id?: string | undefined;
  createdAt?: Instant | undefined;
}

/** Validated `memory.write` input. */
export interface MemoryDraft {
  content: string;
  kind?: string | undefined;
  scope?: ScopeInput | undefined;
  source?: string | undefined;
  id?: string | undefined;
  createdAt?: Instant | undefined;
}

/** The kind a memory item gets when the caller names none. */
export const DEFAULT_MEMORY_KIND = 'fact';

const later = (a: Instant, b: Instant): Instant => (a >= b ? a : b);

/** Stamps changes of the `state` stream. */
export class Stamper {
  constructor(private readonly ctx: StamperContext) {}

  /** A new session; `existing` is whatever already holds the requested id. */
  createSession(draft: SessionDraft, existing: Session | undefined): StateChange {
    if (existing) throw new ConflictError(`session id already taken: ${existing.id}`);
    const createdAt = draft.createdAt ?? this.#now();
    const id = draft.id ?? this.ctx.ids.next();
    const session: Session = {
      id,
      title: draft.title ?? '',
      model: draft.model ?? '',
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
  appendTurn(draft: TurnDraft, session: Session | undefined, lastSeq: number, turnIdTaken: boolean): StateChange {
    if (!session || session.deleted) throw new NotFoundError('session', draft.sessionId);
    if (turnIdTaken && draft.id !== undefined) throw new ConflictError(`turn id already taken: ${draft.id}`);
    const createdAt = draft.createdAt ?? this.#now();
    const id = draft.id ?? this.ctx.ids.next();
    const envelope = this.#nextEnvelope(session, false);
    const turn: Turn = {
      id,
      sessionId: session.id,
      seq: lastSeq + 1,
      role: draft.role,
      content: draft.content,
      createdAt,
      syncVersion: 1,
      originInstanceId: this.ctx.instanceId,
      updatedHlc: envelope.updatedHlc,
      lastWriterId: this.ctx.instanceId,
      deleted: false,
    };
    const bumped: Session = { ...session, ...envelope, updatedAt: later(session.updatedAt, createdAt) };
    return { type: EventTypes.TurnAppended, payload: { session: bumped, turn } };
  }

  /** Tombstones a live session. */
  deleteSession(session: Session | undefined, id: string): StateChange {
    if (!session || session.deleted) throw new NotFoundError('session', id);
    const tombstone: Session = { ...session, ...this.#nextEnvelope(session, true), updatedAt: later(session.updatedAt, this.#now()) };
    return { type: EventTypes.SessionDeleted, payload: { session: tombstone } };
  }

  /**
   * Creates or updates the skill at `(scope, slug)`. `stored` is the record
   * at that key (live or tombstone); `holderOfId` whatever holds the
   * requested id. Update keeps omitted fields, resurrects tombstones and
   * bumps `version` and `syncVersion`; a non-zero `syncVersion` must match.
   */
  upsertSkill(draft: SkillDraft, stored: Skill | undefined, holderOfId: Skill | undefined): StateChange {
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
    if (!stored) {
      const createdAt = draft.createdAt ?? this.#now();
      const skill: Skill = {
        id: draft.id ?? this.ctx.ids.next(),
        slug: draft.slug,
        name: draft.name ?? '',
        body: draft.body ?? '',
        tags: [...(draft.tags ?? [])],
        scope: toScope(draft.scope),
        uses: draft.uses ?? 0,
        wins: draft.wins ?? 0,
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
      scope: { ...stored.scope },
      uses: draft.uses ?? stored.uses,
      wins: draft.wins ?? stored.wins,
      check: draft.check ?? stored.check,
      version: stored.version + 1,
      updatedAt: later(stored.updatedAt, this.#now()),
      ...this.#nextEnvelope(stored, false),
    };
    return { type: EventTypes.SkillUpserted, payload: { skill } };
  }

  /** One more use (and win on success); the content `version` stays. */
  recordOutcome(skill: Skill, success: boolean): StateChange {
    const next: Skill = {
      ...skill,
      scope: { ...skill.scope },
      tags: [...skill.tags],
      uses: skill.uses + 1,
      wins: skill.wins + (success ? 1 : 0),
      updatedAt: later(skill.updatedAt, this.#now()),
      ...this.#nextEnvelope(skill, false),
    };
    return { type: EventTypes.SkillUpserted, payload: { skill: next } };
  }

  /** Tombstones a live skill; the content `version` moves too. */
  deleteSkill(skill: Skill): StateChange {
    const tombstone: Skill = {
      ...skill,
      scope: { ...skill.scope },
      tags: [...skill.tags],
      version: skill.version + 1,
      updatedAt: later(skill.updatedAt, this.#now()),
      ...this.#nextEnvelope(skill, true),
    };
    return { type: EventTypes.SkillDeleted, payload: { skill: tombstone } };
  }

  /** A new memory item; `existing` is whatever already holds the requested id. */
  writeMemory(draft: MemoryDraft, existing: MemoryItem | undefined): StateChange {
    if (existing) throw new ConflictError(`memory id already taken: ${existing.id}`);
    const createdAt = draft.createdAt ?? this.#now();
    const item: MemoryItem = {
      id: draft.id ?? this.ctx.ids.next(),
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
  deleteMemory(item: MemoryItem | undefined, id: string): StateChange {
    if (!item || item.deleted) throw new NotFoundError('memory', id);
    const tombstone: MemoryItem = { ...item, scope: { ...item.scope }, ...this.#nextEnvelope(item, true) };
    return { type: EventTypes.MemoryDeleted, payload: { item: tombstone } };
  }

  #now(): Instant {
    return formatInstant(this.ctx.clock.now());
  }

  #firstEnvelope(): Envelope {
    return {
      syncVersion: 1,
      originInstanceId: this.ctx.instanceId,
      updatedHlc: this.ctx.hlc.now(),
      lastWriterId: this.ctx.instanceId,
      deleted: false,
    };
  }

  /** The envelope of a replacement: always later than what it replaces. */
  #nextEnvelope(previous: Envelope, deleted: boolean): Envelope {
    this.ctx.hlc.observe(previous.updatedHlc);
    return {
      syncVersion: previous.syncVersion + 1,
      originInstanceId: previous.originInstanceId,
      updatedHlc: this.ctx.hlc.now(),
      lastWriterId: this.ctx.instanceId,
      deleted,
    };
  }
}
