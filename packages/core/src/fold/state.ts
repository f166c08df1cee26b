/**
 * The read model every fold builds in memory, and its projection: the
 * in-memory backend's state, and what replay, verify, time-travel views and
 * the durable backends' rebuild fold into. `apply` is the only code that
 * changes it, and it is the same for a live write, a replay and a restore
 * from snapshot. Look-ups by id and by `(scope, slug)` are O(1).
 */
import type { MemoryItem, Scope, Session, Skill, Turn } from '../records/records.js';
import { compareMemoryNewestFirst, compareSessions, compareSkillsBySlug } from '../records/order.js';
import { scopeKey } from '../records/scope.js';
import { type StateChange, EventTypes, sessionAfterTurn } from '../log/events.js';
import { changeHlc, changeRecordIds } from '../log/changes.js';
import { type Snapshot, sortSnapshot } from '../snapshot/snapshot.js';
import { type SnapshotCollections, type SnapshotPart, SNAPSHOT_PARTS } from '../snapshot/parts.js';
import { type Hlc, HLC_ZERO, maxHlc } from '../time/hlc.js';
import { tokenize } from '../matching/lexical.js';
import { copyMemoryItem, copySession, copySkill, copyTurn, copyCheckpoint, copyCheckpointWrite } from '../records/copy.js';
import { SortedList } from './sorted-list.js';
import { entryFor } from '../map-entry.js';
import type { FoldView } from './fold-rules.js';
import { foldableChange, mergedChange } from './merge-records.js';
import { turnInsertion, withAppendClocks } from './merge-turns.js';
import { type OperationEntry, type OperationRef, operationEntry } from '../log/operation.js';
import type { Checkpoint } from '../records/checkpoints.js';
import type { CheckpointKey } from '../write/backend.js';
import { CheckpointThreads } from './checkpoint-threads.js';

/** Every part: what a state that holds the whole projection folds into. */
const ALL_PARTS: ReadonlySet<SnapshotPart> = new Set(SNAPSHOT_PARTS);

const skillKey = (scope: Scope, slug: string): string => `${scopeKey(scope)}\u0000${slug}`;
const memoryKeyOf = (scope: Scope, key: string): string => `${scopeKey(scope)}\u0000${key}`;
const oldestFirst = (a: MemoryItem, b: MemoryItem): number => compareMemoryNewestFirst(b, a);

/** Searchable text of a skill (docs/contract.md §5): slug, name, body, tags. */
export function skillSearchText(skill: Skill): string {
  return [skill.slug, skill.name, skill.body, ...skill.tags].join(' ');
}

/** The whole projection of the `state` stream, held in maps; its look-ups by id and key are documented on {@link FoldView}. */
export class InMemoryState implements FoldView {
  /** Seq of the last event applied. */
  seq = 0;
  /** Largest `updatedHlc` applied. */
  maxHlc: Hlc = HLC_ZERO;

  readonly sessions = new Map<string, Session>();
  readonly liveSessions = new SortedList<Session>(compareSessions);
  readonly turns = new Map<string, Turn[]>();
  /** turn id → its session and seq, so a turn is found by id (tombstones included), once {@link #placed}. */
  readonly #turnPlaces = new Map<string, Pick<Turn, 'sessionId' | 'seq'>>();
  /**
   * New turns not yet in {@link #turnPlaces}: placed on the next look-up by id. An append without a
   * chosen id looks none up, and a push costs far less than an insert into a map of every turn.
   */
  #unplaced: Turn[] = [];
  /** Folded tokens of turns, computed on first search (replay and restore skip them). */
  readonly #turnTokens = new Map<string, string[]>();

  readonly skills = new Map<string, Skill>();
  readonly skillIdsByKey = new Map<string, string>();
  readonly liveSkillsBySlug = new Map<string, Map<string, Skill>>();
  readonly liveSkillsByScope = new Map<string, Map<string, Skill>>();
  /** Folded tokens of live skills, computed on first search (replay and restore skip them). */
  readonly #skillTokens = new Map<string, string[]>();

  readonly memory = new Map<string, MemoryItem>();
  /** Live items, oldest first; recall walks it backwards. */
  readonly liveMemory = new SortedList<MemoryItem>(oldestFirst);
  /**
   * `(scope, key)` → id of the live item holding that key, built on the first look-up by key and
   * kept from then on: a restore or a view that only recalls never pays for a key per item.
   */
  #liveMemoryKeys: Map<string, string> | undefined;
  /** Folded tokens of live items, computed on first search (replay and restore skip them). */
  readonly #memoryTokens = new Map<string, string[]>();

