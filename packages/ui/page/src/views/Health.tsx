/**
 * Health: sizes, this replica and the origins it holds, the stored snapshots (listed, never built here), and
 * `verify` on demand. Events by type come after the rest: the server counts
 * them in one pass over the log the first time they are asked for.
 */
import { useState } from 'react';
import { type EventTypeCounts, get, type Health, post } from '../api';
import { useChanges } from '../live';
import { shortReplica } from '../parts/Origin';
import { bytes, count, useLoad } from '../util';

interface VerifyResult {
  ok?: boolean;
  events?: number;
  problems?: Array<{ part: string; message: string }>;
  differences?: string[];
}

function Verify() {
  const [state, setState] = useState<{ running: boolean; result?: VerifyResult; error?: string }>({ running: false });
  const run = async () => {
    setState({ running: true });
    try {
      setState({ running: false, result: await post<VerifyResult>('/verify') });
    } catch (error) {
      setState({ running: false, error: error instanceof Error ? error.message : String(error) });
    }
  };
  const r = state.result;
  return (
    <section className="card">
      <h3>verify</h3>
      <button type="button" disabled={state.running} onClick={() => void run()}>
        {state.running ? 'verifying…' : 'run verify'}
      </button>
      {r && (
        <p className={r.ok ? 'ok' : 'error'} data-testid="verify-result">
          {r.ok ? `ok: the tables equal a replay of all ${count(r.events ?? 0)} events` : 'DAMAGED'}
        </p>
      )}
      {r && !r.ok && (
        <ul>
          {(r.problems ?? []).map((p) => (
            <li key={p.message}>
              {p.part}: {p.message}
            </li>
          ))}
        </ul>
      )}
      {state.error && <p className="error">{state.error}</p>}
    </section>
  );
}

function EventTypes() {
  const changes = useChanges();
  const types = useLoad(() => get<EventTypeCounts>('/health/types'), [changes]);
  const t = types.value;
  return (
    <section className="card">
      <h3>events by type</h3>
      {types.error && <p className="error">{types.error}</p>}
      {!t && !types.error && <p className="muted">counting…</p>}
      {t && (
        <table className="counts" data-testid="counts-by-type">
          <tbody>
            {Object.entries(t.countsByType).map(([type, n]) => (
              <tr key={type}>
                <td>{type}</td>
                <td className="num">{count(n)}</td>
                <td className="barcell">
                  <span className="bar" style={{ width: `${Math.max(2, Math.round((n / Math.max(1, t.head)) * 100))}%` }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function HealthView({ canVerify }: { canVerify: boolean }) {
  const changes = useChanges();
  const health = useLoad(() => get<Health>('/health'), [changes]);
  const h = health.value;
  return (
    <div className="cards" data-testid="view-health">
      {health.error && <p className="error">{health.error}</p>}
      {h && (
        <>
          <section className="card">
            <h3>store</h3>
            <dl>
              <dt>backend</dt>
              <dd>{h.backend}</dd>
              <dt>events</dt>
              <dd data-testid="health-head">{count(h.head)}</dd>
              <dt>replica</dt>
              <dd className="mono" title={h.replica} data-testid="health-replica">
                {shortReplica(h.replica)}
              </dd>
              {h.sizes && (
                <>
                  <dt>file</dt>
                  <dd>{bytes(h.sizes.file)}</dd>
                  <dt>write-ahead log</dt>
                  <dd>{bytes(h.sizes.wal)}</dd>
                </>
              )}
            </dl>
          </section>
          <section className="card">
            <h3>origins</h3>
            <ul data-testid="origins">
              {h.origins.map(({ origin, seq }) => (
                <li key={origin} title={origin}>
                  <span className="mono">{shortReplica(origin)}</span> up to #{count(seq)}
                  {origin === h.replica ? ' (this store)' : ''}
                </li>
              ))}
            </ul>
          </section>
          <EventTypes />
          <section className="card">
            <h3>stored snapshots</h3>
            {h.snapshots.length === 0 ? (
              <p className="muted">none (agentstate snapshot saves one)</p>
            ) : (
              <ul data-testid="snapshots">
                {h.snapshots.map((s) => (
                  <li key={s.seq}>
                    seq {count(s.seq)} · {bytes(s.bytes)} · {s.sealed ? `sealed with ${s.sealed}` : 'unsealed'} · {count(h.head - s.seq)} events behind
                  </li>
                ))}
              </ul>
            )}
          </section>
          {canVerify && <Verify />}
        </>
      )}
    </div>
  );
}
