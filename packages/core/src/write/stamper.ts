/**
 * The Stamper turns validated input plus the records it replaces into one
 * `state` change: ids, times, HLC, content and sync versions, envelope,
 * tombstones and optimistic-concurrency checks. It reads no store and writes
 * nothing, so every backend stamps identically (docs/architecture.md, the write path).
 */
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { memoryId, skillId } from '../ids/key-id.js';
import { type IdGenerator, UuidV7Generator } from '../ids/uuidv7.js';
import type { Clock } from '../time/clock.js';
import type { Hlc, HybridLogicalClock } from '../time/hlc.js';
import { formatInstant, laterInstant as later, MAX_INSTANT_MS, type Instant } from '../time/instant.js';
import type { z } from 'zod';
import type {
  appendTurnInputSchema,
  createSessionInputSchema,
  replaceSuffixInputSchema,
  turnInputSchema,
  updateMemoryInputSchema,
  updateSessionInputSchema,
  compactSessionInputSchema,
  upsertSkillInputSchema,
  writeMemoryInputSchema,
} from '../records/inputs.js';
import type { putCheckpointInputSchema, putWritesInputSchema } from '../records/checkpoint-inputs.js';
import type { Checkpoint, CheckpointWrite } from '../records/checkpoints.js';
import { partsFromContent, renderPartsText } from '../records/parts.js';
import { type Envelope, keepingAppendClock, type MemoryItem, type Session, type Skill, type Turn } from '../records/records.js';
import { toScope } from '../records/scope.js';
import { idField } from '../records/fields.js';
import { contentClockOf, EventTypes, type PurgedRecords, type StateChangeOf, withFieldsClock, withOutcome, withSkillCounts } from '../log/events.js';
import { eraseMemoryItem, eraseSession, eraseSkill, eraseTurn } from '../log/redact.js';

/** What the stamper draws on: who writes, and the injected clocks and ids. */
export interface StamperContext {
  instanceId: string;
  clock: Clock;
  hlc: HybridLogicalClock;
  ids: IdGenerator;
}

type SessionDraft = z.output<typeof createSessionInputSchema>;
type SessionPatch = z.output<typeof updateSessionInputSchema>;
type CompactDraft = z.output<typeof compactSessionInputSchema>;
type TurnDraft = z.output<typeof appendTurnInputSchema>;
type TurnInputDraft = z.output<typeof turnInputSchema>;
type ReplaceSuffixDraft = z.output<typeof replaceSuffixInputSchema>;
type SkillDraft = z.output<typeof upsertSkillInputSchema>;
type MemoryDraft = z.output<typeof writeMemoryInputSchema>;
type MemoryPatch = z.output<typeof updateMemoryInputSchema>;
type CheckpointDraft = z.output<typeof putCheckpointInputSchema>;
type WritesDraft = z.output<typeof putWritesInputSchema>;

/** True when `item` has expired at `now`: it is invisible to reads (docs/contract.md, memory expiry). */
export function isExpired(item: MemoryItem, now: Instant): boolean {
  return item.expiresAt !== null && item.expiresAt <= now;
}

/** The kind a memory item gets when the caller names none. */
export const DEFAULT_MEMORY_KIND = 'fact';

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

/** A `ConflictError` unless `expected` (0 or absent: any) is the stored syncVersion of `what`. */
function checkSyncVersion(what: string, stored: Envelope, expected = 0): void {
  if (expected !== 0 && expected !== stored.syncVersion) throw new ConflictError(`${what} is at syncVersion ${stored.syncVersion}, not ${expected}`);
}

/** The fields a write that leaves them out gives an item it writes afresh (over an expired or deleted item). */
const FRESH_MEMORY = { kind: DEFAULT_MEMORY_KIND, source: '', metadata: {}, expiresAt: null } as const satisfies Partial<MemoryItem>;