  /** Operations of idempotent writes by id (docs/contract.md §4). */
  readonly operations = new Map<string, OperationEntry>();

  /** Checkpoints and their writes, by thread. */
  readonly checkpoints = new CheckpointThreads();

  /** The history index: record id → seqs of the events that carried it, ascending (from {@link historyFrom} on). */
  readonly history = new Map<string, number[]>();
  /** The seq the history index starts after: a restored snapshot's, whose earlier events it lacks. */
  historyFrom = 0;

  /**
   * Folds one change in, after checking it against the fold's rules (see
   * `fold-rules.ts`): a change the live API could not have written is a
   * `CorruptionError` naming `seq`, and changes nothing. `checked: false`
   * skips the rules, only for a change the stamper just built on this very
   * state (valid by construction, as SQLite's live path trusts it too).
   * Returns the change folded: a received one that does not chain is
   * folded as its merge (`merge-records.ts`), and `onMerge` called.
   */
  apply(change: StateChange, seq: number, checked = true, onMerge?: () => void): StateChange {
    // A received change that does not chain is folded as its merge (docs/contract.md §12, "Merge").
    const folded = checked ? foldableChange(this, change, seq, onMerge) : change;
    this.#fold(folded, ALL_PARTS);
    if (folded !== change) this.#observe(changeHlc(change));
    const operation = change.payload.operation;
    if (operation) this.#indexOperation(operation, seq);
    if (this.#historyDeferred) this.historyFrom = seq;
    else if (change.type === EventTypes.TurnAppended && change.payload.session === undefined) {
      // The most frequent event carries exactly its turn and the session it derives: indexed without collecting ids.
      this.#indexHistory(change.payload.turn.sessionId, seq);
      this.#indexHistory(change.payload.turn.id, seq);
    } else for (const id of changeRecordIds(change)) this.#indexHistory(id, seq);
    this.seq = seq;
    return folded;
  }

  /**
   * Folds one change into the collections of `parts` only, unchecked, and
   * leaves it out of the history index (as {@link deferHistory} does). For a
   * time-travel view that restores the parts of a snapshot as its reads need
   * them: each part restored is followed by the same events, folded into it
   * alone. The events were checked when they were appended.
   */
  applyParts(change: StateChange, seq: number, parts: ReadonlySet<SnapshotPart>): void {
    this.#fold(withAppendClocks(this, (change.received && mergedChange(this, change)) || change), parts);
    const operation = change.payload.operation;
    if (operation && parts.has('operations')) this.#indexOperation(operation, seq);
    this.historyFrom = seq;
    this.seq = seq;
  }

  #fold(change: StateChange, parts: ReadonlySet<SnapshotPart>): void {
    const sessions = parts.has('sessions');
    const turns = parts.has('turns');
    switch (change.type) {
      case EventTypes.SessionCreated:
      case EventTypes.SessionDeleted:
      case EventTypes.SessionUpdated:
      case EventTypes.SessionCompacted:
        if (sessions) this.#putSession(change.payload.session);
        break;
      case EventTypes.TurnAppended:
        // The rules found the session live, so a derived version has something to derive from.
        if (sessions) this.#putSession(change.payload.session ?? sessionAfterTurn(this.sessions.get(change.payload.turn.sessionId)!, change.payload.turn));
        if (turns && turnInsertion(change)) this.#insertTurn(change.payload.turn);
        else if (turns) this.#putTurn(change.payload.turn);
        break;
      case EventTypes.TurnsRemoved:
        if (sessions) this.#putSession(change.payload.session);
        if (turns) for (const turn of change.payload.turns) this.#putTurn(turn);
        break;
      case EventTypes.SuffixReplaced:
        if (sessions) this.#putSession(change.payload.session);
        if (turns) for (const turn of change.payload.removed) this.#putTurn(turn);
        // A merged suffix puts its turns at their rank, the turns held after it moving up.
        if (turns && turnInsertion(change)) for (const turn of change.payload.added) this.#insertTurn(turn);
        else if (turns) for (const turn of change.payload.added) this.#putTurn(turn);
        break;
      case EventTypes.SkillUpserted:
      case EventTypes.SkillDeleted:
      case EventTypes.SkillOutcomeRecorded:
        if (parts.has('skills')) this.#putSkill(change.payload.skill);
        break;
      case EventTypes.MemoryWritten:
      case EventTypes.MemoryDeleted:
      case EventTypes.MemoryUpdated:
        if (parts.has('memory')) this.#putMemory(change.payload.item);
        break;
      case EventTypes.CheckpointSaved:
        if (!parts.has('checkpoints')) break;
        this.#observe(change.payload.checkpoint.updatedHlc);
        this.checkpoints.put(change.payload.checkpoint);
        break;
      case EventTypes.CheckpointWritesSaved:
        if (parts.has('checkpoints')) for (const write of change.payload.writes) this.checkpoints.putWrite(write);
        break;
      case EventTypes.CheckpointThreadDeleted:
        if (parts.has('checkpoints')) this.checkpoints.deleteThread(change.payload.threadId);
        break;
      case EventTypes.RecordsPurged:
        if (sessions) for (const session of change.payload.sessions) this.#putSession(session);
        if (turns) for (const turn of change.payload.turns) this.#putTurn(turn);
        if (parts.has('skills')) for (const skill of change.payload.skills) this.#putSkill(skill);
        if (parts.has('memory')) for (const item of change.payload.memory) this.#putMemory(item);
        break;
    }
  }

