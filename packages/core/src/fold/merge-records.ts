/**
 * Merging concurrent versions of a record (docs/contract.md §12, "Merge"). A received event
 * whose record does not chain on the version held here (its `syncVersion` is not one more:
 * its writer did not hold every version held here) is concurrent. Its record is then folded
 * as a function of the set of versions held, never of their arrival order: the greatest
 * version by (HLC, writer) gives the content, `syncVersion` counts the versions, `updatedAt`
 * never moves back, and a purge among them keeps the record erased. The merged post-image is
 * an ordinary change, which every backend's projection applies as it applies a local one.
 */
import { CorruptionError } from '../errors.js';
import { contentClockOf, EventTypes, type OutcomeIncrement, type StateChange, withOutcome, withSkillCounts } from '../log/events.js';
import { eraseMemoryItem, eraseSkill } from '../log/redact.js';
import type { Envelope, MemoryItem, Session, Skill, Turn } from '../records/records.js';
import { sameScope } from '../records/scope.js';
import { isKeyItem } from '../ids/key-id.js';
import { compareHlc } from '../time/hlc.js';
import { laterInstant } from '../time/instant.js';
import { type FoldView, checkChange } from './fold-rules.js';
import { isErasedItem } from './erased-view.js';
import { purgedItem, purgesOf } from './merge-purge.js';
import { mergeCompaction, mergePurgedSession, mergeSessionFields, sessionApart } from './merge-summary.js';
import { mergeAppend, mergeRemoval, mergeSuffix, purgedTurn, withAppendClocks } from './merge-turns.js';

/** Canonical order of two versions of one record (or two clocks of one field): by HLC, then by writer. */
export function compareVersions(a: Pick<Envelope, 'updatedHlc' | 'lastWriterId'>, b: Pick<Envelope, 'updatedHlc' | 'lastWriterId'>): number {
  return compareHlc(a.updatedHlc, b.updatedHlc) || (a.lastWriterId < b.lastWriterId ? -1 : a.lastWriterId > b.lastWriterId ? 1 : 0);
}

/**
 * Whether `version` was written without every version held here (`stored`): its writer held fewer
 * versions, so it does not chain. Delivery is causal, so one that chains was written on the very set held.
 */
function concurrent<R extends Envelope>(stored: R | undefined, version: Envelope): stored is R {
  return stored !== undefined && version.syncVersion <= stored.syncVersion;
}

/**
 * The change the fold applies for `change`, the event at `seq`: `change` itself when it chains on
 * the records held (checked against the fold's rules, a `CorruptionError` naming `seq` otherwise),
 * or, for a received change that does not, the change carrying the merged post-images (then
 * `onMerge` is called: a receive counts them); either with the clock of each removed turn's append
 * given to a tombstone written before tombstones kept it.
 */
export function foldableChange(view: FoldView, change: StateChange, seq: number, onMerge?: () => void): StateChange {
  let folded = change;
  try {
    checkChange(view, change, seq);
  } catch (error) {
    // A concurrent version never passes the rules (its `syncVersion` does not follow): only then is a merge looked for.
    const merged = change.received && error instanceof CorruptionError ? mergedChange(view, change, (rest) => checkChange(view, rest, seq)) : undefined;
    if (merged === undefined) throw error;
    folded = merged;
    onMerge?.();
  }
  return withAppendClocks(view, folded);
}

/**
 * For a received `change` that does not chain on the records held, the change carrying their merged
 * post-images; undefined when it chains or no merge rule covers it (the fold's rules then judge it).
 * `check` is given what a partly merged change leaves to the fold's rules (a purge's other records).
 */
