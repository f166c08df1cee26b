/**
 * Rows of the projection tables and their records. Column order of every
 * `*Values` function matches the `INSERT` statements in `projection.ts`.
 */
import type { JsonObject, MemoryItem, OperationEntry, Part, Scope, Session, Skill, Turn, TurnRole } from '@agentstate/core';
import { partsFromContent, TURN_ROLES } from '@agentstate/core';
import { isContentPart, scopeKey } from '@agentstate/core/backend';

/** The envelope columns every projection table has. */
interface EnvelopeRow {
  sync_version: number;
  origin_instance_id: string;
  hlc_wall: number;
  hlc_counter: number;
  last_writer_id: string;
  deleted: number;
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
  /** JSON text of the parts array, or `''` when they are what the content alone gives (`partsFromContent`). */
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

/**
 * `last_writer_id` is `''` when the last writer is the origin (the usual
 * case, and every new record's): an id is never empty, and the row then does
 * not repeat the origin's id. Rows written before hold the id itself; both read the same.
 */
const envelope = (r: EnvelopeRow) => ({
  syncVersion: r.sync_version,
  originInstanceId: r.origin_instance_id,
  updatedHlc: { wall: r.hlc_wall, counter: r.hlc_counter },
  lastWriterId: r.last_writer_id === '' ? r.origin_instance_id : r.last_writer_id,
  deleted: r.deleted !== 0,
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
  // One object literal, envelope included: spreading a second object into it costs a third of a transcript read.
  return {
    id: r.id,
    sessionId: r.session_id,
    seq: r.seq,
    role: r.role as TurnRole,
    content: r.content,
    parts: r.parts === '' ? partsFromContent(r.content) : (JSON.parse(r.parts) as Part[]),
    metadata: JSON.parse(r.metadata) as JsonObject,
    createdAt: r.created_at,
    syncVersion: r.sync_version,
    originInstanceId: r.origin_instance_id,
    updatedHlc: { wall: r.hlc_wall, counter: r.hlc_counter },
    lastWriterId: r.last_writer_id === '' ? r.origin_instance_id : r.last_writer_id,
    deleted: r.deleted !== 0,
  };
}

/**
 * The columns of a transcript read, in the order of {@link TranscriptRow}:
 * the session id and `deleted` are what the query selects on, not read back.
 */
export const TRANSCRIPT_COLUMNS =
  'seq, id, role, content, parts, metadata, created_at, sync_version, origin_instance_id, hlc_wall, hlc_counter, last_writer_id';

/** A row of {@link TRANSCRIPT_COLUMNS} as the driver's raw mode gives it (an array, not an object per row). */
export type TranscriptRow = [
  seq: number,
  id: string,
  role: string,
  content: string,
  parts: string,
  metadata: string,
  createdAt: string,
  syncVersion: number,
  originInstanceId: string,
  hlcWall: number,
  hlcCounter: number,
  lastWriterId: string,
];

const ROLES = new Map<string, TurnRole>(TURN_ROLES.map((role) => [role, role]));

/**
 * The live turns of session `sessionId` from rows of {@link TRANSCRIPT_COLUMNS}
 * (selected with `deleted = 0`), equal to {@link turnFromRow} of their full
 * rows. A whole transcript is thousands of turns held at once, so its cost
 * is mostly garbage collection of what survives while it is built: rows are
 * arrays, and the texts every turn repeats (the session id, the role, the
 * instance ids, usually the same from row to row) are one string each rather
 * than one per row. Strings are immutable, so sharing them is invisible.
 */
export function transcriptFromRows(sessionId: string, rows: readonly TranscriptRow[]): Turn[] {
  let origin = '';
  let storedWriter: string | undefined;
  let writer = '';
  const turns = new Array<Turn>(rows.length);
  for (let i = 0; i < rows.length; i += 1) {
    const [seq, id, role, content, parts, metadata, createdAt, syncVersion, originId, wall, counter, writerId] = rows[i]!;
    if (originId !== origin) {
      origin = originId;
      storedWriter = undefined;
    }
    // A stored '' names the origin as the last writer (see envelope()).
    if (writerId !== storedWriter) {
      storedWriter = writerId;
      writer = writerId === '' || writerId === origin ? origin : writerId;
    }
    turns[i] = {
      id,
      sessionId,
      seq,
      role: ROLES.get(role) ?? (role as TurnRole),
      content,
      parts: parts === '' ? partsFromContent(content) : (JSON.parse(parts) as Part[]),
      metadata: JSON.parse(metadata) as JsonObject,
      createdAt,
      syncVersion,
      originInstanceId: origin,
      updatedHlc: { wall, counter },
      lastWriterId: writer,
      deleted: false,
    };
  }
  return turns;
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

type Value = string | number | null;

const envelopeValues = (e: {
  syncVersion: number;
  originInstanceId: string;
  updatedHlc: { wall: number; counter: number };
  lastWriterId: string;
  deleted: boolean;
}): Value[] => [
  e.syncVersion,
  e.originInstanceId,
  e.updatedHlc.wall,
  e.updatedHlc.counter,
  e.lastWriterId === e.originInstanceId ? '' : e.lastWriterId,
  e.deleted ? 1 : 0,
];

/** The columns after the key, in table order. */
export const ENVELOPE_COLUMNS = 'sync_version, origin_instance_id, hlc_wall, hlc_counter, last_writer_id, deleted';

export const SESSION_COLUMNS = `id, title, model, scope_key, metadata, created_at, updated_at, ${ENVELOPE_COLUMNS}`;
export function sessionValues(s: Session): Value[] {
  return [s.id, s.title, s.model, scopeKey(s.scope), JSON.stringify(s.metadata), s.createdAt, s.updatedAt, ...envelopeValues(s)];
}

export const TURN_COLUMNS = `session_id, seq, id, role, content, parts, metadata, created_at, ${ENVELOPE_COLUMNS}`;
export function turnValues(t: Turn): Value[] {
  // A plain text turn's parts repeat its content: not stored twice.
  const parts = isContentPart(t.parts, t.content) ? '' : JSON.stringify(t.parts);
  return [t.sessionId, t.seq, t.id, t.role, t.content, parts, JSON.stringify(t.metadata), t.createdAt, ...envelopeValues(t)];
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

/** `?, ?, …` for a column list. */
export function placeholders(columns: string): string {
  return columns
    .split(',')
    .map(() => '?')
    .join(', ');
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
