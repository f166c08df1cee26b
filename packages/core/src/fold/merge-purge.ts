/**
 * A purge wins and stays (docs/contract.md §12, "Merge"): a record a purge erased stays its erased
 * tombstone whatever version written apart from the purge arrives. What a purge left, and which received
 * versions are stored erased; the records merge in merge-records.ts.
 */
import { changeRecordIds, changeRecords } from '../log/changes.js';
import { EventTypes, type StateChange } from '../log/events.js';
import { ERASED } from '../log/redact.js';
import type { Envelope, MemoryItem, Session, Skill } from '../records/records.js';
import type { StateLookups } from '../write/backend.js';

/** Whether `item` is as a purge left it: its tombstone with the text gone. */
export function purgedItem(item: MemoryItem): boolean {
  return item.deleted && item.content === ERASED && item.source === ERASED;
}

/**
 * How many purges of `skill` its versions held count: a purge is a version that is neither a content write (which
 * `version` counts) nor an outcome (which `outcomes` counts). So the log, not a name a user can type, tells a purge.
 * (An outcome written before `outcomes` existed is counted so too, by every store alike: it cancels out of a difference.)
 */
export function purgesOf(skill: Skill): number {
  return skill.syncVersion - skill.version - (skill.outcomes?.uses ?? 0);
}

/**
 * The ids of the records a received `change` carries that are held here as a purge left them, `change` written
 * apart from that purge: it is stored with them erased, so their text never reaches a store that holds the purge.
 * `held` is the store before the batch, `earlier` counts the versions the batch's events before `change` bring of
 * a record: a version that chains on them all was written after the purge (a key's item written again, §4) and
 * keeps its text. A session's version (a field write, a compaction, a transcript change) is erased, not the turns
 * it adds: other records, which the purge did not name. A record only looks purged when a user wrote its text as
 * `[erased]`: the log tells, `purgeHeld` (asked only of a record that looks so) saying whether a `records.purged`
 * of it is held; a skill's versions count its purges.
 */
export async function purgedHere(
  change: StateChange,
  held: Pick<StateLookups, 'memoryItem' | 'skill' | 'session' | 'turn'>,
  earlier: (id: string) => number,
  purgeHeld: (id: string) => Promise<boolean>,
): Promise<string[]> {
  const apart = (stored: Envelope, version: Envelope & { id: string }) => version.syncVersion <= stored.syncVersion + earlier(version.id);
  switch (change.type) {
    case EventTypes.MemoryWritten:
    case EventTypes.MemoryUpdated:
    case EventTypes.MemoryDeleted: {
      const item = await held.memoryItem(change.payload.item.id);
      return item !== undefined && purgedItem(item) && apart(item, change.payload.item) && (await purgeHeld(item.id)) ? changeRecordIds(change) : [];
    }
    case EventTypes.SkillUpserted:
    case EventTypes.SkillDeleted:
    case EventTypes.SkillOutcomeRecorded: {
      // A purge held here that its writer did not hold: a content write or outcome counts the purges its writer held.
      const skill = await held.skill(change.payload.skill.id);
      return skill !== undefined && purgesOf(skill) > purgesOf(change.payload.skill) && apart(skill, change.payload.skill) ? changeRecordIds(change) : [];
    }
    // A creation is never apart from a purge of its session, and another purge is erased already.
    case EventTypes.RecordsPurged:
    case EventTypes.SessionCreated:
      return [];
    default: {
      const ids = await purgedTurnsHere(change, held, purgeHeld);
      for (const entry of changeRecords(change)) {
        if (entry.kind !== 'session') continue;
        const stored = await held.session(entry.record.id);
        if (stored !== undefined && purgedSession(stored) && apart(stored, entry.record) && (await purgeHeld(stored.id))) return [stored.id, ...ids];
      }
      return ids;
    }
  }
}

/** Whether `session` is as a purge left it: its tombstone with the title, metadata and summary text gone. */
function purgedSession(session: Session): boolean {
  const erased = session.title === ERASED && Object.keys(session.metadata).length === 0 && (session.summary?.text ?? ERASED) === ERASED;
  return session.deleted && erased;
}

/**
 * The ids of the turns a received removal or replaced suffix (`change`) removes that are held here as a purge left
 * them, apart from it.
 */
async function purgedTurnsHere(change: StateChange, held: Pick<StateLookups, 'turn'>, purgeHeld: (id: string) => Promise<boolean>): Promise<string[]> {
  const tombstones = change.type === EventTypes.TurnsRemoved ? change.payload.turns : change.type === EventTypes.SuffixReplaced ? change.payload.removed : [];
  const ids: string[] = [];
  for (const tombstone of tombstones) {
    const turn = await held.turn(tombstone.id);
    if (turn?.deleted && turn.content === ERASED && tombstone.syncVersion <= turn.syncVersion && (await purgeHeld(turn.id))) ids.push(tombstone.id);
  }
  return ids;
}
