/**
 * Timeline: the event log, newest first, filtered by type, namespace and
 * writer; new events appear as they commit. Time travel picks a point of
 * the log (an event or an instant) and shows how much the state held then
 * beside a second point, and what was created, changed and deleted between
 * the two.
 */
import { useEffect, useState } from 'react';
import { type DiffSummary, type EventPage, get, type StateCounts, type TimelineEvent } from '../api';
import { useChanges, useHead } from '../live';
import { Origin } from '../parts/Origin';
import { count, useLoad, when } from '../util';

/** A part as the transcript labels it: a tool call or result by its tool's name, anything else by its type. */
function partLabel(part: unknown): string | undefined {
  const p = (part ?? {}) as Record<string, unknown>;
  if (p.type === 'tool-call') return `tool call · ${String(p.toolName)}`;
  if (p.type === 'tool-result') return `${p.isError ? 'tool error' : 'tool result'} · ${String(p.toolName)}`;
  return typeof p.type === 'string' ? p.type : undefined;
}

/** A turn in a few words: its text, else its tool calls and results by tool name (a stored turn of parts alone has no content), else its parts' types. */
function turnSummary(t: Record<string, unknown>): string {
  const text = String(t.content ?? '').slice(0, 120);
  if (text !== '') return `${String(t.role)}: ${text}`;
  const parts = Array.isArray(t.parts) ? t.parts : [];
  const tools = parts.filter((p) => ['tool-call', 'tool-result'].includes(String((p as Record<string, unknown> | null)?.type)));
  const labels = (tools.length > 0 ? tools : parts).map(partLabel).filter((l) => l !== undefined);
  return `${String(t.role)}: ${labels.join(', ')}`;
}

/** An event in a few words, read defensively from its payload. */
function summary(e: TimelineEvent): string {
  const p = (e.payload ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const s = p.session;
  const t = p.turn;
  if (t) return turnSummary(t);
  if (p.skill) return `${String(p.skill.slug)} v${String(p.skill.version)} (${String(p.skill.wins)}/${String(p.skill.uses)})`;
  if (p.item) return `${String(p.item.kind || 'memory')}: ${String(p.item.content ?? '').slice(0, 120)}`;
  const compacted = e.type === 'session.compacted' ? (s?.summary as { text?: unknown; stale?: boolean } | undefined) : undefined;
  if (compacted) return `${String(s?.title || s?.id)}: ${compacted.stale ? 'summary marked stale' : `summary "${String(compacted.text).slice(0, 100)}"`}`;
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
        {event.origin !== undefined && <Origin origin={event.origin} seq={event.originSeq ?? 0} />}
        <span className="summary">{summary(event)}</span>
      </button>
      {open && <pre className="small">{JSON.stringify(event, null, 2)}</pre>}
    </li>
  );
}

const KINDS = ['sessions', 'skills', 'memory'] as const;

/** The counts at the two points; `head` is the head the page's header shows, so the table names the same one. */
function Counts({ at, to, head }: { at: StateCounts; to: StateCounts; head: number }) {
  const diff = (a: number, b: number) => (b === a ? '' : ` (${b > a ? '+' : ''}${count(b - a)})`);
  return (
    <table className="counts" data-testid="counts">
      <thead>
        <tr>
          <th />
          <th>as of #{count(at.seq)}</th>
          <th>
            as of #{count(to.seq)}
            {to.seq === head ? ' (the head)' : ''}
          </th>
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
              {count(to[k].live)}
              <span className="muted">{diff(at[k].live, to[k].live)}</span>
            </td>
          </tr>
        ))}
        <tr data-kind="turns">
          <td>turns</td>
          <td className="num" data-testid="count-turns">
            {count(at.turns)}
          </td>
          <td className="num">
            {count(to.turns)}
            <span className="muted">{diff(at.turns, to.turns)}</span>
          </td>
        </tr>
      </tbody>
    </table>
  );
}

const DIFF_KINDS = ['sessions', 'turns', 'skills', 'memory', 'checkpoints'] as const;
const CHANGES = ['created', 'changed', 'deleted'] as const;