/** `stored`'s content fields with those `patch` gives: `metadata` as a whole, `null` clearing `key` and `expiresAt`. */
function patched(stored: MemoryItem, patch: MemoryPatch): Pick<MemoryItem, 'content' | 'kind' | 'source' | 'key' | 'metadata' | 'expiresAt'> {
  return {
    content: patch.content ?? stored.content,
    kind: patch.kind ?? stored.kind,
    source: patch.source ?? stored.source,
    key: patch.key === undefined ? stored.key : patch.key,
    metadata: patch.metadata ?? structuredClone(stored.metadata),
    expiresAt: patch.expiresAt === undefined ? stored.expiresAt : patch.expiresAt,
  };
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
      metadata: draft.metadata ?? {},
      scope: toScope(draft.scope),
      createdAt,
      updatedAt: createdAt,
      ...this.#firstEnvelope(),
    };
    return { type: EventTypes.SessionCreated, payload: { session } };
  }

  /**
   * A turn with seq `lastSeq + 1`, carrying the session's next envelope. The
   * event does not carry the session: its next version (`syncVersion + 1`,
   * the turn's HLC, `updatedAt` that never moves back) is derived from the
   * stored one by `sessionAfterTurn`.
   */
  appendTurn(draft: TurnDraft, session: Session | undefined, lastSeq: number, turnIdTaken: boolean): StateChangeOf<typeof EventTypes.TurnAppended> {
    if (!session || session.deleted) throw new NotFoundError('session', draft.sessionId);
    if (turnIdTaken && draft.id !== undefined) throw new ConflictError(`turn id already taken: ${draft.id}`);
    // The session's syncVersion grows with the turn: refused here, while it can still be refused.
    const envelope = this.#nextEnvelope(session, false);
    const turn = this.#newTurn(draft, session, increment(lastSeq, 'seq'), envelope);
    return { type: EventTypes.TurnAppended, payload: { turn } };
  }

  /**
   * Tombstones `live`, the session's newest live turns (oldest first, at
   * least one), and bumps the session once; every tombstone carries the
   * session's new HLC.
   */
  removeTurns(session: Session | undefined, id: string, live: readonly Turn[]): StateChangeOf<typeof EventTypes.TurnsRemoved> {
    if (!session || session.deleted) throw new NotFoundError('session', id);
    if (live.length === 0) throw new NotFoundError('turn', `the last live turn of session ${id}`);
    const envelope = this.#nextEnvelope(session, false);
    const turns = live.map((t) => this.#tombstoneTurn(t, envelope));
    const bumped: Session = { ...session, ...envelope, updatedAt: later(session.updatedAt, this.#now()) };
    return { type: EventTypes.TurnsRemoved, payload: { session: bumped, turns } };
  }

  /**
   * Replaces the live suffix `tail` (the newest `draft.expected.length` live
   * turns, oldest first) by new turns numbered from `lastSeq + 1`, in one
   * event. `ConflictError` when the transcript does not end with exactly
   * `draft.expected`, or when a requested turn id is taken (`takenIds`).
   */
  replaceSuffix(
    draft: ReplaceSuffixDraft,
    session: Session | undefined,
    id: string,
    tail: readonly Turn[],
    lastSeq: number,
    takenIds: ReadonlySet<string>,
  ): StateChangeOf<typeof EventTypes.SuffixReplaced> {
    if (!session || session.deleted) throw new NotFoundError('session', id);
    const actual = tail.map((t) => t.id);
    if (actual.length !== draft.expected.length || actual.some((turnId, i) => turnId !== draft.expected[i])) {
      throw new ConflictError(`the transcript of session ${id} ends with ${JSON.stringify(actual)}, not ${JSON.stringify(draft.expected)}`);
    }
    const requested = new Set<string>();
    for (const turn of draft.turns) {
      if (turn.id === undefined) continue;
      if (takenIds.has(turn.id) || requested.has(turn.id)) throw new ConflictError(`turn id already taken: ${turn.id}`);
      requested.add(turn.id);
    }
    const envelope = this.#nextEnvelope(session, false);
    const removed = tail.map((t) => this.#tombstoneTurn(t, envelope));
    let seq = lastSeq;
    const added = draft.turns.map((t) => {
      seq = increment(seq, 'seq');
      return this.#newTurn(t, session, seq, envelope);
    });
    let updatedAt = removed.length > 0 ? later(session.updatedAt, this.#now()) : session.updatedAt;
    for (const turn of added) updatedAt = later(updatedAt, turn.createdAt);
    const bumped: Session = { ...session, ...envelope, updatedAt };
    return { type: EventTypes.SuffixReplaced, payload: { session: bumped, removed, added } };
  }

  /**
   * A new turn of `session` sharing the session's new envelope clock. The
   * content rendering rule (docs/contract.md §2): content alone gives one
   * text part; parts alone give content from their text parts.
   */
  #newTurn(draft: TurnInputDraft, session: Session, seq: number, envelope: Envelope): Turn {
    const parts = draft.parts ?? partsFromContent(draft.content ?? '');
    return {
      id: draft.id ?? this.#newId(),
      sessionId: session.id,
      seq,
      role: draft.role,
      content: draft.content ?? renderPartsText(parts),
      parts,
      metadata: draft.metadata ?? {},
      createdAt: draft.createdAt ?? this.#now(),
      syncVersion: 1,
      originInstanceId: this.ctx.instanceId,
      updatedHlc: envelope.updatedHlc,
      lastWriterId: this.ctx.instanceId,
      deleted: false,
    };
  }

  /** A turn's tombstone, written by the event whose session envelope is `envelope`. */
  #tombstoneTurn(turn: Turn, envelope: Envelope): Turn {
    return {
      ...keepingAppendClock(turn),
      syncVersion: increment(turn.syncVersion, 'syncVersion'),
      updatedHlc: envelope.updatedHlc,
      lastWriterId: this.ctx.instanceId,
      deleted: true,
    };
  }

  /**
   * The next version of a live session: a given title, metadata or scope
   * replaces the stored one, omitted ones stay; a non-zero `syncVersion`
   * must match. `model` and `createdAt` never change.
   */
  updateSession(patch: SessionPatch, stored: Session | undefined, id: string): StateChangeOf<typeof EventTypes.SessionUpdated> {
    if (!stored || stored.deleted) throw new NotFoundError('session', id);
    checkSyncVersion(`session ${id}`, stored, patch.syncVersion);
    const session = this.#next(stored, false, {
      title: patch.title ?? stored.title,
      metadata: patch.metadata ?? structuredClone(stored.metadata),
      scope: patch.scope === undefined ? [...stored.scope] : toScope(patch.scope),
    });
    return { type: EventTypes.SessionUpdated, payload: { session: withFieldsClock(session) } };
  }

  /**
   * The next version of a live session with a new summary through the turn of `turns` (its live
   * transcript) that `draft.through` names by id or seq; it replaces any earlier summary.
   */
  compactSession(draft: CompactDraft, stored: Session | undefined, id: string, turns: readonly Turn[]): StateChangeOf<typeof EventTypes.SessionCompacted> {
    if (!stored || stored.deleted) throw new NotFoundError('session', id);
    const { through } = draft;
    const turn = turns.find((t) => (typeof through === 'number' ? t.seq === through : t.id === through));
    if (!turn) throw new NotFoundError('turn', String(through), `name a live turn of session ${id}, by its id or seq`);
    const next = this.#next(stored, false);
    const session: Session = {
      ...next,
      summary: {
        text: draft.summary,
        through: turn.id,
        ...(draft.model !== undefined && { model: draft.model }),
        ...(draft.tokens !== undefined && { tokens: draft.tokens }),
        createdAt: next.updatedAt,
        updatedHlc: next.updatedHlc,
        lastWriterId: next.lastWriterId,
      },
    };
    return { type: EventTypes.SessionCompacted, payload: { session } };
  }

  /**
   * The next version of a live session whose summary a purge made stale (`stored.summary` covers a turn it
   * erased): the summary kept, marked `stale`, with this version's clock and writer.
   */
  staleSummary(stored: Session): StateChangeOf<typeof EventTypes.SessionCompacted> {
    const next = this.#next(stored, false);
    const summary = { ...stored.summary!, stale: true as const, updatedHlc: next.updatedHlc, lastWriterId: next.lastWriterId };
    return { type: EventTypes.SessionCompacted, payload: { session: { ...next, summary } } };
  }

  /** Tombstones a live session. */
  deleteSession(session: Session | undefined, id: string): StateChangeOf<typeof EventTypes.SessionDeleted> {
    if (!session || session.deleted) throw new NotFoundError('session', id);
    return { type: EventTypes.SessionDeleted, payload: { session: withFieldsClock(this.#next(session, true)) } };
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
    const id = stored?.id ?? skillId(toScope(draft.scope), draft.slug);
    if (draft.id !== undefined && draft.id !== id) throw new ValidationError('id', `must be ${id}, the id a new skill of this scope and slug has`);
    const uses = draft.uses ?? stored?.uses ?? 0;
    const wins = draft.wins ?? stored?.wins ?? 0;
    if (wins > uses) throw new ValidationError('wins', `must not exceed uses (${wins} wins, ${uses} uses)`);
    if (!stored) {
      const createdAt = draft.createdAt ?? this.#now();
      const skill: Skill = {
        id,
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
    const skill = this.#next(stored, false, {
      name: draft.name ?? stored.name,
      body: draft.body ?? stored.body,
      tags: [...(draft.tags ?? stored.tags)],
      uses,
      wins,
      check: draft.check ?? stored.check,
      version: increment(stored.version, 'version'),
    });
    return { type: EventTypes.SkillUpserted, payload: { skill: withSkillCounts(skill, skill, stored.outcomes) } };
  }

  /**
   * One more use (and win on success) as its own event, carrying the
   * increment beside the post-image; the content `version` stays.
   */
  recordOutcome(skill: Skill, success: boolean): StateChangeOf<typeof EventTypes.SkillOutcomeRecorded> {
    const next = this.#next(skill, false, {
      tags: [...skill.tags],
      uses: increment(skill.uses, 'uses'),
      wins: success ? increment(skill.wins, 'wins') : skill.wins,
    });
    const outcome = { uses: 1, wins: success ? 1 : 0 } as const;
    return {
      type: EventTypes.SkillOutcomeRecorded,
      payload: { skill: withSkillCounts(next, contentClockOf(skill), withOutcome(skill.outcomes, outcome)), increment: outcome },
    };
  }

  /** Tombstones a live skill; the content `version` moves too. */
  deleteSkill(skill: Skill): StateChangeOf<typeof EventTypes.SkillDeleted> {
    const tombstone = this.#next(skill, true, { tags: [...skill.tags], version: increment(skill.version, 'version') });
    return { type: EventTypes.SkillDeleted, payload: { skill: withSkillCounts(tombstone, tombstone, skill.outcomes) } };
  }

  /**
   * A memory write (docs/contract.md §4, "Keys are slots"): when `keyHolder` (the live item of the draft's
   * scope holding its key) exists, an update of that item; else the item of the key, whose id is
   * `memoryId(scope, key)`, created or, held as a tombstone, brought back; an unkeyed draft creates an item
   * with a new id (or the caller's). `existing` is whatever holds the id the write takes.
   */
  writeMemory(
    draft: MemoryDraft,
    existing: MemoryItem | undefined,
    keyHolder: MemoryItem | undefined,
  ): StateChangeOf<typeof EventTypes.MemoryWritten> | StateChangeOf<typeof EventTypes.MemoryUpdated> {
    // The key's own item, live, holds the key even when the key look-up missed it: a writer on another
    // connection created it between the two reads of this write (PostgreSQL reads each statement afresh).
    if (keyHolder === undefined && draft.key != null && existing !== undefined && !existing.deleted && existing.key === draft.key) keyHolder = existing;
    if (keyHolder) {
      if (draft.id !== undefined && draft.id !== keyHolder.id) {
        throw new ConflictError(`memory key ${JSON.stringify(keyHolder.key)} is held by item ${keyHolder.id}, not ${draft.id}`);
      }
      // An expired holder is reused as if it were absent: omitted fields take the defaults of a new write.
      return this.updateMemory({ ...draft, syncVersion: 0 }, isExpired(keyHolder, this.#now()) ? { ...keyHolder, ...FRESH_MEMORY } : keyHolder);
    }
    const scope = toScope(draft.scope);
    const id = draft.key == null ? (draft.id ?? this.#newId()) : memoryId(scope, draft.key);
    if (draft.id !== undefined && draft.id !== id) throw new ValidationError('id', `must be ${id}, the id of the item of this scope and key`);
    // The key's item, deleted (or purged, its key erased): the write is its next version, its omitted fields those of a new write.
    if (draft.key != null && existing?.deleted) return this.updateMemory({ ...draft, syncVersion: 0 }, { ...existing, ...FRESH_MEMORY });
    if (existing) throw new ConflictError(`memory id already taken: ${existing.id}`);
    const createdAt = draft.createdAt ?? this.#now();
    const item: MemoryItem = {
      id,
      kind: draft.kind ?? DEFAULT_MEMORY_KIND,
      content: draft.content,
      scope,
      source: draft.source ?? '',
      key: draft.key ?? null,
      metadata: draft.metadata ?? {},
      expiresAt: draft.expiresAt ?? null,
      createdAt,
      updatedAt: createdAt,
      ...this.#firstEnvelope(),
    };
    return { type: EventTypes.MemoryWritten, payload: { item } };
  }

  /**
   * The next version of a live item: given fields replace, omitted ones
   * stay; a non-zero `syncVersion` must match. The key stays: a new one is {@link rekeyMemory}'s.
   */
  updateMemory(patch: MemoryPatch, stored: MemoryItem): StateChangeOf<typeof EventTypes.MemoryUpdated> {
    checkSyncVersion(`memory item ${stored.id}`, stored, patch.syncVersion);
    return { type: EventTypes.MemoryUpdated, payload: { item: this.#next(stored, false, patched(stored, patch)) } };
  }

  /**
   * A live item given another key (docs/contract.md §4, `memory.update`): the item of that key written with
   * the patched fields (`atKey` is whatever holds its id; for no key, a new item), then `stored` deleted, so
   * a key's item keeps the key's id. The caller checks that no other live item holds the key (`keyTaken`).
   */
  rekeyMemory(
    patch: MemoryPatch,
    stored: MemoryItem,
    keyTaken: boolean,
    atKey: MemoryItem | undefined,
  ): [ReturnType<Stamper['writeMemory']>, StateChangeOf<typeof EventTypes.MemoryDeleted>] {
    checkSyncVersion(`memory item ${stored.id}`, stored, patch.syncVersion);
    if (keyTaken) throw new ConflictError(`memory key ${JSON.stringify(patch.key)} is already held by another item of this scope`);
    const written = this.writeMemory({ ...patched(stored, patch), scope: stored.scope }, atKey, undefined);
    return [written, this.deleteMemory(stored, stored.id)];
  }

  /** Tombstones a live memory item. */
  deleteMemory(item: MemoryItem | undefined, id: string): StateChangeOf<typeof EventTypes.MemoryDeleted> {
    if (!item || item.deleted) throw new NotFoundError('memory', id);
    return { type: EventTypes.MemoryDeleted, payload: { item: this.#next(item, true, { metadata: structuredClone(item.metadata) }) } };
  }

  /**
   * A checkpoint saved under its key; `stored` is the one already there.
   * Saving again replaces it (the saver semantics LangGraph expects): same
   * `id` and `createdAt`, the next `syncVersion`, everything else from the draft.
   */
  saveCheckpoint(draft: CheckpointDraft, stored: Checkpoint | undefined): StateChangeOf<typeof EventTypes.CheckpointSaved> {
    const content = {
      threadId: draft.threadId,
      namespace: draft.namespace,
      checkpointId: draft.checkpointId,
      parentCheckpointId: draft.parentCheckpointId,
      checkpoint: draft.checkpoint,
      metadata: draft.metadata ?? {},
    };
    if (!stored) {
      const createdAt = this.#now();
      const { deleted: _deleted, ...envelope } = this.#firstEnvelope();
      return { type: EventTypes.CheckpointSaved, payload: { checkpoint: { id: this.#newId(), ...content, createdAt, updatedAt: createdAt, ...envelope } } };
    }
    const { deleted: _deleted, ...envelope } = this.#nextEnvelope({ ...stored, deleted: false }, false);
    const checkpoint: Checkpoint = { id: stored.id, ...content, createdAt: stored.createdAt, updatedAt: later(stored.updatedAt, this.#now()), ...envelope };
    return { type: EventTypes.CheckpointSaved, payload: { checkpoint } };
  }

  /**
   * The writes of `draft` that change anything, given `existing`, the
   * task's stored writes against the checkpoint: one at a non-negative idx
   * already taken is dropped (never overwritten), one at a negative idx
   * replaces. Undefined when none is left, so nothing is appended.
   */
  saveWrites(draft: WritesDraft, existing: readonly CheckpointWrite[]): StateChangeOf<typeof EventTypes.CheckpointWritesSaved> | undefined {
    const taken = new Set(existing.map((w) => w.idx));
    const { threadId, namespace, checkpointId, taskId, taskPath } = draft;
    const writes = draft.writes
      .filter((w) => w.idx < 0 || !taken.has(w.idx))
      .map((w): CheckpointWrite => ({ threadId, namespace, checkpointId, taskId, taskPath, idx: w.idx, channel: w.channel, value: w.value }));
    return writes.length === 0 ? undefined : { type: EventTypes.CheckpointWritesSaved, payload: { writes } };
  }

  /** Removes a thread's checkpoints and writes; undefined (nothing to append) when it has none. */
  deleteCheckpointThread(threadId: string, exists: boolean): StateChangeOf<typeof EventTypes.CheckpointThreadDeleted> | undefined {
    return exists ? { type: EventTypes.CheckpointThreadDeleted, payload: { threadId } } : undefined;
  }

  /**
   * Erased tombstones of `targets` (live records and tombstones alike), one
   * version later: the `records.purged` change of a purge (docs/contract.md §7).
   */
  purge(targets: PurgedRecords, reason: string): StateChangeOf<typeof EventTypes.RecordsPurged> {
    const now = this.#now();
    return {
      type: EventTypes.RecordsPurged,
      payload: {
        sessions: targets.sessions.map((s) => ({ ...eraseSession(s), updatedAt: later(s.updatedAt, now), ...this.#nextEnvelope(s, true) })),
        turns: targets.turns.map((t) => ({ ...eraseTurn(keepingAppendClock(t)), ...this.#nextEnvelope(t, true) })),
        // A purge is no content write: its tombstone names the one it erased, as an outcome's version does.
        skills: targets.skills.map((k) =>
          withSkillCounts({ ...eraseSkill(k), updatedAt: later(k.updatedAt, now), ...this.#nextEnvelope(k, true) }, contentClockOf(k), k.outcomes),
        ),
        memory: targets.memory.map((m) => ({ ...eraseMemoryItem(m), updatedAt: later(m.updatedAt, now), ...this.#nextEnvelope(m, true) })),
        reason,
      },
    };
  }

  /** The provider clock's reading as an instant: what expiry is judged against. */
  now(): Instant {
    return this.#now();
  }

  /** A generated id, refused when a custom generator yields one no decoder would accept. */
  #newId(): string {
    const id = this.ctx.ids.next();
    // The built-in generator only makes UUIDs; a custom one is checked, as its ids reach the log unparsed.
    if (this.ctx.ids.constructor !== UuidV7Generator && !idField.safeParse(id).success)
      throw new ValidationError('ids', `the id generator returned ${JSON.stringify(id).slice(0, 80)}, not a valid id`);
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

  /** The next version of `stored` (its scope copied) with `fields` replaced: `updatedAt` never moves back, the envelope moves on. */
  #next<R extends Session | Skill | MemoryItem>(stored: R, deleted: boolean, fields: Partial<R> = {}): R {
    return { ...stored, scope: [...stored.scope], ...fields, updatedAt: later(stored.updatedAt, this.#now()), ...this.#nextEnvelope(stored, deleted) };
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
