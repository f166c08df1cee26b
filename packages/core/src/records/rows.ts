/**
 * The row codec of the SQL backends: a record's projection-table row and
 * back, one encoding for SQLite and PostgreSQL. Column lists name the
 * columns in the order of their `*Values` function. JSON columns hold
 * `JSON.stringify` text. Two columns leave out what the rest of the row
 * gives: `parts` is `''` when the parts are what the content alone gives
 * (`partsFromContent`), and `last_writer_id` is `''` when the last writer
 * is the origin (the usual case, and every new record's). Rows that hold
 * the parts or the writer's id itself read the same.
 */
import type { OperationEntry } from '../log/operation.js';
import { isContentPart } from '../log/compact.js';
import type { JsonObject, JsonValue } from './json.js';
import type { CheckpointWrite } from './checkpoints.js';
import { partsFromContent, type Part } from './parts.js';
import { type Envelope, type MemoryItem, type Scope, type Session, type Skill, type Turn, type TurnRole, TURN_ROLES } from './records.js';
import { scopeKey } from './scope.js';
import type { Hlc } from '../time/hlc.js';

/** A column value as both drivers bind it: booleans are stored as 0 and 1. */
export type RowValue = string | number | null;

/** The envelope columns every projection table has. */
export interface EnvelopeRow {
  sync_version: number;
  origin_instance_id: string;
  hlc_wall: number;
  hlc_counter: number;
  /** `''` when the last writer is the origin. */
  last_writer_id: string;
  /** 0 or 1 in SQLite, a boolean in PostgreSQL. */
  deleted: number | boolean;
}

/** A row of `sessions`. */
export interface SessionRow extends EnvelopeRow {
  id: string;
  title: string;
  model: string;
  metadata: string;
  /** The canonical JSON of the scope's labels. */
  scope_key: string;
  created_at: string;
  updated_at: string;
  /** The summary's JSON text; NULL for a session never compacted. */
  summary: string | null;
  /** The fields' clock's JSON text; NULL while its fields are those it was created with. */
  fields_clock: string | null;
}

/** A row of `turns`. */
export interface TurnRow extends EnvelopeRow {
  session_id: string;
  seq: number;
  id: string;
  role: string;
  content: string;
  /** JSON text of the parts array, or `''` when they are what the content alone gives. */
  parts: string;
  metadata: string;
  created_at: string;
  /** A tombstone's `appendedHlc` as JSON text; NULL for a live turn and a tombstone without it. */
  appended_hlc: string | null;
}

/** A row of `skills`; `n` is the backend's row number. */
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
  /** The content clock's JSON text; NULL while its latest version is its latest content write. */
  content_clock: string | null;
  /** The outcomes' totals as JSON text; NULL while none was recorded. */
  outcomes: string | null;
}

/** A row of `memory`; `n` is the backend's row number. */
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

/** A row of `operations`. */
export interface OperationRow {
  id: string;
  seq: number;
  input_hash: string;
}

/** A row of `checkpoint_writes`. */
export interface CheckpointWriteRow {
  thread_id: string;
  namespace: string;
  checkpoint_id: string;
  task_id: string;
  idx: number;
  task_path: string;
  channel: string;
  value: string;
}

/** The stored last writer: `''` for the origin, an id being never empty. */
const writerValue = (origin: string, writer: string): string => (writer === origin ? '' : writer);
/** The last writer of a stored `last_writer_id`. */
const writerOf = (origin: string, stored: string): string => (stored === '' ? origin : stored);
/** The stored parts: `''` when the content alone gives them. */
const partsValue = (parts: readonly Part[], content: string): string => (isContentPart(parts, content) ? '' : JSON.stringify(parts));
/** The parts of a stored `parts` column. */
const partsOf = (stored: string, content: string): Part[] => (stored === '' ? partsFromContent(content) : (JSON.parse(stored) as Part[]));

const envelopeOf = (r: EnvelopeRow): Envelope => ({
  syncVersion: r.sync_version,
  originInstanceId: r.origin_instance_id,
  updatedHlc: { wall: r.hlc_wall, counter: r.hlc_counter },
  lastWriterId: writerOf(r.origin_instance_id, r.last_writer_id),
  deleted: r.deleted === true || r.deleted === 1,
});

const envelopeValues = (e: Envelope): RowValue[] => [
  e.syncVersion,
  e.originInstanceId,
  e.updatedHlc.wall,
  e.updatedHlc.counter,
  writerValue(e.originInstanceId, e.lastWriterId),
  e.deleted ? 1 : 0,
];

/** The envelope columns, after a table's own. */
export const ENVELOPE_COLUMNS = 'sync_version, origin_instance_id, hlc_wall, hlc_counter, last_writer_id, deleted';

/**
 * A table's own columns, key first, each with the record field it holds and how: as is, as JSON text (NULL for an
 * optional field left out), or a scope as its key; and whether the envelope columns follow them.
 */
