/**
 * A record's history (`provider.history`): every version of a session,
 * skill or memory item, oldest first, with the event that wrote it and what
 * changed from the version before. Loaded when unfolded, so a list of hits
 * does not ask for every record's history.
 */
import { useState } from 'react';
import { get, type RecordVersion } from '../api';
import { useLoad, when } from '../util';

/** The fields that differ between two versions, bookkeeping left out. */
const BOOKKEEPING = new Set(['updatedAt', 'syncVersion', 'lastWriterId', 'hlc', 'seq']);

function changedFields(before: Record<string, unknown> | undefined, after: Record<string, unknown>): string[] {
  if (!before) return [];
  return Object.keys(after).filter((k) => !BOOKKEEPING.has(k) && JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

function brief(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
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

function Versions({ id }: { id: string }) {
  const versions = useLoad(() => get<RecordVersion[]>(`/history/${encodeURIComponent(id)}`), [id]);
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
                    <span className="mono">{f}</span>: <span className="before">{brief(list[i - 1]?.record[f])}</span> →{' '}
                    <span className="after">{brief(v.record[f])}</span>
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

/** A "history" button that unfolds the record's versions. */
export function History({ id }: { id: string }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="history-fold">
      <button type="button" className="small" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'hide history' : 'history'}
      </button>
      {open && <Versions id={id} />}
    </div>
  );
}
