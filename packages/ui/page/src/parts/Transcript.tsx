/**
 * A session's transcript: one row per turn with its role, parts and
 * metadata. Tool calls, their results and reasoning are folded until
 * clicked. Only the rows in view are in the document (virtualised, rows
 * measured once as they mount, then by a resize observer), and a row's
 * content is rendered once while it stays in view: scrolling moves rows,
 * it does not render them again. So a transcript of thousands of turns
 * scrolls as smoothly as a short one. The first `covered` turns, those a
 * summary covers, are dimmed.
 */
import type { Part, Turn } from '@agentstate/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useRef, useState } from 'react';
import { when } from '../util';
import { Fold } from './Fold';

const json = (value: unknown): string => JSON.stringify(value, null, 2);

function Meta({ turn }: { turn: Turn }) {
  const m = turn.metadata as Record<string, unknown>;
  const keys = Object.keys(m);
  if (keys.length === 0) return null;
  return (
    <span className="meta">
      {keys.map((k) => (
        <span key={k} className="chip">
          {k}: {typeof m[k] === 'object' ? JSON.stringify(m[k]) : String(m[k])}
        </span>
      ))}
    </span>
  );
}

function PartView({ part, id, open, toggle }: { part: Part; id: string; open: ReadonlySet<string>; toggle: (id: string) => void }) {
  switch (part.type) {
    case 'text':
      return <div className="text">{part.text}</div>;
    case 'reasoning':
      return (
        <Fold kind="reasoning" label="reasoning" open={open.has(id)} onToggle={() => toggle(id)}>
          <div className="text">{part.text}</div>
        </Fold>
      );
    case 'tool-call':
      return (
        <Fold kind="tool-call" label={`tool call · ${part.toolName}`} open={open.has(id)} onToggle={() => toggle(id)}>
          <pre>{json(part.input)}</pre>
        </Fold>
      );
    case 'tool-result':
      return (
        <Fold
          kind={part.isError ? 'tool-result failed' : 'tool-result'}
          label={`${part.isError ? 'tool error' : 'tool result'} · ${part.toolName}`}
          open={open.has(id)}
          onToggle={() => toggle(id)}
        >
          <pre>{json(part.output)}</pre>
        </Fold>
      );
    case 'file':
      return <div className="chip">file {part.filename ?? part.url ?? part.mediaType}</div>;
    case 'data':
      return (
        <Fold kind="data" label={`data · ${part.name}`} open={open.has(id)} onToggle={() => toggle(id)}>
          <pre>{json(part.data)}</pre>
        </Fold>
      );
  }
}

/** No open folds: one shared set, so a turn whose folds are all closed keeps the same props (toggling a fold renders that turn alone again). */
const NONE: ReadonlySet<string> = new Set();

/** A turn's content; memoised, so a row that only moves while scrolling is not rendered again. */
const TurnBody = memo(function TurnBody({ turn, open, toggle }: { turn: Turn; open: ReadonlySet<string>; toggle: (id: string) => void }) {
  return (
    <>
      <div className="turn-head">
        <span className={`role ${turn.role}`}>{turn.role}</span>
        <span className="muted">#{turn.seq}</span>
        <span className="muted">{when(turn.createdAt)}</span>
        <Meta turn={turn} />
      </div>
      {turn.parts.length === 0 ? (
        <div className="text">{turn.content}</div>
      ) : (
        turn.parts.map((part, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a stored turn's parts never change order; the index is their identity
          <PartView key={i} part={part} id={`${turn.id}:${i}`} open={open} toggle={toggle} />
        ))
      )}
    </>
  );
});

export function Transcript({ turns, covered = 0 }: { turns: readonly Turn[]; covered?: number }) {
  const scroller = useRef<HTMLDivElement>(null);
  // The open folds by turn id, then by `turn:part`, so a row scrolled out and back keeps its state.
  const [open, setOpen] = useState<ReadonlyMap<string, ReadonlySet<string>>>(new Map());
  const toggle = useCallback((id: string) => {
    const turnId = id.slice(0, id.lastIndexOf(':'));
    setOpen((was) => {
      const parts = new Set(was.get(turnId));
      if (!parts.delete(id)) parts.add(id);
      const next = new Map(was);
      next.set(turnId, parts);
      return next;
    });
  }, []);
  const virtualizer = useVirtualizer({
    count: turns.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 72,
    getItemKey: (index) => turns[index]!.id,
    overscan: 8,
    // Render after the scroll event rather than inside it: a frame is not held up waiting for React.
    useFlushSync: false,
  });
  return (
    <div ref={scroller} className="transcript" data-testid="transcript">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((row) => {
          const turn = turns[row.index]!;
          return (
            <div
              key={row.key}
              ref={virtualizer.measureElement}
              data-index={row.index}
              className={`turn role-${turn.role}${row.index < covered ? ' covered' : ''}`}
              style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${row.start}px)` }}
            >
              <TurnBody turn={turn} open={open.get(turn.id) ?? NONE} toggle={toggle} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
