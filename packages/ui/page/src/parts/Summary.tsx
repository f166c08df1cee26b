/**
 * A session's current summary (docs/contract.md §4 "Compaction"), shown
 * above its transcript: its text, the turns it covers by seq as the
 * session stands now, who wrote it and when, and whether `context` still
 * uses it. The transcript stays whole: the covered turns are folded under
 * the summary until the user opens them.
 */
import type { SessionSummary, Turn } from '@agentstate/core';
import { count, when } from '../util';

/** Why `context` leaves the summary out, if it does: a purge of a turn it covers, or the removal of its turn. */
function staleReason(summary: SessionSummary, turns: readonly Turn[]): string | undefined {
  if (summary.stale) return 'a turn it covers was purged';
  return turns.some((t) => t.id === summary.through) ? undefined : 'its turn was removed';
}

/** How many turns, from the first, the summary covers: those up to its turn by seq (turns come in seq order); none when its turn is gone. */
export function coveredCount(summary: SessionSummary, turns: readonly Turn[]): number {
  return turns.findIndex((t) => t.id === summary.through) + 1;
}

/** The summary block, with the button that opens or folds the turns it covers. */
export function Summary({ summary, turns, open, onToggle }: { summary: SessionSummary; turns: readonly Turn[]; open: boolean; onToggle: () => void }) {
  const covered = coveredCount(summary, turns);
  const stale = staleReason(summary, turns);
  return (
    <section className={stale ? 'summary stale' : 'summary'} data-testid="summary">
      <div className="turn-head">
        <span className="role">summary</span>
        <span className="through">{covered > 0 ? `through turn #${turns[covered - 1]!.seq}` : 'through a turn no longer in the transcript'}</span>
        {summary.model && <span className="chip">{summary.model}</span>}
        {summary.tokens !== undefined && <span className="chip">{count(summary.tokens)} tokens</span>}
        <span className="muted">{when(summary.createdAt)}</span>
        {stale && (
          <span className="chip conflict" title={`context no longer uses it: ${stale}`}>
            stale: {stale}
          </span>
        )}
      </div>
      <div className="text">{summary.text}</div>
      {covered > 0 && (
        <button type="button" className="small" aria-expanded={open} onClick={onToggle}>
          {open ? `hide the ${count(covered)} covered turns` : `show the ${count(covered)} covered turns`}
        </button>
      )}
    </section>
  );
}