  #historyDeferred = false;

  /**
   * Until {@link resumeHistory}, events applied are left out of the history
   * index and `historyFrom` follows them, as after a snapshot: their seqs are
   * read from the log when first asked for, so a fold that may never be
   * asked for history does not build it. Only a state whose index is empty
   * (a fresh or restored one) defers; on any other this does nothing, as
   * the index must hold every seq after `historyFrom`.
   */
  deferHistory(): void {
    if (this.history.size === 0) this.#historyDeferred = true;
  }

  /** Indexes the history of every event applied from now on again. */
  resumeHistory(): void {
    this.#historyDeferred = false;
  }

  #indexHistory(id: string, seq: number): void {
    entryFor(this.history, id, () => []).push(seq);
  }

  /** Loads a snapshot into an empty state. */
  restore(snapshot: Snapshot): void {
    this.restoreCollections(snapshot);
    this.seq = snapshot.seq;
    this.historyFrom = snapshot.seq;
  }

  /** Loads the collections given (a snapshot's, or some parts of one) into empty ones; the seq is the caller's to set. */
  restoreCollections(collections: Partial<SnapshotCollections>): void {
    for (const s of collections.sessions ?? []) this.#putSession(s);
    for (const t of collections.turns ?? []) this.#putTurn(t);
    for (const s of collections.skills ?? []) this.#putSkill(s);
    for (const m of collections.memory ?? []) this.#putMemory(m);
    for (const o of collections.operations ?? []) this.operations.set(o.id, { ...o });
    for (const c of collections.checkpoints ?? []) {
      this.#observe(c.updatedHlc);
      this.checkpoints.put(c);
    }
    for (const w of collections.checkpointWrites ?? []) this.checkpoints.putWrite(w);
  }

  /** A deterministic copy of everything, tombstones included. */
  capture(): Snapshot {
    const turns: Turn[] = [];
    for (const list of this.turns.values()) for (const t of list) turns.push(copyTurn(t));
    return sortSnapshot({
      seq: this.seq,
      sessions: [...this.sessions.values()].map(copySession),
      turns,
      skills: [...this.skills.values()].map(copySkill),
      memory: [...this.memory.values()].map(copyMemoryItem),
      operations: [...this.operations.values()].map((o) => ({ ...o })),
      checkpoints: [...this.checkpoints.allCheckpoints()].map(copyCheckpoint),
      checkpointWrites: [...this.checkpoints.allWrites()].map(copyCheckpointWrite),
    });
  }

  /** The searchable tokens of a live skill (docs/contract.md §5: slug, name, body, tags). */
  skillTokens(skill: Skill): string[] {
    return tokensOf(this.#skillTokens, skill, skillSearchText);
  }

  /** The searchable tokens of a live memory item (its content). */
  memoryTokens(item: MemoryItem): string[] {
    return tokensOf(this.#memoryTokens, item, contentOf);
  }

  /** The searchable tokens of a turn (its content). */
  turnTokens(turn: Turn): string[] {
    return tokensOf(this.#turnTokens, turn, contentOf);
  }

  /** {@link #turnPlaces}, with every turn appended so far placed in it. */
  #placed(): Map<string, Pick<Turn, 'sessionId' | 'seq'>> {
    if (this.#unplaced.length > 0) {
      // The turn itself is its place: every version keeps its session and seq, and nothing is allocated.
      for (const turn of this.#unplaced) this.#turnPlaces.set(turn.id, turn);
      this.#unplaced = [];
    }
    return this.#turnPlaces;
  }

  /** The turn with this id when it and its session are live. */
  liveTurn(id: string): Turn | undefined {
    const place = this.#placed().get(id);
    if (!place) return undefined;
    const session = this.sessions.get(place.sessionId);
    const turn = this.turns.get(place.sessionId)?.[place.seq - 1];
    return session && !session.deleted && turn?.id === id && !turn.deleted ? turn : undefined;
  }

  /** Live turns of live sessions, in no particular order. */
  *liveTurns(): Generator<Turn> {
    for (const [sessionId, list] of this.turns) {
      const session = this.sessions.get(sessionId);
      if (!session || session.deleted) continue;
      for (const turn of list) if (!turn.deleted) yield turn;
    }
  }

  session(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  lastTurnSeq(sessionId: string): number {
    return this.turns.get(sessionId)?.length ?? 0;
  }

  turn(id: string): Turn | undefined {
    const place = this.#placed().get(id);
    return place === undefined ? undefined : this.turns.get(place.sessionId)?.[place.seq - 1];
  }

  turnExists(id: string): boolean {
    return this.#placed().has(id);
  }

  /** Drops the input hash of each of these operations (a purge erased what it covered); each keeps its id and seq. */
  dropInputHashes(ids: readonly string[]): void {
    for (const id of ids) {
      const entry = this.operations.get(id);
      if (entry) this.operations.set(id, { id, seq: entry.seq });
    }
  }

  /** Indexes the operation that opens a write; a later event of a batch names an indexed id without a hash, and is not. */
  #indexOperation(operation: OperationRef, seq: number): void {
    if (operation.inputHash === undefined && this.operations.has(operation.id)) return;
    this.operations.set(operation.id, operationEntry(operation, seq));
  }

  turnsFrom(sessionId: string, fromSeq: number): Turn[] {
    return (this.turns.get(sessionId) ?? []).slice(Math.max(0, fromSeq - 1));
  }

  /** The newest `n` live turns of a session (all when `n` is 0), oldest first. */
  lastLiveTurns(sessionId: string, n: number): Turn[] {
    const list = this.turns.get(sessionId) ?? [];
    const out: Turn[] = [];
    for (let i = list.length - 1; i >= 0 && (n <= 0 || out.length < n); i -= 1) if (!list[i]!.deleted) out.push(list[i]!);
    return out.reverse();
  }

  skill(id: string): Skill | undefined {
    return this.skills.get(id);
  }

  skillIdAt(scope: Scope, slug: string): string | undefined {
    return this.skillIdsByKey.get(skillKey(scope, slug));
  }

  memoryItem(id: string): MemoryItem | undefined {
    return this.memory.get(id);
  }

  operation(id: string): OperationEntry | undefined {
    return this.operations.get(id);
  }

  memoryIdWithKey(scope: Scope, key: string): string | undefined {
    return this.#memoryKeys().get(memoryKeyOf(scope, key));
  }

  /** {@link #liveMemoryKeys}, built from the live items when first needed. */
  #memoryKeys(): Map<string, string> {
    if (!this.#liveMemoryKeys) {
      this.#liveMemoryKeys = new Map();
      for (const item of this.liveMemory.items) if (item.key !== null) this.#liveMemoryKeys.set(memoryKeyOf(item.scope, item.key), item.id);
    }
    return this.#liveMemoryKeys;
  }

  checkpointAt(key: CheckpointKey): Checkpoint | undefined {
    return this.checkpoints.at(key);
  }

  checkpointWriteExists(key: CheckpointKey, taskId: string, idx: number): boolean {
    return this.checkpoints.writeExists(key, taskId, idx);
  }

  checkpointThreadExists(threadId: string): boolean {
    return this.checkpoints.threadExists(threadId);
  }

  /** The record at `(scope, slug)`, tombstones included. */
  skillAt(scope: Scope, slug: string): Skill | undefined {
    const id = this.skillIdsByKey.get(skillKey(scope, slug));
    return id === undefined ? undefined : this.skills.get(id);
  }

  /** Live skills in exactly `scope`, by slug then id. */
  skillsIn(scope: Scope): Skill[] {
    return [...(this.liveSkillsByScope.get(scopeKey(scope))?.values() ?? [])].sort(compareSkillsBySlug);
  }

  #observe(hlc: Hlc): void {
    this.maxHlc = maxHlc(this.maxHlc, hlc);
  }

  #putSession(session: Session): void {
    this.#observe(session.updatedHlc);
    this.sessions.set(session.id, session);
    if (session.deleted) this.liveSessions.remove(session);
    else this.liveSessions.upsert(session);
  }

  #putTurn(turn: Turn): void {
    this.#observe(turn.updatedHlc);
    const list = entryFor(this.turns, turn.sessionId, () => []);
    if (turn.seq === list.length + 1) {
      list.push(turn);
      this.#unplaced.push(turn);
    } else {
      // A new version of a turn (a tombstone): same place, and its tokens are derived again.
      list[turn.seq - 1] = turn;
      this.#turnTokens.delete(turn.id);
    }
  }

  /** Puts a merged append's turn at its rank: the turns from its seq on move one seq up (docs/contract.md §12, "Merge"). */
  #insertTurn(turn: Turn): void {
    const list = this.turns.get(turn.sessionId);
    if (list === undefined || turn.seq > list.length) {
      this.#putTurn(turn);
      return;
    }
    this.#observe(turn.updatedHlc);
    const places = this.#placed();
    const moved = list.slice(turn.seq - 1).map((held) => ({ ...held, seq: held.seq + 1 }));
    list.splice(turn.seq - 1, moved.length, turn, ...moved);
    for (const placed of [turn, ...moved]) places.set(placed.id, placed);
  }

  #putSkill(skill: Skill): void {
    this.#observe(skill.updatedHlc);
    const previous = this.skills.get(skill.id);
    if (previous) this.#unindexSkill(previous);
    this.skills.set(skill.id, skill);
    this.skillIdsByKey.set(skillKey(skill.scope, skill.slug), skill.id);
    if (skill.deleted) return;
    entryFor(this.liveSkillsBySlug, skill.slug, () => new Map()).set(skill.id, skill);
    entryFor(this.liveSkillsByScope, scopeKey(skill.scope), () => new Map()).set(skill.id, skill);
  }

  #unindexSkill(skill: Skill): void {
    unindexFrom(this.liveSkillsBySlug, skill.slug, skill.id);
    unindexFrom(this.liveSkillsByScope, scopeKey(skill.scope), skill.id);
    this.#skillTokens.delete(skill.id);
  }

  #putMemory(item: MemoryItem): void {
    this.#observe(item.updatedHlc);
    const previous = this.memory.get(item.id);
    const wasLive = previous !== undefined && !previous.deleted;
    if (wasLive) {
      if (previous.key !== null) this.#liveMemoryKeys?.delete(memoryKeyOf(previous.scope, previous.key));
      this.#memoryTokens.delete(item.id);
    }
    this.memory.set(item.id, item);
    if (item.deleted) {
      if (wasLive) this.liveMemory.remove(previous);
      return;
    }
    // A new version keeps its item's place (same createdAt and id): replaced there, not moved through the list twice.
    if (wasLive) this.liveMemory.replace(previous, item);
    else this.liveMemory.insert(item);
    if (item.key !== null) this.#liveMemoryKeys?.set(memoryKeyOf(item.scope, item.key), item.id);
  }
}

const contentOf = (record: { content: string }): string => record.content;

/** The tokens `cache` holds for `record`, folded from its searchable text on first use. */
function tokensOf<R extends { id: string }>(cache: Map<string, string[]>, record: R, text: (record: R) => string): string[] {
  return entryFor(cache, record.id, () => tokenize(text(record)));
}

function unindexFrom(index: Map<string, Map<string, Skill>>, key: string, id: string): void {
  const bucket = index.get(key);
  if (!bucket) return;
  bucket.delete(id);
  if (bucket.size === 0) index.delete(key);
}
