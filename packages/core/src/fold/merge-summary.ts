/**
 * Merging a compaction written apart (docs/contract.md §12, "Merge"): a session's summary is a
 * last-writer-wins field, so of two summaries the later by (HLC, writer) stands, whatever order
 * they arrive in; a compaction changes nothing else of its session.
 */
import { canonicalJson } from '../log/json.js';
import type { EventTypes, StateChange, StateChangeOf } from '../log/events.js';
import type { Session, SessionSummary } from '../records/records.js';
import { compareHlc } from '../time/hlc.js';
import { laterInstant } from '../time/instant.js';
import type { FoldView } from './fold-rules.js';
import { compareVersions } from './merge-records.js';

/** The later of two summaries by (HLC, writer); either may be absent. */
export function laterSummary(a: SessionSummary | undefined, b: SessionSummary | undefined): SessionSummary | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const order = compareHlc(a.updatedHlc, b.updatedHlc) || (a.lastWriterId < b.lastWriterId ? -1 : a.lastWriterId > b.lastWriterId ? 1 : 0);
  return order >= 0 ? a : b;
}

/**
 * The compaction `change` merged into the live session held, written apart from some version of it: the
 * session's next version (the envelope as for an append) with the later summary. Undefined when no rule
 * covers it: the session is missing, deleted or another creation, or its other fields differ from those
 * held (written apart from a change of them, which is refused in either order). Its turn may have been
 * removed here meanwhile: `context` then leaves the summary out.
 */
export function mergeCompaction(view: FoldView, change: StateChangeOf<typeof EventTypes.SessionCompacted>): StateChange | undefined {
  const carried = change.payload.session;
  const stored = view.session(carried.id);
  if (!stored || stored.deleted || carried.syncVersion > stored.syncVersion || compareVersions(carried, stored) === 0) return undefined;
  const fields = (s: Session) => canonicalJson([s.title, s.model, s.metadata, s.scope, s.createdAt, s.originInstanceId]);
  if (fields(carried) !== fields(stored)) return undefined;
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
  return { ...change, payload: { ...change.payload, session } };
}
