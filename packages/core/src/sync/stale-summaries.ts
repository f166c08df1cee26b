/**
 * A received purge does what a local one does to the summaries that cover a turn it erased (docs/contract.md §4,
 * "Compaction"; §12, "Merge"): after a batch, every live summary that covers a turn purged by a purge the batch brought,
 * or that the batch brought covering a turn a purge held here erased after it by the clock, gets its stale mark, an
 * event of the receiving store's own. Marks written apart on two stores merge as any two summaries do: the later
 * stands, stale either way.
 */
import { changeRecords } from '../log/changes.js';
import { decodeStateEvent } from '../log/decode.js';
import { EventTypes, type StateChange } from '../log/events.js';
import type { Log, LogEvent } from '../log/log.js';
import { ERASED } from '../log/redact.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import { compareVersions } from '../fold/merge-records.js';
import { recordEvents } from '../provider/history.js';
import { coveringSummaries } from '../provider/purge.js';
import type { Session, SessionSummary, Turn } from '../records/records.js';
import type { StateLookups } from '../write/backend.js';

/**
 * The summaries a received purge may make stale, before `received` is folded: those held, or brought earlier in the
 * batch, when a purge of a turn of their session arrives. A summary the batch brings after the purge may have been
 * written after it (its sender's log holds the purge first), and is judged by its clock (`summariesToMark`).
 */
export async function summariesBeforePurges(tx: StateLookups, received: readonly StateChange[]): Promise<Set<string>> {
  const before = new Set<string>();
  const brought = new Map<string, SessionSummary>();
  for (const change of received) {
    if (change.type === EventTypes.SessionCompacted && change.payload.session.summary !== undefined)
      brought.set(change.payload.session.id, change.payload.session.summary);
    if (change.type !== EventTypes.RecordsPurged) continue;
    for (const sessionId of new Set(change.payload.turns.map((turn) => turn.sessionId))) {
      const summary = brought.get(sessionId) ?? (await tx.session(sessionId))?.summary;
      if (summary !== undefined) before.add(summaryKey(summary));
    }
  }
  return before;
}

/**
 * The live sessions whose summary, not yet stale, covers a turn purged here, after `received` was folded: by a purge
 * the batch brought, when that summary was held before it (`before`, from {@link summariesBeforePurges}), or by a
 * purge held here later by the clock than a summary the batch brought.
 */
export async function summariesToMark(
  tx: StateLookups,
  log: Log,
  received: readonly StateChange[],
  before: ReadonlySet<string>,
  upcasters: UpcasterRegistry | undefined,
): Promise<Session[]> {
  const turns: Turn[] = [];
  const sessions: Session[] = [];
  const compacted = new Set<string>();
  for (const change of received) {
    if (change.type === EventTypes.SessionCompacted) compacted.add(change.payload.session.id);
    if (change.type !== EventTypes.RecordsPurged) continue;
    sessions.push(...change.payload.sessions);
    // Where each stands here: appends merged apart may have moved it.
    for (const { id } of change.payload.turns) turns.push((await tx.turn(id))!);
  }
  const covering = turns.length === 0 ? [] : await coveringSummaries(tx, { sessions, turns, skills: [], memory: [] });
  const marked = covering.filter((session) => before.has(summaryKey(session.summary!)));
  for (const id of compacted) {
    if (marked.some((session) => session.id === id)) continue;
    const purged = await purgedTurnsCovered(tx, log, id, upcasters);
    if (purged.length > 0) marked.push(...(await coveringSummaries(tx, { sessions: [], turns: purged, skills: [], memory: [] })));
  }
  return marked;
}

/** A summary's identity: its clock and writer. */
function summaryKey(summary: SessionSummary): string {
  return `${summary.updatedHlc.wall} ${summary.updatedHlc.counter} ${summary.lastWriterId}`;
}

/**
 * The turns of session `id` that a purge held here erased after its summary by the clock, at or before the turn that
 * summary covers the transcript through, when it is live and not stale: none when every turn up to it is live. A
 * purge earlier by the clock may have been held by the summary's writer, which then summarised no erased text; a
 * later one was not (its writer's clock would be past it), so the summary was written apart from it. The session's
 * history names its turns, and each tombstone's history its purges (a user may have written `[erased]`).
 */
async function purgedTurnsCovered(tx: StateLookups, log: Log, id: string, upcasters: UpcasterRegistry | undefined): Promise<Turn[]> {
  const session = await tx.session(id);
  const summary = session?.summary;
  if (!session || session.deleted || summary === undefined || summary.stale) return [];
  const through = await tx.turn(summary.through);
  if (through === undefined) return [];
  const live = (await tx.lastTurns(id, 0)).filter((turn) => turn.seq <= through.seq).length;
  if (live === through.seq) return [];
  const decode = (event: LogEvent) => decodeStateEvent(event, upcasters ? { upcasters } : {});
  const ids = new Set<string>();
  for (const { event } of await recordEvents(tx, log, id))
    if (event !== undefined) for (const entry of changeRecords(decode(event))) if (entry.kind === 'turn') ids.add(entry.record.id);
  const purged: Turn[] = [];
  for (const turnId of ids) {
    const turn = await tx.turn(turnId);
    if (!turn?.deleted || turn.content !== ERASED || turn.seq > through.seq) continue;
    const purges = (await recordEvents(tx, log, turnId)).flatMap(({ event }) => {
      const change = event?.type === EventTypes.RecordsPurged ? decode(event) : undefined;
      return change?.type === EventTypes.RecordsPurged ? change.payload.turns.filter((erased) => erased.id === turnId) : [];
    });
    if (purges.some((erased) => compareVersions(erased, summary) > 0)) purged.push(turn);
  }
  return purged;
}
