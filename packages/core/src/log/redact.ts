/**
 * Erasure (docs/contract.md §7, "Purge"): what an erased record keeps and
 * what it loses, and the rewrite of an earlier event that carried it. The
 * rules are content-blind and deterministic, so every version of a record
 * erases to the same text and a fold of the rewritten log still passes the
 * rules that compare versions (`fold/fold-rules.ts`).
 */
import { partsFromContent } from '../records/parts.js';
import type { MemoryItem, Session, Skill, Turn } from '../records/records.js';
import { type StateChange, EventTypes } from './events.js';

/** What replaces erased text. */
export const ERASED = '[erased]';

/** A session without its title, metadata and summary text; id, model, scope, times, envelope and the rest of its summary stay. */
export function eraseSession(session: Session): Session {
  const erased = { ...session, title: ERASED, metadata: {}, scope: [...session.scope] };
  if (session.summary !== undefined) erased.summary = { ...session.summary, text: ERASED };
  return erased;
}

/** A turn without its content, parts and metadata; id, session, seq, role, time and envelope stay. */
export function eraseTurn(turn: Turn): Turn {
  return { ...turn, content: ERASED, parts: partsFromContent(ERASED), metadata: {} };
}

/** A skill without its name, body, tags and check; id, slug, scope, counts, versions and times stay. */
export function eraseSkill(skill: Skill): Skill {
  return { ...skill, name: ERASED, body: ERASED, tags: [], check: '', scope: [...skill.scope] };
}

/** A memory item without its content, source, key and metadata; id, kind, scope, times and envelope stay. */
export function eraseMemoryItem(item: MemoryItem): MemoryItem {
  return { ...item, content: ERASED, source: ERASED, key: null, metadata: {}, scope: [...item.scope] };
}

/** An earlier event's change with the records of `ids` erased, and the texts it held. */
export interface RedactedChange {
  change: StateChange;
  /** The erased contents of memory items and turns: their embedding-cache entries must go too. */
  contents: string[];
}

/** The payload keys that hold one record, and how each is erased. */
const SINGLE = { session: eraseSession, turn: eraseTurn, skill: eraseSkill, item: eraseMemoryItem } as const;

/** The payload keys that hold lists of turns. */
const TURN_LISTS = ['turns', 'removed', 'added'] as const;

/**
 * `change` with every record whose id is in `ids` erased and `erasedBy` set
 * to the purge's seq; undefined when it carries none of them (checkpoint
 * events never do). Other records of the event are kept as they are.
 */
export function redactChange(change: StateChange, ids: ReadonlySet<string>, erasedBy: number): RedactedChange | undefined {
  if (change.type === EventTypes.RecordsPurged) return undefined;
  const payload: Record<string, unknown> = { ...change.payload };
  const contents: string[] = [];
  let touched = false;
  for (const [key, erase] of Object.entries(SINGLE) as [keyof typeof SINGLE, (r: never) => unknown][]) {
    const record = payload[key] as { id: string; content?: string } | undefined;
    if (record === undefined || !ids.has(record.id)) continue;
    if ((key === 'turn' || key === 'item') && record.content !== undefined) contents.push(record.content);
    payload[key] = erase(record as never);
    touched = true;
  }
  for (const key of TURN_LISTS) {
    const turns = payload[key] as Turn[] | undefined;
    if (!turns?.some((t) => ids.has(t.id))) continue;
    payload[key] = turns.map((t) => {
      if (!ids.has(t.id)) return t;
      contents.push(t.content);
      return eraseTurn(t);
    });
    touched = true;
  }
  if (!touched) return undefined;
  payload.erasedBy = erasedBy;
  return { change: { type: change.type, payload } as StateChange, contents };
}