export function mergedChange(view: FoldView, change: StateChange, check?: (rest: StateChange) => void): StateChange | undefined {
  switch (change.type) {
    case EventTypes.MemoryWritten:
    case EventTypes.MemoryUpdated:
    case EventTypes.MemoryDeleted: {
      // A version a later purge rewrote (`erasedBy`) is not merged as one arriving after it: that purge comes later in this log.
      const item = mergeMemory(view, change.payload.item, change.payload.erasedBy === undefined ? 'held' : 'none');
      return item && { ...change, type: item.deleted ? EventTypes.MemoryDeleted : EventTypes.MemoryUpdated, payload: { ...change.payload, item } };
    }
    case EventTypes.SkillUpserted:
    case EventTypes.SkillDeleted: {
      const skill = mergeSkillContent(view.skill(change.payload.skill.id), change.payload.skill);
      return skill && { ...change, type: skill.deleted ? EventTypes.SkillDeleted : EventTypes.SkillUpserted, payload: { ...change.payload, skill } };
    }
    case EventTypes.TurnAppended:
      return mergeAppend(view, change);
    case EventTypes.TurnsRemoved:
      return mergeRemoval(view, change);
    case EventTypes.SuffixReplaced:
      return mergeSuffix(view, change);
    case EventTypes.SessionCompacted:
      return mergeCompaction(view, change);
    case EventTypes.SessionUpdated:
    case EventTypes.SessionDeleted:
      return mergeSessionFields(view, change);
    case EventTypes.SkillOutcomeRecorded: {
      const skill = mergeOutcome(view.skill(change.payload.skill.id), change.payload.skill, change.payload.increment);
      return skill && { ...change, payload: { ...change.payload, skill } };
    }
    case EventTypes.RecordsPurged: {
      const { memory, skills, sessions } = change.payload;
      // A turn is erased where it stands here: appends merged apart may have moved it, a removal apart removed it (merge-turns.ts).
      const turns = change.payload.turns.map((turn) => purgedTurn(view, turn));
      const apart = new Set<MemoryItem | Skill | Turn | Session>(memory.filter((item) => concurrent(view.memoryItem(item.id), item)));
      for (const skill of skills) if (concurrent(view.skill(skill.id), skill)) apart.add(skill);
      for (const session of sessions) if (concurrent(view.session(session.id), session)) apart.add(session);
      for (const [i, turn] of change.payload.turns.entries()) if (concurrent(view.turn(turn.id), turn)) apart.add(turns[i]!);
      if (apart.size === 0 && turns.every((turn, i) => turn === change.payload.turns[i])) return undefined;
      const merged = memory.map((item) => (apart.has(item) ? mergeMemory(view, item, 'this') : item));
      const mergedSkills = skills.map((skill) => (apart.has(skill) ? mergeSkillPurge(view.skill(skill.id), skill) : skill));
      const mergedSessions = sessions.map((session) => (apart.has(session) ? purgedSessionApart(view, session) : session));
      if ([...merged, ...mergedSkills, ...mergedSessions].some((record) => record === undefined)) return undefined;
      const chained = (record: MemoryItem | Skill | Turn | Session) => !apart.has(record);
      const rest = { turns: turns.filter(chained), memory: memory.filter(chained), skills: skills.filter(chained), sessions: sessions.filter(chained) };
      check?.({ ...change, payload: { ...change.payload, ...rest } });
      const records = { turns, memory: merged as MemoryItem[], skills: mergedSkills as Skill[], sessions: mergedSessions as Session[] };
      return { ...change, payload: { ...change.payload, ...records } };
    }
    default:
      return undefined;
  }
}

/** The session held merged with `tombstone`, a purge's tombstone of it written apart from it (undefined when none can be: another creation). */
function purgedSessionApart(view: FoldView, tombstone: Session): Session | undefined {
  const stored = sessionApart(view, tombstone);
  return stored && mergePurgedSession(stored, tombstone);
}

