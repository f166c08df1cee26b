/**
 * A purge wins and stays (docs/contract.md §12, "Merge"): a record a purge erased stays its erased
 * tombstone whatever version written apart from the purge arrives. What a purge left, and the skill a
 * purge and versions written apart from it merge into; memory items merge in merge-records.ts.
 */
import { changeRecordIds, changeRecords } from '../log/changes.js';
import { EventTypes, type StateChange } from '../log/events.js';
import { ERASED } from '../log/redact.js';
import { canonicalJson } from '../log/json.js';
import type { Envelope, MemoryItem, Session, Skill } from '../records/records.js';
import { laterInstant } from '../time/instant.js';
import type { StateLookups } from '../write/backend.js';

/** Whether `item` is as a purge left it: its tombstone with the text gone. */
export function purgedItem(item: MemoryItem): boolean {
  return item.deleted && item.content === ERASED && item.source === ERASED;
}

/** Whether `skill` is as a purge left it: its tombstone with the text gone. */
export function purgedSkill(skill: Skill): boolean {
  return skill.deleted && skill.name === ERASED && skill.body === ERASED;
}

/**
 * The ids of the records a received `change` carries that are held here as a purge left them, `change` written
 * apart from that purge: it is stored with them erased, so their text never reaches a store that holds the purge.
 * `held` is the store before the batch, `earlier` counts the versions the batch's events before `change` bring of
 * a record: a version that chains on them all was written after the purge (a key's item written again, §4) and
 * keeps its text. A session's version (a field write, a compaction, a transcript change) is erased, not the turns
 * it adds: other records, which the purge did not name.
 */
export async function purgedHere(
  change: StateChange,
  held: Pick<StateLookups, 'memoryItem' | 'skill' | 'session' | 'turn'>,
  earlier: (id: string) => number,
): Promise<string[]> {
  const apart = (stored: Envelope, version: Envelope & { id: string }) => version.syncVersion <= stored.syncVersion + earlier(version.id);
  switch (change.type) {
    case EventTypes.MemoryWritten:
    case EventTypes.MemoryUpdated:
    case EventTypes.MemoryDeleted: {
      const item = await held.memoryItem(change.payload.item.id);
      return item !== undefined && purgedItem(item) && apart(item, change.payload.item) ? changeRecordIds(change) : [];
    }
    case EventTypes.SkillUpserted:
    case EventTypes.SkillDeleted:
    case EventTypes.SkillOutcomeRecorded: {
      const skill = await held.skill(change.payload.skill.id);
      return skill !== undefined && purgedSkill(skill) && apart(skill, change.payload.skill) ? changeRecordIds(change) : [];
    }
    // A creation is never apart from a purge of its session, and another purge is erased already.
    case EventTypes.RecordsPurged:
    case EventTypes.SessionCreated:
      return [];
    default: {
      const ids = await purgedTurnsHere(change, held);
      for (const entry of changeRecords(change)) {
        if (entry.kind !== 'session') continue;
        const stored = await held.session(entry.record.id);
        if (stored !== undefined && purgedSession(stored) && apart(stored, entry.record)) return [stored.id, ...ids];
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
async function purgedTurnsHere(change: StateChange, held: Pick<StateLookups, 'turn'>): Promise<string[]> {
  const tombstones = change.type === EventTypes.TurnsRemoved ? change.payload.turns : change.type === EventTypes.SuffixReplaced ? change.payload.removed : [];
  const ids: string[] = [];
  for (const tombstone of tombstones) {
    const turn = await held.turn(tombstone.id);
    if (turn?.deleted && turn.content === ERASED && tombstone.syncVersion <= turn.syncVersion) ids.push(tombstone.id);
  }
  return ids;
}

/**
 * The id of a skill a received `records.purged` erases that is held here as another purge written apart
 * from it left it, with other counts, `version`, content clock or outcomes: no merge rule covers the two,
 * so they are refused.
 * A skill that only looks purged is not one a purge left: a content write its purge rewrote, that arrived
 * erased and won the merge here, is still that write (`purgeHeld`, asked only then, says whether a
 * `records.purged` of the skill is held), and the purge that follows merges as any purge written apart.
 */
export async function purgedOtherwise(
  change: StateChange,
  held: Pick<StateLookups, 'skill'>,
  purgeHeld: (id: string) => Promise<boolean>,
): Promise<string | undefined> {
  if (change.type !== EventTypes.RecordsPurged) return undefined;
  for (const skill of change.payload.skills) {
    const stored = await held.skill(skill.id);
    if (stored === undefined || !purgedSkill(stored) || skill.syncVersion > stored.syncVersion) continue;
    const left = (tombstone: Skill) => canonicalJson([tombstone.uses, tombstone.wins, tombstone.version, tombstone.contentClock, tombstone.outcomes]);
    if (left(stored) === left(skill)) continue;
    if (await purgeHeld(skill.id)) return skill.id;
  }
  return undefined;
}

/**
 * The skill held, `stored`, merged with `skill`, a version written apart from it (the caller checked
 * that it is one, and whether it is `later` by (HLC, writer)), when one of the two is a purge's
 * tombstone: `this` says `skill` is, `held` that `stored` is when it looks purged. The result is that
 * purge's tombstone, counts and content `version` as the purge left them, with the envelope of the
 * versions held: `syncVersion` counts them, the greatest by (HLC, writer) gives `updatedHlc` and
 * `lastWriterId`, and `updatedAt` never moves back. So whichever arrives first, the purge stays. Two
 * purges apart merge so only when they left the same (`purgedOtherwise`, checked on receipt: on
 * replay a record a later purge rewrote looks purged too, and that purge's tombstone is what it left).
 */
export function mergePurgedSkill(stored: Skill, skill: Skill, purge: 'this' | 'held', later: boolean): Skill | undefined {
  if (purge === 'held' && !purgedSkill(stored)) return undefined;
  const tombstone = purge === 'this' ? skill : stored;
  const { updatedHlc, lastWriterId } = later ? skill : stored;
  return { ...tombstone, syncVersion: stored.syncVersion + 1, updatedHlc, lastWriterId, updatedAt: laterInstant(skill.updatedAt, stored.updatedAt) };
}
