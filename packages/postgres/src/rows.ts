/**
 * Rows of the projection tables and their records. Column order of every
 * `*Values` function matches the `INSERT` statements in `projection.ts`.
 */
import type { JsonObject, MemoryItem, OperationEntry, Part, Scope, Session, Skill, Turn, TurnRole } from '@agentstate/core';
import { scopeKey } from '@agentstate/core/backend';

/** The envelope columns every projection table has. */
interface EnvelopeRow {
  sync_version: number;
  origin_instance_id: string;
  hlc_wall: number;
  hlc_counter: number;
  last_writer_id: string;
  deleted: boolean;
}

export interface SessionRow extends EnvelopeRow {
  id: string;
  title: string;
  model: string;
  /** JSON text of the metadata object. */
  metadata: string;
  scope_key: string;
  created_at: string;
  updated_at: string;
}

export interface TurnRow extends EnvelopeRow {
  session_id: string;
  seq: number;
  id: string;
  role: string;
  content: string;
  /** JSON text of the parts array. */
  parts: string;
  /** JSON text of the metadata object. */
  metadata: string;
  created_at: string;
}

export interface SkillRow extends EnvelopeRow {
  n: number;
  id: string;
  scope_key: string;
  slug: string;
  name: string;
  body: string;
  tags: string;
  uses: number;
  wins: number;
  check_command: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface MemoryRow extends EnvelopeRow {
  n: number;
  id: string;
  kind: string;
  content: string;
  scope_key: string;
  source: string;
  key: string | null;
  metadata: string;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

const envelope = (r: EnvelopeRow) => ({
  syncVersion: r.sync_version,
  originInstanceId: r.origin_instance_id,
  updatedHlc: { wall: r.hlc_wall, counter: r.hlc_counter },
  lastWriterId: r.last_writer_id,
  deleted: r.deleted,
});

/** A scope from its key column, the canonical JSON of its labels. */
const scopeOf = (r: { scope_key: string }): Scope => JSON.parse(r.scope_key) as Scope;

export function sessionFromRow(r: SessionRow): Session {
  return {
    id: r.id,
    title: r.title,
    model: r.model,
    scope: scopeOf(r),
    metadata: JSON.parse(r.metadata) as JsonObject,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...envelope(r),
  };
}

export function turnFromRow(r: TurnRow): Turn {
  return {
    id: r.id,
    sessionId: r.session_id,
    seq: r.seq,
    role: r.role as TurnRole,
    content: r.content,
    parts: JSON.parse(r.parts) as Part[],
    metadata: JSON.parse(r.metadata) as JsonObject,
    createdAt: r.created_at,
    ...envelope(r),
  };
}

export function skillFromRow(r: SkillRow): Skill {
  return {
    id: r.id,
    slug: r.slug,
    name: r.name,
    body: r.body,
    tags: JSON.parse(r.tags) as string[],
    scope: scopeOf(r),
    uses: r.uses,
    wins: r.wins,
    check: r.check_command,
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...envelope(r),
  };
}

export function memoryFromRow(r: MemoryRow): MemoryItem {
  return {
    id: r.id,
    kind: r.kind,
    content: r.content,
    scope: scopeOf(r),
    source: r.source,
    key: r.key,
    metadata: JSON.parse(r.metadata) as JsonObject,
    expiresAt: r.expires_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...envelope(r),
  };
}

type Value = string | number | boolean | null;

const envelopeValues = (e: {
  syncVersion: number;
  originInstanceId: string;
  updatedHlc: { wall: number; counter: number };
  lastWriterId: string;
  deleted: boolean;
}): Value[] => [e.syncVersion, e.originInstanceId, e.updatedHlc.wall, e.updatedHlc.counter, e.lastWriterId, e.deleted];

/** The columns after the key, in table order. */
export const ENVELOPE_COLUMNS = 'sync_version, origin_instance_id, hlc_wall, hlc_counter, last_writer_id, deleted';

export const SESSION_COLUMNS = `id, title, model, scope_key, metadata, created_at, updated_at, ${ENVELOPE_COLUMNS}`;
export function sessionValues(s: Session): Value[] {
  return [s.id, s.title, s.model, scopeKey(s.scope), JSON.stringify(s.metadata), s.createdAt, s.updatedAt, ...envelopeValues(s)];
}

export const TURN_COLUMNS = `session_id, seq, id, role, content, parts, metadata, created_at, ${ENVELOPE_COLUMNS}`;
export function turnValues(t: Turn): Value[] {
  return [t.sessionId, t.seq, t.id, t.role, t.content, JSON.stringify(t.parts), JSON.stringify(t.metadata), t.createdAt, ...envelopeValues(t)];
}

export const SKILL_COLUMNS = `id, scope_key, slug, name, body, tags, uses, wins, check_command, version, created_at, updated_at, ${ENVELOPE_COLUMNS}`;
export function skillValues(s: Skill): Value[] {
  return [
    s.id,
    scopeKey(s.scope),
    s.slug,
    s.name,
    s.body,
    JSON.stringify(s.tags),
    s.uses,
    s.wins,
    s.check,
    s.version,
    s.createdAt,
    s.updatedAt,
    ...envelopeValues(s),
  ];
}

export const MEMORY_COLUMNS = `id, kind, content, scope_key, source, key, metadata, expires_at, created_at, updated_at, ${ENVELOPE_COLUMNS}`;
export function memoryValues(m: MemoryItem): Value[] {
  return [m.id, m.kind, m.content, scopeKey(m.scope), m.source, m.key, JSON.stringify(m.metadata), m.expiresAt, m.createdAt, m.updatedAt, ...envelopeValues(m)];
}

/** A row of the `operations` table. */
export interface OperationRow {
  id: string;
  seq: number;
  input_hash: string;
}

/** An operation entry from its row: an empty `input_hash` is one a purge dropped. */
export function operationFromRow(row: OperationRow): OperationEntry {
  return row.input_hash === '' ? { id: row.id, seq: row.seq } : { id: row.id, inputHash: row.input_hash, seq: row.seq };
}

/** `$from, $from+1, …` for a column list. */
export function placeholders(columns: string, from = 1): string {
  return columns
    .split(',')
    .map((_, i) => `$${from + i}`)
    .join(', ');
}

/** How many columns a column list names. */
export function columnCount(columns: string): number {
  return columns.split(',').length;
}

/** `a = excluded.a, …` for an upsert of every column but the key. */
export function updateFromExcluded(columns: string, key: string): string {
  return columns
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== key)
    .map((c) => `${c} = excluded.${c}`)
    .join(', ');
}