/**
 * The merged memory item of the versions held and `item`, a concurrent version of it (undefined when it
 * is not concurrent or cannot be one: another creation or scope, or the key held by another live item).
 * Every version of an item writes its content, so the greater of the held post-image (the greatest
 * version so far) and `item` gives it; one that meets a purge stays the erased tombstone. `purge`
 * says where one may be: in `item` itself (`this`), in what is held when it looks purged and `item`
 * arrived erased (`held`: a receive erases a version written apart from a purge it holds), or nowhere yet (`none`).
 */
function mergeMemory(view: FoldView, item: MemoryItem, purge: 'this' | 'held' | 'none'): MemoryItem | undefined {
  const stored = view.memoryItem(item.id);
  if (!concurrent(stored, item) || compareVersions(item, stored) === 0) return undefined;
  if (!sameItem(stored, item)) return undefined;
  const winner = compareVersions(item, stored) > 0 ? item : stored;
  const next = { ...winner, ...firstCreation(stored, item), syncVersion: stored.syncVersion + 1, updatedAt: laterInstant(item.updatedAt, stored.updatedAt) };
  // A version written apart from a purge held here arrives erased (sync/receive.ts): one with its text meets no purge.
  const purged = purge === 'this' || (purge === 'held' && purgedItem(stored) && isErasedItem(item));
  const merged = purged ? { ...eraseMemoryItem(next), deleted: true } : next;
  if (merged.deleted || merged.key === null) return merged;
  const holder = view.memoryIdWithKey(merged.scope, merged.key);
  return holder === undefined || holder === merged.id ? merged : undefined;
}

/**
 * The skill held, `stored`, with a concurrent outcome counted in: every outcome held counts once, whatever
 * content write or purge its writer did not hold, and an outcome writes no content (a deleted or purged skill
 * stays so). An outcome written before skills counted their outcomes carries no `outcomes`, and merges as it
 * did then: only on the content version held, live, leaving `outcomes` as held.
 */
function mergeOutcome(stored: Skill | undefined, skill: Skill, increment: OutcomeIncrement): Skill | undefined {
  if (!skillApart(stored, skill)) return undefined;
  const early = skill.outcomes === undefined;
  if (early && (stored.deleted || skill.version !== stored.version)) return undefined;
  const counted = { ...stored, ...nextSkillEnvelope(stored, skill), uses: stored.uses + increment.uses, wins: stored.wins + increment.wins };
  return withSkillCounts(counted, contentClockOf(stored), early ? stored.outcomes : withOutcome(stored.outcomes, increment));
}

/**
 * The skill held, `stored`, merged with `skill`, a content write (an upsert or a delete) written apart from
 * it: the greater of it and the greatest content write held (`contentClock`) by (HLC, writer) gives the
 * content (a later upsert brings a deleted skill back, a later delete deletes it), and `version` counts the
 * content writes held. The counts are the winner's with every outcome held that its writer did not hold:
 * delivery is causal, so those are the outcomes held here beyond the ones `skill` counts. A purge wins and
 * stays: when `skill` wins, but a purge held here is one its writer did not hold, the skill is that purge's
 * erased tombstone; when the content held wins, it stays as held (erased too).
 */
function mergeSkillContent(stored: Skill | undefined, skill: Skill): Skill | undefined {
  if (!skillApart(stored, skill)) return undefined;
  const held = contentClockOf(stored);
  const next = { version: stored.version + 1, ...nextSkillEnvelope(stored, skill) };
  if (compareVersions(skill, held) < 0) return withSkillCounts({ ...stored, ...next }, held, stored.outcomes);
  const merged = withSkillCounts({ ...skill, ...next, ...countsApart(stored, skill) }, skill, stored.outcomes);
  return purgesOf(stored) > purgesOf(skill) ? { ...eraseSkill(merged), deleted: true } : merged;
}

/**
 * The skill held, `stored`, merged with `tombstone`, a purge's erased tombstone of it written apart from it: a purge
 * wins and stays, so it is erased and deleted whatever content write or outcome its writer did not hold, and it
 * merges as they do: its writer's content writes and outcomes are held here (delivery is causal), so `version` and
 * `outcomes` stay as held, and of the content write the purge's writer held last and the one held (`contentClock`),
 * the later gives `uses` and `wins`, with every outcome held its writer did not hold. Both stores of two purges apart
 * so hold the same tombstone, whichever arrives first.
 */
