/**
 * Timeline: the event log, newest first, filtered by type, namespace and
 * writer; new events appear as they commit. The slider picks a point of the
 * log and shows how much the state held then, beside the head and the
 * difference between the two.
 */
import { useEffect, useState } from 'react';
import { type EventPage, get, type StateCounts, type TimelineEvent } from '../api';
import { useHead } from '../live';
import { count, useLoad, when } from '../util';

/** An event in a few words, read defensively from its payload. */
function summary(e: TimelineEvent): string {
  const p = (e.payload ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const s = p.session;
  const t = p.turn;
  if (t) return `${String(t.role)}: ${String(t.content ?? '').slice(0, 120)}`;
  if (p.skill) return `${String(p.skill.slug)} v${String(p.skill.version)} (${String(p.skill.wins)}/${String(p.skill.uses)})`;
  if (p.item) return `${String(p.item.kind || 'memory')}: ${String(p.item.content ?? '').slice(0, 120)}`;
  if (s) return `${String(s.title || s.id)}`;
  return JSON.stringify(e.payload).slice(0, 120);
}

function EventRow({ event }: { event: TimelineEvent }) {
  const [open, setOpen] = useState(false);
  return (
    <li className="event">
      <button type="button" className="row" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="seq">#{event.seq}</span>
        <span className="type">{event.type}</span>
        <span className="muted">{when(event.time)}</span>
        <span className="muted">{event.namespace ?? ''}</span>
        <span className="summary">{summary(event)}</span>
      </button>
      {open && <pre className="small">{JSON.stringify(event, null, 2)}</pre>}
    </li>
  );
}

const KINDS = ['sessions', 'skills', 'memory'] as const;

function Counts({ at, head }: { at: StateCounts; head: StateCounts }) {
  const diff = (a: number, b: number) => (b === a ? '' : ` (${b > a ? '+' : ''}${count(b - a)} since)`);
  return (
    <table className="counts" data-testid="counts">
      <thead>
        <tr>
          <th />
          <th>as of #{count(at.seq)}</th>
          <th>at the head #{count(head.seq)}</th>
        </tr>
      </thead>
      <tbody>
        {KINDS.map((k) => (
          <tr key={k} data-kind={k}>
            <td>{k}</td>
            <td className="num" data-testid={`count-${k}`}>
              {count(at[k].live)}
            </td>
            <td className="num">
              {count(head[k].live)}
              <span className="muted">{diff(at[k].live, head[k].live)}</span>
            </td>
          </tr>
        ))}
        <tr data-kind="turns">
          <td>turns</td>
          <td className="num" data-testid="count-turns">
            {count(at.turns)}
          </td>
          <td className="num">
            {count(head.turns)}
            <span className="muted">{diff(at.turns, head.turns)}</span>
          </td>
        </tr>
      </tbody>
    </table>
  );
}

function TimeTravel() {
  const head = useHead();
  const [seq, setSeq] = useState<number | undefined>();
  const [asked, setAsked] = useState<number | undefined>();
  // Fold the past state when the slider rests, not at every step of a drag.
  useEffect(() => {
    const timer = window.setTimeout(() => setAsked(seq), 200);
    return () => window.clearTimeout(timer);
  }, [seq]);
  const at = useLoad(() => get<StateCounts>('/counts', { seq: asked }), [asked, asked === undefined ? head : 0]);
  const now = useLoad(() => get<StateCounts>('/counts'), [head]);
  const value = seq ?? head;
  return (
    <section className="travel">
      <label>
        state as of event <strong data-testid="slider-seq">#{count(value)}</strong>
        <input type="range" min={0} max={head} value={value} aria-label="time travel" onChange={(e) => setSeq(Number(e.currentTarget.value))} />
      </label>
      {at.value && now.value && <Counts at={at.value} head={now.value} />}
      {at.error && <p className="error">{at.error}</p>}
    </section>
  );
}

export function TimelineView({ eventTypes }: { eventTypes: string[] }) {
  const head = useHead();
  const [type, setType] = useState('');
  const [namespace, setNamespace] = useState('');
  const [writer, setWriter] = useState('');
  const [older, setOlder] = useState<TimelineEvent[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const filters = { type, namespace, writer };
  const first = useLoad(() => get<EventPage>('/log', { ...filters, limit: 100 }), [type, namespace, writer, head]);
  useEffect(() => {
    setOlder([]);
    setNext(first.value?.nextBefore ?? null);
  }, [first.value]);
  const loadOlder = async () => {
    if (next === null) return;
    const page = await get<EventPage>('/log', { ...filters, limit: 100, before: next });
    setOlder((o) => [...o, ...page.events]);
    setNext(page.nextBefore);
  };
  const events = [...(first.value?.events ?? []), ...older];
  return (
    <div data-testid="view-timeline">
      <TimeTravel />
      <div className="controls wide">
        <select aria-label="event type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
          <option value="">all types</option>
          {eventTypes.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <input placeholder="namespace (team/web)" aria-label="namespace filter" value={namespace} onChange={(e) => setNamespace(e.currentTarget.value)} />
        <input placeholder="writer instance id" aria-label="writer filter" value={writer} onChange={(e) => setWriter(e.currentTarget.value)} />
      </div>
      {first.error && <p className="error">{first.error}</p>}
      <ul className="events" data-testid="events">
        {events.map((e) => (
          <EventRow key={e.seq} event={e} />
        ))}
      </ul>
      {events.length === 0 && !first.loading && <p className="muted">no events match</p>}
      {next !== null && (
        <button type="button" onClick={() => void loadOlder()}>
          older events
        </button>
      )}
    </div>
  );
}
