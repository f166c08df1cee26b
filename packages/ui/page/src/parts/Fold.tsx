/** A folded block (a tool call, its result, reasoning) that opens on click. */
import type { ReactNode } from 'react';

export function Fold({ label, open, onToggle, kind, children }: { label: ReactNode; open: boolean; onToggle: () => void; kind: string; children: ReactNode }) {
  return (
    <div className={`fold ${kind}`}>
      <button type="button" className="fold-label" aria-expanded={open} onClick={onToggle}>
        <span className="caret">{open ? '▾' : '▸'}</span> {label}
      </button>
      {open && <div className="fold-body">{children}</div>}
    </div>
  );
}
