/**
 * A record's history (`provider.history`): every version of a session,
 * skill or memory item, oldest first, with the event that wrote it and what
 * changed from the version before. Loaded when unfolded, so a list of hits
 * does not ask for every record's history.
 */
import type { SessionSummary } from '@agentstate/core';
import { useState } from 'react';
import { get, type RecordVersion } from '../api';
import { useLoad, when } from '../util';

/** The fields that differ between two versions, bookkeeping left out. */
const BOOKKEEPING = new Set(['updatedAt', 'updatedHlc', 'syncVersion', 'lastWriterId', 'hlc', 'seq']);

function changedFields(before: Record<string, unknown> | undefined, after: Record<string, unknown>): string[] {
  if (!before) return [];
  return Object.keys(after).filter((k) => !BOOKKEEPING.has(k) && JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

/** A session's summary as a line: its text, then the turn it runs through (by seq when the caller knows it, else its id) and its marks. */
function summaryText(summary: Partial<SessionSummary>, seqOf: (turnId: string) => number | undefined): string {
  const through = summary.through === undefined ? undefined : seqOf(summary.through);
  const marks = [
    `through turn ${through === undefined ? String(summary.through) : `#${through}`}`,
    summary.model,
    summary.tokens === undefined ? undefined : `${summary.tokens} tokens`,
    summary.stale ? 'stale' : undefined,
  ];
  return `${String(summary.text)} (${marks.filter(Boolean).join(', ')})`;
}

function brief(field: string, value: unknown, seqOf: (turnId: string) => number | undefined): string {
  // A field the version before did not have (a first summary) is shown as absent: JSON has no text for undefined.
  const text =
    value === undefined
      ? '(none)'
      : typeof value === 'string'
        ? value
        : field === 'summary' && value !== null && typeof value === 'object'
          ? summaryText(value as Partial<SessionSummary>, seqOf)
          : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** The marks of a version beside its event: who wrote it, whether a purge erased it, whether it lost a merge (docs/contract.md §12). */
function Marks({ version }: { version: RecordVersion }) {
  return (
    <>
      {version.actor && <span className="chip">by {version.actor}</span>}
      {version.erasedBy !== undefined && <span className="chip">erased by #{version.erasedBy}</span>}
      {version.conflict && (
        <span className="chip conflict" title="written apart from a later version, which won the merge">
          conflict
        </span>
      )}
    </>
  );
}

function Versions({ id, version, seqOf }: { id: string; version: number | undefined; seqOf: (turnId: string) => number | undefined }) {
  // Again when the record has a new version, so an open history shows it (a summary written or marked stale, say).
  const versions = useLoad(() => get<RecordVersion[]>(`/history/${encodeURIComponent(id)}`), [id, version]);
  if (versions.error) return <p className="error">{versions.error}</p>;
  if (!versions.value) return <p className="muted">loading…</p>;
  const list = versions.value;
  return (
    <ol className="history" data-testid="history">
      {list.map((v, i) => {
        const fields = changedFields(list[i - 1]?.record, v.record);
        return (
          <li key={v.seq} className="version">
            <span className="seq">#{v.seq}</span> <span className="type">{v.type}</span> <span className="muted">{when(v.time)}</span>
            <Marks version={v} />
            {fields.length > 0 && (
              <ul className="fields">
                {fields.map((f) => (
                  <li key={f}>
                    <span className="mono">{f}</span>: <span className="before">{brief(f, list[i - 1]?.record[f], seqOf)}</span> →{' '}
                    <span className="after">{brief(f, v.record[f], seqOf)}</span>
                  </li>
                ))}
              </ul>
            )}
          </li>
        );
      })}
    </ol>
  );
}

const noSeq = (): undefined => undefined;

/**
 * A "history" button that unfolds the record's versions, loaded again when
 * `version` (the record's `syncVersion`) moves; `seqOf` names a summary's
 * turn by its seq now, when the caller has the turns.
 */
export function History({ id, version, seqOf = noSeq }: { id: string; version?: number; seqOf?: (turnId: string) => number | undefined }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="history-fold">
      <button type="button" className="small" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'hide history' : 'history'}
      </button>
      {open && <Versions id={id} version={version} seqOf={seqOf} />}
    </div>
  );
}