type Table = { columns: string; fields: readonly (readonly [column: string, field: string, form: 'value' | 'json' | 'scope'])[]; envelope: boolean };

/** The table of these columns: a column holds the field its camel-cased name gives, but for the scope's key and a skill's check. */
function table(columns: string, envelope = true): Table {
  const fields = columns.split(', ').map((column) => {
    const field = column === 'scope_key' ? 'scope' : column === 'check_command' ? 'check' : column.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
    return [
      column,
      field,
      column === 'scope_key'
        ? 'scope'
        : ['metadata', 'tags', 'value', 'summary', 'fields_clock', 'content_clock', 'outcomes'].includes(column)
          ? 'json'
          : 'value',
    ] as const;
  });
  return { columns: envelope ? `${columns}, ${ENVELOPE_COLUMNS}` : columns, fields, envelope };
}

function valuesOf({ fields, envelope }: Table, record: object): RowValue[] {
  const of = record as Record<string, RowValue & Scope>;
  const own = fields.map(([, field, form]) => (form === 'scope' ? scopeKey(of[field]!) : form === 'json' ? (JSON.stringify(of[field]) ?? null) : of[field]!));
  return envelope ? [...own, ...envelopeValues(record as Envelope)] : own;
}

function recordOf<R>({ fields, envelope }: Table, row: object): R {
  const of = row as Record<string, string>;
  const record: Record<string, unknown> = {};
  for (const [column, field, form] of fields) {
    if (form === 'value') record[field] = of[column];
    else if (of[column] !== null) record[field] = JSON.parse(of[column]!);
  }
  // The envelope's fields added in place: a spread into a new object cost a write path's look-up more than its reading.
  return (envelope ? Object.assign(record, envelopeOf(row as EnvelopeRow)) : record) as R;
}

const SESSION = table('id, title, model, scope_key, metadata, created_at, updated_at, summary, fields_clock');
/** In the order of a skill's fields, so a skill read back lists them as a written one does. */
const SKILL = table('id, slug, name, body, tags, scope_key, uses, wins, check_command, version, created_at, updated_at, content_clock, outcomes');
const MEMORY = table('id, kind, content, scope_key, source, key, metadata, expires_at, created_at, updated_at');

/** The columns {@link sessionValues} gives, key first. */
export const SESSION_COLUMNS = SESSION.columns;
/** The values of {@link SESSION_COLUMNS}. */
export const sessionValues = (s: Session): RowValue[] => valuesOf(SESSION, s);
/** A session from its row. */
export const sessionFromRow = (r: SessionRow): Session => recordOf(SESSION, r);

/** The columns {@link turnValues} gives, its key (session id and seq, then id) first. */
export const TURN_COLUMNS = `session_id, seq, id, role, content, parts, metadata, created_at, ${ENVELOPE_COLUMNS}, appended_hlc`;

/** The values of {@link TURN_COLUMNS}. */
export function turnValues(t: Turn): RowValue[] {
  const appended = t.appendedHlc === undefined ? null : JSON.stringify(t.appendedHlc);
  return [t.sessionId, t.seq, t.id, t.role, t.content, partsValue(t.parts, t.content), JSON.stringify(t.metadata), t.createdAt, ...envelopeValues(t), appended];
}

/** A turn from its row. */
export function turnFromRow(r: TurnRow): Turn {
  // One object literal, envelope included: spreading a second object into it costs a third of a transcript read.
  const turn: Turn = {
    id: r.id,
    sessionId: r.session_id,
    seq: r.seq,
    role: r.role as TurnRole,
    content: r.content,
    parts: partsOf(r.parts, r.content),
    metadata: JSON.parse(r.metadata) as JsonObject,
    createdAt: r.created_at,
    syncVersion: r.sync_version,
    originInstanceId: r.origin_instance_id,
    updatedHlc: { wall: r.hlc_wall, counter: r.hlc_counter },
    lastWriterId: writerOf(r.origin_instance_id, r.last_writer_id),
    deleted: r.deleted === true || r.deleted === 1,
  };
  if (r.appended_hlc) turn.appendedHlc = JSON.parse(r.appended_hlc) as Hlc;
  return turn;
}

/**
 * The columns of a transcript read, in the order of {@link TranscriptRow}:
 * the session id and `deleted` are what the query selects on, not read back.
 */
export const TRANSCRIPT_COLUMNS =
  'seq, id, role, content, parts, metadata, created_at, sync_version, origin_instance_id, hlc_wall, hlc_counter, last_writer_id';

