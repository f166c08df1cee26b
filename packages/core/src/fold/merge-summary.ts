/**
 * Merging a session's fields and its compaction written apart (docs/contract.md §12, "Merge"): its
 * fields (`title`, `metadata`, `scope`) and its summary are each last-writer-wins, so of two field
 * writes, or two summaries, the later by (HLC, writer) stands, whatever order they arrive in; a
 * compaction changes nothing else of its session, and a delete is final, as locally.
 */
import { EventTypes, type StateChange, type StateChangeOf, withFieldsClock } from '../log/events.js';
import type { Session, SessionSummary } from '../records/records.js';
import { eraseSession } from '../log/redact.js';
import { laterInstant } from '../time/instant.js';
import type { FoldView } from './fold-rules.js';
import { compareVersions } from './merge-records.js';

/** The later of two summaries by (HLC, writer); either may be absent. */
export function laterSummary(a: SessionSummary | undefined, b: SessionSummary | undefined): SessionSummary | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return compareVersions(a, b) >= 0 ? a : b;
}

/**
 * The compaction `change` merged into the session held, written apart from some version of it: the session's
 * next version (`syncVersion` one more, the greater clock and writer, `updatedAt` never back) with the later
 * summary, its fields as held. Undefined when the session is missing or another creation. Its turn may have
 * been removed or purged here meanwhile: `context` then leaves the summary out.
 */
export function mergeCompaction(view: FoldView, change: StateChangeOf<typeof EventTypes.SessionCompacted>): StateChange | undefined {
  const carried = change.payload.session;
  // A purge of a turn alone leaves its session as it was: a compaction through that turn, written apart, chains on it here.
  const through = carried.summary?.through === undefined ? undefined : view.turn(carried.summary.through);
  const purgedApart = through?.sessionId === carried.id && through.deleted;
  const stored = sessionApart(view, purgedApart ? { ...carried, syncVersion: carried.syncVersion - 1 } : carried);
  return stored && { ...change, payload: { ...change.payload, session: nextSession(stored, carried) } };
}

/**
 * The field write `change` (`sessions.update`, `delete`) merged into the session held, written apart from some
 * version of it: the session's next version (as for a compaction) with the fields of the later of the
 * field write held (`fieldsClock`; absent, the creation, earlier than every write) and `change`, deleted when
 * either is a delete. Undefined when the session is missing or another creation.
 */
export function mergeSessionFields(
  view: FoldView,
  change: StateChangeOf<typeof EventTypes.SessionUpdated | typeof EventTypes.SessionDeleted>,
): StateChange | undefined {
  const carried = withFieldsClock(change.payload.session);
  const stored = sessionApart(view, carried);
  if (!stored) return undefined;
  const session = { ...nextSession(stored, carried), ...laterFields(stored, carried), deleted: stored.deleted || carried.deleted };
  return { ...change, type: session.deleted ? EventTypes.SessionDeleted : EventTypes.SessionUpdated, payload: { ...change.payload, session } };
}

/**
 * The session held, `stored`, merged with `tombstone`, a purge's erased tombstone of it written apart from some
 * version of it: the purge wins and stays, so the result is erased and deleted, whatever field write, compaction
 * or transcript change its writer did not hold; otherwise it merges as a field write does (the later fields and
 * summary by (HLC, writer), then erased), so it equals what those versions give when they arrive after the purge,
 * stored erased (sync/receive.ts).
 */
export function mergePurgedSession(stored: Session, tombstone: Session): Session {
  return eraseSession({ ...nextSession(stored, tombstone), ...laterFields(stored, tombstone), deleted: true });
}

/** The fields of the later field write of `stored` and `carried` by their `fieldsClock` (absent: the creation, earlier than every write). */
function laterFields(stored: Session, carried: Session): Pick<Session, 'title' | 'metadata' | 'scope' | 'fieldsClock'> {
  const later =
    carried.fieldsClock !== undefined && (stored.fieldsClock === undefined || compareVersions(carried.fieldsClock, stored.fieldsClock) > 0) ? carried : stored;
  const { title, metadata, scope, fieldsClock } = later;
  return fieldsClock === undefined ? { title, metadata, scope } : { title, metadata, scope, fieldsClock };
}

/**
 * The session held that `carried`, a version of it written apart from it, merges into; undefined when none can
 * be: it is missing or another creation. Its fields and `deleted` may differ: a field write apart wrote them.
 */
export function sessionApart(view: FoldView, carried: Session): Session | undefined {
  const stored = view.session(carried.id);
  if (!stored || compareVersions(carried, stored) === 0 || carried.syncVersion > stored.syncVersion) return undefined;
  return stored.model === carried.model && stored.createdAt === carried.createdAt && stored.originInstanceId === carried.originInstanceId ? stored : undefined;
}

/** The session held, `stored`, one version on by `carried`: the greater clock and writer, `updatedAt` never back, the later summary. */
function nextSession(stored: Session, carried: Session): Session {
  const { updatedHlc, lastWriterId } = compareVersions(carried, stored) > 0 ? carried : stored;
  const session: Session = {
    ...stored,
    updatedAt: laterInstant(stored.updatedAt, carried.updatedAt),
    syncVersion: stored.syncVersion + 1,
    updatedHlc,
    lastWriterId,
  };
  const summary = laterSummary(stored.summary, carried.summary);
  if (summary !== undefined) session.summary = summary;
  return session;
}
