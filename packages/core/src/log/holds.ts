/**
 * What a record holds (docs/contract.md §7, "Purge"): the fields of each
 * kind that carry what people and models wrote are exactly the fields a
 * purge erases, so a purge by text searches what it can erase and nothing
 * else (not ids, scopes, slugs, kinds, roles, part types or times). A field
 * holds a text when one of its strings contains it (case-sensitive), an
 * object's keys included, or the JSON text of one of its numbers does: the
 * text as it reads in the value's JSON, never across two values.
 */
import type { Part } from '../records/parts.js';
import type { MemoryItem, Session, Skill, Turn } from '../records/records.js';
import { canonicalJson } from './json.js';
import { eraseMemoryItem, eraseSession, eraseSkill, eraseTurn } from './redact.js';

/** The record of each kind a purge erases. */
export interface ErasableRecords {
  session: Session;
  turn: Turn;
  skill: Skill;
  memory: MemoryItem;
}

/** A kind of record a purge erases. */
export type ErasableKind = keyof ErasableRecords;

/** A part's values but its `type`, which names the kind of part and is no one's text. */
function partValues(part: Part): unknown[] {
  return Object.entries(part).flatMap(([key, value]) => (key === 'type' ? [] : [value]));
}

/** The values of the fields a purge erases, for each kind. */
const CONTENT: { [K in ErasableKind]: (record: ErasableRecords[K]) => unknown[] } = {
  session: (s) => [s.title, s.metadata, s.summary?.text ?? ''],
  turn: (t) => [t.content, t.parts.map(partValues), t.metadata],
  skill: (k) => [k.name, k.body, k.tags, k.check],
  memory: (m) => [m.content, m.source, m.key, m.metadata],
};

const ERASE: { [K in ErasableKind]: (record: ErasableRecords[K]) => ErasableRecords[K] } = {
  session: eraseSession,
  turn: eraseTurn,
  skill: eraseSkill,
  memory: eraseMemoryItem,
};

/** Whether a JSON value holds `text`: a string or an object key containing it, or a number whose JSON text does. */
export function jsonHolds(value: unknown, text: string): boolean {
  if (typeof value === 'string') return value.includes(text);
  if (typeof value === 'number') return JSON.stringify(value).includes(text);
  if (Array.isArray(value)) return value.some((v) => jsonHolds(v, text));
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, v]) => key.includes(text) || jsonHolds(v, text));
  return false;
}

/** Whether `record` holds `text` in a field a purge erases: its content, parts (each but its type), metadata, title, summary, name, body, tags, check, source or key. */
export function recordHolds<K extends ErasableKind>(kind: K, record: ErasableRecords[K], text: string): boolean {
  return jsonHolds(CONTENT[kind](record), text);
}

/** Whether `record`'s erasable fields are already what a purge leaves in them (whatever its envelope says). */
export function inErasedForm<K extends ErasableKind>(kind: K, record: ErasableRecords[K]): boolean {
  return canonicalJson(CONTENT[kind](record)) === canonicalJson(CONTENT[kind](ERASE[kind](record)));
}
