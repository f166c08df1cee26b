/**
 * The frame of the page: the view tabs (routed by the address's hash), the
 * store's name and the live head. Only the sessions view is in the first
 * script; the others (Markdown, charts, time travel) are fetched when opened,
 * so the first paint waits on as little code as it can.
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import { get, type Overview } from './api';
import { ChangesContext, HeadContext, useLiveHead } from './live';
import { VIEWS, type View, viewOf } from './route';
import { count, useLoad } from './util';
import { SessionsView } from './views/Sessions';

const MemoryView = lazy(() => import('./views/Memory').then((m) => ({ default: m.MemoryView })));
const SkillsView = lazy(() => import('./views/Skills').then((m) => ({ default: m.SkillsView })));
const TimelineView = lazy(() => import('./views/Timeline').then((m) => ({ default: m.TimelineView })));
const HealthView = lazy(() => import('./views/Health').then((m) => ({ default: m.HealthView })));

export function App() {
  const [view, setView] = useState<View>(() => viewOf(location.hash));
  useEffect(() => {
    const follow = () => setView(viewOf(location.hash));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  const { head, changes } = useLiveHead();
  const overview = useLoad(() => get<Overview>('/overview'), []);
  const o = overview.value;
  return (
    <HeadContext.Provider value={head}>
      <ChangesContext.Provider value={changes}>
        <header className="top">
          <strong className="brand">agentstate</strong>
          <nav>
            {VIEWS.map((v) => (
              <a key={v} href={`#/${v}`} className={v === view ? 'tab active' : 'tab'} data-view={v}>
                {v[0]!.toUpperCase() + v.slice(1)}
              </a>
            ))}
          </nav>
          <span className="muted right" data-testid="head">
            {o ? `${o.backend}${o.allowWrites ? ' · writes allowed' : ' · read-only'} · ` : ''}
            {count(head)} events <span className={head > 0 ? 'dot live' : 'dot'} title="live" />
          </span>
        </header>
        {overview.error && <p className="error">{overview.error}</p>}
        <main>
          <Suspense fallback={<p className="muted">loading…</p>}>
            {view === 'sessions' && <SessionsView allowWrites={o?.allowWrites === true} />}
            {view === 'memory' && <MemoryView allowWrites={o?.allowWrites === true} />}
            {view === 'skills' && <SkillsView allowWrites={o?.allowWrites === true} />}
            {view === 'timeline' && <TimelineView eventTypes={o?.eventTypes ?? []} />}
            {view === 'health' && <HealthView canVerify={o?.canVerify === true} />}
          </Suspense>
        </main>
      </ChangesContext.Provider>
    </HeadContext.Provider>
  );
}
