/** The frame of the page: the view tabs (routed by the address's hash), the store's name and the live head. */
import { useEffect, useState } from 'react';
import { get, type Overview } from './api';
import { HeadContext, useLiveHead } from './live';
import { count, useLoad } from './util';
import { HealthView } from './views/Health';
import { MemoryView } from './views/Memory';
import { SessionsView } from './views/Sessions';
import { SkillsView } from './views/Skills';
import { TimelineView } from './views/Timeline';

const VIEWS = ['sessions', 'memory', 'skills', 'timeline', 'health'] as const;
type View = (typeof VIEWS)[number];

function viewOf(hash: string): View {
  const name = hash.replace(/^#\/?/, '').split('/')[0];
  return (VIEWS as readonly string[]).includes(name ?? '') ? (name as View) : 'sessions';
}

export function App() {
  const [view, setView] = useState<View>(() => viewOf(location.hash));
  useEffect(() => {
    const follow = () => setView(viewOf(location.hash));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  const head = useLiveHead();
  const overview = useLoad(() => get<Overview>('/overview'), []);
  const o = overview.value;
  return (
    <HeadContext.Provider value={head}>
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
        {view === 'sessions' && <SessionsView allowWrites={o?.allowWrites === true} />}
        {view === 'memory' && <MemoryView allowWrites={o?.allowWrites === true} />}
        {view === 'skills' && <SkillsView allowWrites={o?.allowWrites === true} />}
        {view === 'timeline' && <TimelineView eventTypes={o?.eventTypes ?? []} />}
        {view === 'health' && <HealthView canVerify={o?.canVerify === true} />}
      </main>
    </HeadContext.Provider>
  );
}
