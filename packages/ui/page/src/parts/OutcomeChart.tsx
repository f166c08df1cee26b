/** A skill's outcome evidence over time: its uses and wins after each event, as two step lines. */
import type { SkillPoint } from '../api';
import { when } from '../util';

const W = 520;
const H = 140;
const PAD = 28;

export function OutcomeChart({ points }: { points: readonly SkillPoint[] }) {
  if (points.length === 0) return <p className="muted">no history</p>;
  const t0 = Date.parse(points[0]!.time);
  const t1 = Date.parse(points[points.length - 1]!.time);
  const span = Math.max(1, t1 - t0);
  const top = Math.max(1, ...points.map((p) => p.uses));
  const x = (p: SkillPoint) => PAD + ((Date.parse(p.time) - t0) / span) * (W - 2 * PAD);
  const y = (v: number) => H - PAD - (v / top) * (H - 2 * PAD);
  // A step line: counts change only at events.
  const line = (value: (p: SkillPoint) => number) =>
    points.map((p, i) => (i === 0 ? `M${x(p).toFixed(1)} ${y(value(p)).toFixed(1)}` : `H${x(p).toFixed(1)} V${y(value(p)).toFixed(1)}`)).join(' ');
  const last = points[points.length - 1]!;
  return (
    <figure className="chart" data-testid="outcome-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`uses and wins over time: ${last.wins} wins of ${last.uses} uses`}>
        <line x1={PAD} y1={H - PAD} x2={W - PAD} y2={H - PAD} className="axis" />
        <line x1={PAD} y1={PAD} x2={PAD} y2={H - PAD} className="axis" />
        <text x={4} y={PAD + 4} className="tick">
          {top}
        </text>
        <text x={4} y={H - PAD} className="tick">
          0
        </text>
        <path d={line((p) => p.uses)} className="uses" />
        <path d={line((p) => p.wins)} className="wins" />
        <text x={PAD} y={H - 8} className="tick">
          {when(points[0]!.time)}
        </text>
        <text x={W - PAD} y={H - 8} className="tick" textAnchor="end">
          {when(last.time)}
        </text>
      </svg>
      <figcaption>
        <span className="swatch uses" /> uses <span className="swatch wins" /> wins · {last.wins}/{last.uses}
      </figcaption>
    </figure>
  );
}