/** A row of {@link TRANSCRIPT_COLUMNS} as a driver's array mode gives it (an array, not an object per row). */
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
 * (selected with `deleted` false), equal to {@link turnFromRow} of their full
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
    if (writerId !== storedWriter) {
      storedWriter = writerId;
      // The origin's own string when it is the writer, stored as '' or as its id.
      writer = writerId === origin ? origin : writerOf(origin, writerId);
    }
    turns[i] = {
      id,
      sessionId,
      seq,
      role: ROLES.get(role) ?? (role as TurnRole),
      content,
      parts: partsOf(parts, content),
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

/** The columns {@link skillValues} gives, key first. */
export const SKILL_COLUMNS = SKILL.columns;
/** The values of {@link SKILL_COLUMNS}. */
export const skillValues = (s: Skill): RowValue[] => valuesOf(SKILL, s);
/** A skill from its row. */
export const skillFromRow = (r: SkillRow): Skill => recordOf(SKILL, r);

/** The columns {@link memoryValues} gives, key first. */
export const MEMORY_COLUMNS = MEMORY.columns;
/** The values of {@link MEMORY_COLUMNS}. */
export const memoryValues = (m: MemoryItem): RowValue[] => valuesOf(MEMORY, m);
/** A memory item from its row. */
export const memoryFromRow = (r: MemoryRow): MemoryItem => recordOf(MEMORY, r);

/** One node of an item's metadata as a `memory_meta` row stores it. */
export interface MetadataLeaf {
  /** The keys leading to it, as a JSON array. */
  path: string;
  type: 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';
  /** The scalar (booleans as 0/1), null for containers and null. */
  value: string | number | null;
}

/** The stored form of a metadata path. */
export const pathKey = (segments: readonly string[]): string => JSON.stringify(segments);

/** The `memory_meta` rows of `metadata`: every node reached through objects, the root excluded. */
export function metadataLeaves(metadata: JsonObject): MetadataLeaf[] {
  const out: MetadataLeaf[] = [];
  const walk = (object: JsonObject, prefix: string[]): void => {
    for (const [key, value] of Object.entries(object)) {
      const segments = [...prefix, key];
      out.push({ path: pathKey(segments), ...metadataValue(value) });
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) walk(value, segments);
    }
  };
  walk(metadata, []);
  return out;
}

/** A metadata value's type and stored scalar, as a `memory_meta` row holds it and a filter compares it. */
export function metadataValue(value: JsonValue): Pick<MetadataLeaf, 'type' | 'value'> {
  if (value === null) return { type: 'null', value: null };
  if (typeof value === 'boolean') return { type: 'boolean', value: value ? 1 : 0 };
  if (typeof value === 'number') return { type: 'number', value };
  if (typeof value === 'string') return { type: 'string', value };
  return { type: Array.isArray(value) ? 'array' : 'object', value: null };
}

/** The columns of `operations`, which {@link operationValues} gives. */
export const OPERATION_COLUMNS = 'id, seq, input_hash';

/** The values of {@link OPERATION_COLUMNS}: an entry without a hash (a purge dropped it) stores `''`. */
export function operationValues(entry: OperationEntry): RowValue[] {
  return [entry.id, entry.seq, entry.inputHash ?? ''];
}

/** An operation entry from its row. */
export function operationFromRow(row: OperationRow): OperationEntry {
  return row.input_hash === '' ? { id: row.id, seq: row.seq } : { id: row.id, inputHash: row.input_hash, seq: row.seq };
}

/** The key of a checkpoint write's row. */
export const CHECKPOINT_WRITE_KEY = 'thread_id, namespace, checkpoint_id, task_id, idx';
/** In the order of a write's fields, so a write read back lists them as a written one does. */
const CHECKPOINT_WRITE = table('thread_id, namespace, checkpoint_id, task_id, task_path, idx, channel, value', false);
/** The columns {@link checkpointWriteValues} gives, those of {@link CHECKPOINT_WRITE_KEY} among them. */
export const CHECKPOINT_WRITE_COLUMNS = CHECKPOINT_WRITE.columns;
/** The values of {@link CHECKPOINT_WRITE_COLUMNS}. */
export const checkpointWriteValues = (w: CheckpointWrite): RowValue[] => valuesOf(CHECKPOINT_WRITE, w);
/** A checkpoint write from its row. */
export const checkpointWriteFromRow = (r: CheckpointWriteRow): CheckpointWrite => recordOf(CHECKPOINT_WRITE, r);

/**
 * `ON CONFLICT (key) DO UPDATE SET a = excluded.a, …`: the upsert of a row of
 * `columns` that, where a row of its `key` (some of `columns`) stands,
 * writes every other column (both dialects read it alike).
 */
export function onConflictUpdate(columns: string, key: string): string {
  const keys = new Set(key.split(',').map((c) => c.trim()));
  const set = columns
    .split(',')
    .map((c) => c.trim())
    .filter((c) => !keys.has(c))
    .map((c) => `${c} = excluded.${c}`);
  return `ON CONFLICT (${key}) DO UPDATE SET ${set.join(', ')}`;
}
