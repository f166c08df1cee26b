/**
 * Memory: the recall playground. One query runs in the three modes at once,
 * lexical, semantic and hybrid, shown side by side with their scores;
 * namespace, kind and metadata filters apply to all three. Each hit
 * unfolds its history: every version of the item and what changed. A
 * scope's working memory, which recall leaves out unless its kind is
 * asked for, is named as such rather than by its reserved key.
 */
import { useEffect, useState } from 'react';
import { del, get, type RecallHit } from '../api';
import { useChanges } from '../live';
import { purgeConfirmed } from '../purge';
import { History } from '../parts/History';
import { NamespacePicker } from '../parts/NamespacePicker';
import { scopeText, useLoad, when } from '../util';

const MODES = ['lexical', 'semantic', 'hybrid'] as const;

/** Core's `WORKING_MEMORY`, the reserved key and kind of a scope's working memory: the page bundles no code of core, only its types. */
const WORKING_MEMORY = 'working-memory';

interface Filters {
  q: string;
  namespace: string;
  kinds: string;
  where: string;
}

function Column({ mode, filters, allowWrites }: { mode: (typeof MODES)[number]; filters: Filters; allowWrites: boolean }) {
  const changes = useChanges();
  const hits = useLoad(() => get<RecallHit[]>('/recall', { mode, ...filters }), [mode, filters, changes]);
  const remove = async (hit: RecallHit) => {
    if (!window.confirm(`Delete the memory item "${hit.content.slice(0, 80)}"?`)) return;
    await del(`/memory/${encodeURIComponent(hit.id)}`);
  };
  const purge = (hit: RecallHit) => purgeConfirmed(hit.id, `the memory item "${hit.content.slice(0, 80)}"`);
  return (
    <section className="column" data-testid={`recall-${mode}`}>
      <h3>{mode}</h3>
      {hits.error && <p className="error">{hits.error}</p>}
      <ol className="hits">
        {(hits.value ?? []).map((h) => (
          <li key={h.id} className="hit">
            <div className="hit-head">
              <span className="score" title="score">
                {h.score.toFixed(3)}
              </span>
              <span className="bar" style={{ width: `${Math.round(h.score * 100)}%` }} />
            </div>
            <div className="text">{h.content}</div>
            <div className="muted">
              {h.key === WORKING_MEMORY ? <span className="chip">working memory</span> : h.kind || 'no kind'} · {scopeText(h.scope)} · {when(h.updatedAt)}
              {h.key && h.key !== WORKING_MEMORY ? ` · key ${h.key}` : ''}
            </div>
            {Object.keys(h.metadata).length > 0 && <div className="muted mono">{JSON.stringify(h.metadata)}</div>}
            <History id={h.id} version={h.syncVersion} />
            {allowWrites && (
              <>
                <button type="button" className="danger small" onClick={() => void remove(h)}>
                  delete
                </button>{' '}
                <button type="button" className="danger small" onClick={() => void purge(h)}>
                  purge
                </button>
              </>
            )}
          </li>
        ))}
      </ol>
      {hits.value?.length === 0 && <p className="muted">nothing recalled</p>}
    </section>
  );
}

export function MemoryView({ allowWrites }: { allowWrites: boolean }) {
  const [draft, setDraft] = useState<Filters>({ q: '', namespace: '', kinds: '', where: '' });
  const [filters, setFilters] = useState<Filters>(draft);
  useEffect(() => {
    const timer = window.setTimeout(() => setFilters(draft), 250);
    return () => window.clearTimeout(timer);
  }, [draft]);
  const set = (key: keyof Filters) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));
  return (
    <div data-testid="view-memory">
      <div className="controls wide">
        <input type="search" placeholder="recall query…" aria-label="recall query" value={draft.q} onChange={(e) => set('q')(e.currentTarget.value)} />
        <NamespacePicker value={draft.namespace} onChange={set('namespace')} />
        <input placeholder="kinds (comma separated)" aria-label="kinds" value={draft.kinds} onChange={(e) => set('kinds')(e.currentTarget.value)} />
        <input
          placeholder='metadata, e.g. {"topic":"billing"}'
          aria-label="metadata filter"
          value={draft.where}
          onChange={(e) => set('where')(e.currentTarget.value)}
        />
      </div>
      <div className="columns">
        {MODES.map((mode) => (
          <Column key={mode} mode={mode} filters={filters} allowWrites={allowWrites} />
        ))}
      </div>
    </div>
  );
}