function mergeSkillPurge(stored: Skill | undefined, tombstone: Skill): Skill | undefined {
  if (!skillApart(stored, tombstone)) return undefined;
  const [held, theirs] = [contentClockOf(stored), contentClockOf(tombstone)];
  const [clock, counts] = compareVersions(theirs, held) > 0 ? [theirs, countsApart(stored, tombstone)] : [held, stored];
  const merged = { ...eraseSkill(stored), ...nextSkillEnvelope(stored, tombstone), uses: counts.uses, wins: counts.wins, deleted: true };
  return withSkillCounts(merged, clock, stored.outcomes);
}

/** The counts of `skill`, a version written apart from the skill held (`stored`), with every outcome held that its writer did not hold. */
function countsApart(stored: Skill, skill: Skill): Pick<Skill, 'uses' | 'wins'> {
  const apart = { uses: (stored.outcomes?.uses ?? 0) - (skill.outcomes?.uses ?? 0), wins: (stored.outcomes?.wins ?? 0) - (skill.outcomes?.wins ?? 0) };
  return { uses: skill.uses + apart.uses, wins: skill.wins + apart.wins };
}

/** Whether `skill` is a version of the skill held, `stored`, written apart from it. */
function skillApart(stored: Skill | undefined, skill: Skill): stored is Skill {
  return concurrent(stored, skill) && compareVersions(skill, stored) !== 0 && sameSkill(stored, skill);
}

/** The envelope of the skill held, `stored`, one version on by `skill`: the greater clock and writer, `updatedAt` never back, the first creation. */
function nextSkillEnvelope(
  stored: Skill,
  skill: Skill,
): Pick<Skill, 'syncVersion' | 'updatedHlc' | 'lastWriterId' | 'updatedAt' | 'createdAt' | 'originInstanceId'> {
  const { updatedHlc, lastWriterId } = compareVersions(skill, stored) > 0 ? skill : stored;
  return {
    syncVersion: stored.syncVersion + 1,
    updatedHlc,
    lastWriterId,
    updatedAt: laterInstant(skill.updatedAt, stored.updatedAt),
    ...firstCreation(stored, skill),
  };
}

/**
 * Whether `version` can be a version of the skill held, `stored`: the same scope and slug. A new skill's
 * id is its key's (ids/key-id.ts), so two stores that create one slug apart create one skill.
 */
function sameSkill(stored: Skill, version: Skill): boolean {
  return version.slug === stored.slug && sameScope(version.scope, stored.scope);
}

/**
 * The creation a merged record keeps, of the two it merges: the earlier `createdAt`, then the lesser origin.
 * Every version carries the earliest creation its writer held, so the merge keeps the earliest of all.
 */
function firstCreation<R extends MemoryItem | Skill>(stored: R, version: R): Pick<R, 'createdAt' | 'originInstanceId'> {
  const first =
    version.createdAt < stored.createdAt || (version.createdAt === stored.createdAt && version.originInstanceId < stored.originInstanceId) ? version : stored;
  return { createdAt: first.createdAt, originInstanceId: first.originInstanceId };
}

/**
 * Whether `version` can be a version of the memory item held, `stored`: the same scope, and the same creation
 * or a key's item (its id is its key's, ids/key-id.ts, so two stores that write one key apart write one item;
 * a purge erases the key of one of the two).
 */
function sameItem(stored: MemoryItem, version: MemoryItem): boolean {
  const sameCreation = version.createdAt === stored.createdAt && version.originInstanceId === stored.originInstanceId;
  return sameScope(version.scope, stored.scope) && (sameCreation || isKeyItem(stored) || isKeyItem(version));
}
