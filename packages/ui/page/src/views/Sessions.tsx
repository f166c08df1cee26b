/**
 * Sessions: a paged list by namespace, a search over turns, and the chosen
 * session's transcript with its metadata, under its summary once it was
 * compacted. The list follows new events.
 */
import type { Session, Turn } from '@agentstate/core';
import { useEffect, useState } from 'react';
import { del, get, type SessionHit, type SessionPage } from '../api';
import { useChanges } from '../live';
import { purgeConfirmed } from '../purge';
import { History } from '../parts/History';
import { NamespacePicker } from '../parts/NamespacePicker';
import { coveredCount, Summary } from '../parts/Summary';
import { Transcript } from '../parts/Transcript';
import { count, scopeText, useLoad, when } from '../util';

const PAGE = 50;
/** The name of the performance mark set when the first page of sessions is on screen. */
const SESSIONS_LISTED = 'agentstate:sessions-listed';

function SessionList({ namespace, selected, onSelect }: { namespace: string; selected?: string; onSelect: (id: string) => void }) {
  const changes = useChanges();
  const [pages, setPages] = useState(1);
  // One request for every page shown, so a live reload keeps what was loaded.
  const list = useLoad(() => get<SessionPage>('/sessions', { namespace, limit: PAGE * pages }), [namespace, pages, changes]);
  const items = list.value?.items ?? [];
  const listed = items.length > 0;
  // Marks the first frame with sessions on screen, for bench/ui.ts's first-paint figure.
  useEffect(() => {
    if (listed) requestAnimationFrame(() => performance.mark(SESSIONS_LISTED));
  }, [listed]);
  return (
    <>
      <ul className="list" data-testid="session-list">
        {items.map((s) => (
          <li key={s.id}>
            <button type="button" className={s.id === selected ? 'row selected' : 'row'} onClick={() => onSelect(s.id)}>
              <span className="title">{s.title || '(untitled)'}</span>
              <span className="muted">
                {scopeText(s.scope)} · {s.model || 'no model'} · {when(s.createdAt)}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {list.value?.nextCursor && (
        <button type="button" onClick={() => setPages((p) => p + 1)}>
          more sessions
        </button>
      )}
      {!list.loading && items.length === 0 && <p className="muted">no sessions</p>}
      {list.error && <p className="error">{list.error}</p>}
    </>
  );
}

function SearchResults({ query, namespace, onSelect }: { query: string; namespace: string; onSelect: (id: string) => void }) {
  const changes = useChanges();
  const hits = useLoad(() => get<SessionHit[]>('/sessions/search', { q: query, namespace }), [query, namespace, changes]);
  return (
    <ul className="list" data-testid="search-results">
      {(hits.value ?? []).map((h) => (
        <li key={h.turn.id}>
          <button type="button" className="row" onClick={() => onSelect(h.session.id)}>
            <span className="title">{h.session.title || '(untitled)'}</span>
            <span className="snippet">
              <span className={`role ${h.turn.role}`}>{h.turn.role}</span> {h.turn.content.slice(0, 160)}
            </span>
            <span className="muted">score {h.score.toFixed(3)}</span>
          </button>
        </li>
      ))}
      {hits.value?.length === 0 && <li className="muted">no turn matches</li>}
      {hits.error && <li className="error">{hits.error}</li>}
    </ul>
  );
}

function SessionDetail({ id, allowWrites, onDeleted }: { id: string; allowWrites: boolean; onDeleted: () => void }) {
  const changes = useChanges();
  const [showCovered, setShowCovered] = useState(false);
  // The session at every new event (cheap); its transcript only when the session changed.
  const meta = useLoad(() => get<Session>(`/sessions/${encodeURIComponent(id)}`), [id, changes]);
  const version = meta.value?.syncVersion;
  const transcript = useLoad(
    () => (version === undefined ? Promise.resolve(undefined) : get<Turn[]>(`/sessions/${encodeURIComponent(id)}/turns`)),
    [id, version],
  );
  const error = meta.error ?? transcript.error;
  if (error) return <p className="error">{error}</p>;
  if (!meta.value || !transcript.value) return <p className="muted">loading…</p>;
  const session = meta.value;
  const turns = transcript.value;
  const summary = session.summary;
  const covered = summary ? coveredCount(summary, turns) : 0;
  const remove = async () => {
    if (!window.confirm(`Delete the session "${session.title || session.id}"? It becomes a tombstone in the log.`)) return;
    await del(`/sessions/${encodeURIComponent(id)}`);
    onDeleted();
  };
  const purge = async () => {
    if (await purgeConfirmed(id, `the session "${session.title || session.id}" with its ${count(turns.length)} turns`)) onDeleted();
  };
  return (
    <section className="detail">
      <h2>{session.title || '(untitled)'}</h2>
      <p className="muted">
        {session.id} · {scopeText(session.scope)} · {session.model || 'no model'} · {count(turns.length)} turns · created {when(session.createdAt)}
      </p>
      {Object.keys(session.metadata).length > 0 && <pre className="small">{JSON.stringify(session.metadata, null, 2)}</pre>}
      {allowWrites && (
        <button type="button" className="danger" onClick={() => void remove()}>
          delete session
        </button>
      )}{' '}
      {allowWrites && (
        <button type="button" className="danger" onClick={() => void purge()}>
          purge session
        </button>
      )}
      <History id={session.id} version={session.syncVersion} seqOf={(turnId) => turns.find((t) => t.id === turnId)?.seq} />
      {summary && <Summary summary={summary} turns={turns} open={showCovered} onToggle={() => setShowCovered(!showCovered)} />}
      <Transcript turns={showCovered ? turns : turns.slice(covered)} covered={showCovered ? covered : 0} />
    </section>
  );
}

export function SessionsView({ allowWrites }: { allowWrites: boolean }) {
  const [namespace, setNamespace] = useState('');
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<string | undefined>();
  // Search as the user pauses typing, not at every key.
  useEffect(() => {
    const timer = window.setTimeout(() => setQuery(typed.trim()), 250);
    return () => window.clearTimeout(timer);
  }, [typed]);
  return (
    <div className="split" data-testid="view-sessions">
      <aside>
        <div className="controls">
          <NamespacePicker value={namespace} onChange={setNamespace} />
          <input type="search" placeholder="search turns…" aria-label="search turns" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} />
        </div>
        {query ? (
          <SearchResults query={query} namespace={namespace} onSelect={setSelected} />
        ) : (
          <SessionList key={namespace} namespace={namespace} selected={selected} onSelect={setSelected} />
        )}
      </aside>
      {selected ? (
        <SessionDetail key={selected} id={selected} allowWrites={allowWrites} onDeleted={() => setSelected(undefined)} />
      ) : (
        <p className="muted detail">choose a session</p>
      )}
    </div>
  );
}