/** What was created, changed and deleted between the two points (`provider.diff`), with the first records of each. */
function Diff({ diff }: { diff: DiffSummary }) {
  return (
    <table className="counts diff" data-testid="diff">
      <thead>
        <tr>
          <th>
            from #{count(diff.from.seq)} to #{count(diff.to.seq)}
          </th>
          {CHANGES.map((c) => (
            <th key={c}>{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {DIFF_KINDS.map((k) => (
          <tr key={k} data-testid={`diff-${k}`}>
            <td>{k}</td>
            {CHANGES.map((c) => (
              <td key={c} className={c}>
                <span className="num" data-testid={`diff-${k}-${c}`}>
                  {count(diff[k][c])}
                </span>
                {diff[k].sample[c].length > 0 && (
                  <ul>
                    {diff[k].sample[c].map((line) => (
                      <li key={line.id} title={line.id}>
                        {line.label}
                      </li>
                    ))}
                    {diff[k][c] > diff[k].sample[c].length && <li className="muted">and {count(diff[k][c] - diff[k].sample[c].length)} more</li>}
                  </ul>
                )}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A value that follows `value` once it has rested for `ms` (a slider being dragged asks the server only when it stops). */
function useRested<T>(value: T, ms = 200): T {
  const [rested, setRested] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setRested(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return rested;
}

/** The counts at two points and their diff, when they are of the same two points. */
interface Comparison {
  at: StateCounts;
  to: StateCounts;
  diff: DiffSummary;
}

/**
 * The newest comparison whose three answers agree on their points: while
 * one of them is still loading for new points, the previous one stays, so
 * the table and the diff never pair counts and changes of different heads.
 */
function useConsistent(at: StateCounts | undefined, to: StateCounts | undefined, diff: DiffSummary | undefined): Comparison | undefined {
  const [kept, setKept] = useState<Comparison | undefined>();
  const agree = at !== undefined && to !== undefined && diff !== undefined && diff.from.seq === at.seq && diff.to.seq === to.seq;
  useEffect(() => {
    if (agree) setKept({ at, to, diff });
  }, [agree, at, to, diff]);
  return agree ? { at, to, diff } : kept;
}

/**
 * Time travel: the state as of one point (`provider.at`, picked by event on
 * the slider or by instant), beside a second point (the head unless moved),
 * and the diff of the two.
 */
function TimeTravel() {
  const head = useHead();
  const [seq, setSeq] = useState<number | undefined>();
  const [toSeq, setToSeq] = useState<number | undefined>();
  const [instant, setInstant] = useState('');
  const [instantError, setInstantError] = useState<string | undefined>();
  const asked = useRested(seq);
  const askedTo = useRested(toSeq);
  // Undefined points follow the head.
  const from = asked ?? head;
  const to = askedTo ?? head;
  const at = useLoad(() => get<StateCounts>('/counts', { seq: from }), [from]);
  const then = useLoad(() => get<StateCounts>('/counts', { seq: to }), [to]);
  const diff = useLoad(() => get<DiffSummary>('/diff', { fromseq: from, toseq: to }), [from, to]);
  // The three answers arrive one by one: the table and the diff show them only once all three are of the same two points.
  const shown = useConsistent(at.value, then.value, diff.value);
  const goToInstant = async () => {
    try {
      const counts = await get<StateCounts>('/counts', { time: instant.trim() });
      setInstantError(undefined);
      setSeq(counts.seq);
    } catch (error) {
      setInstantError(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <section className="travel">
      <label>
        state as of event <strong data-testid="slider-seq">#{count(seq ?? head)}</strong>
        <input type="range" min={0} max={head} value={seq ?? head} aria-label="time travel" onChange={(e) => setSeq(Number(e.currentTarget.value))} />
      </label>
      <label>
        compared with event <strong data-testid="slider-to-seq">#{count(toSeq ?? head)}</strong>
        <input type="range" min={0} max={head} value={toSeq ?? head} aria-label="compare with" onChange={(e) => setToSeq(Number(e.currentTarget.value))} />
      </label>
      <form
        className="instant"
        onSubmit={(e) => {
          e.preventDefault();
          void goToInstant();
        }}
      >
        <input
          placeholder="or at a time: 2026-11-01T09:30Z"
          aria-label="instant to go to"
          value={instant}
          onChange={(e) => setInstant(e.currentTarget.value)}
        />
        <button type="submit">go</button>
        {instantError && <span className="error">{instantError}</span>}
      </form>
      {shown && <Counts at={shown.at} to={shown.to} head={head} />}
      {shown && <Diff diff={shown.diff} />}
      {(at.error ?? diff.error) && <p className="error">{at.error ?? diff.error}</p>}
    </section>
  );
}

export function TimelineView({ eventTypes }: { eventTypes: string[] }) {
  const changes = useChanges();
  const [type, setType] = useState('');
  const [namespace, setNamespace] = useState('');
  const [writer, setWriter] = useState('');
  const [older, setOlder] = useState<TimelineEvent[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const filters = { type, namespace, writer };
  const first = useLoad(() => get<EventPage>('/log', { ...filters, limit: 100 }), [type, namespace, writer, changes]);
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
