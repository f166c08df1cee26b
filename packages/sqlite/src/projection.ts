/**
 * The projection: the only code that changes the read-model tables. The same
 * `apply` serves a live commit, a rebuild and a catch-up, and `restore`
 * loads a snapshot through the same record writers (docs/architecture.md). Full-text
 * rows are kept for live records only and hold core's folded tokens.
 */
import type { Hlc, MemoryItem, OperationEntry, Session, Skill, Snapshot, StateChange, Turn } from '@agentstate/core';
import type { ChangeRecord } from '@agentstate/core/backend';
import { changeRecords, compareMemoryNewestFirst, operationEntry, foldForIndex, HLC_ZERO, maxHlc, skillSearchText, rowCodec } from '@agentstate/core/backend';
import { turnInsertion } from '@agentstate/core/backend';
import { CorruptionError, EventTypes } from '@agentstate/core';
import type { Connection } from './connection.js';
import type { VectorIndexes } from './vectors.js';
import { indexRecordEvents } from './history.js';
import { FULL_TEXT_INDEXES } from './fts.js';
import { deleteCheckpointThreadRows, putCheckpointRow, putCheckpointWriteRow } from './checkpoint-rows.js';

/** Where the projection stands: the last event folded in, the largest HLC, the rebuild generation. */
export interface ProjectionState {
  seq: number;
  maxHlc: Hlc;
  generation: number;
}

/**
 * `columns` without their first `count`: the key an update found its row by.
 * SQLite rewrites an index entry whenever its column is assigned, even to the
 * same value, so an update that leaves the key out spares the key's unique
 * index a page write (a purge tombstones thousands of rows spread over it).
 */
const afterKey = (columns: string, count: number): string => columns.split(', ').slice(count).join(', ');

/** `?, ?, …` for a column list. */
const placeholders = (columns: string): string =>
  columns
    .split(',')
    .map(() => '?')
    .join(', ');

const SQL = {
  state: 'SELECT seq, hlc_wall, hlc_counter, generation FROM projection_state WHERE id = 1',
  saveState: 'UPDATE projection_state SET seq = ?, hlc_wall = ?, hlc_counter = ?, generation = ? WHERE id = 1',
  putSession: `INSERT INTO sessions (${rowCodec.SESSION_COLUMNS}) VALUES (${placeholders(rowCodec.SESSION_COLUMNS)})
    ${rowCodec.onConflictUpdate(rowCodec.SESSION_COLUMNS, 'id')}`,
  // The next version of a live session a turn was appended to: `sessionAfterTurn` of core, in place (instants compare as text).
  // The writer is stored as '' when it is the origin, as core's row codec stores it.
  sessionAfterTurn: `UPDATE sessions SET sync_version = sync_version + 1, hlc_wall = ?, hlc_counter = ?,
    last_writer_id = CASE WHEN origin_instance_id = ? THEN '' ELSE ? END, updated_at = max(updated_at, ?) WHERE id = ? AND deleted = 0`,
  turnSlot: 'SELECT n, id, deleted, content, purged_seq FROM turns WHERE session_id = ? AND seq = ?',
  // `appended_seq`: the seq of the event that appended the turn, when the history index has no rows for it.
  insertTurn: `INSERT INTO turns (${rowCodec.TURN_COLUMNS}, appended_seq) VALUES (${placeholders(rowCodec.TURN_COLUMNS)}, ?)`,
  updateTurn: `UPDATE turns SET (${rowCodec.TURN_COLUMNS}) = (${placeholders(rowCodec.TURN_COLUMNS)}) WHERE n = ?`,
  // The same turn (session, seq and id) in its own row: the key stays.
  updateSameTurn: `UPDATE turns SET (${afterKey(rowCodec.TURN_COLUMNS, 3)}) = (${placeholders(afterKey(rowCodec.TURN_COLUMNS, 3))}) WHERE n = ?`,
  // The same, for a purge's tombstone: `purged_seq` records the purge's seq, when the history index has no row for it.
  purgeSameTurn: `UPDATE turns SET (${afterKey(rowCodec.TURN_COLUMNS, 3)}, purged_seq) = (${placeholders(afterKey(rowCodec.TURN_COLUMNS, 3))}, ?) WHERE n = ?`,
  // A merged append's turns from its rank on move one seq up: through negative seqs, as `(session_id, seq)` is unique row by row.
  shiftTurns: 'UPDATE turns SET seq = -seq - ? WHERE session_id = ? AND seq >= ?',
  unshiftTurns: 'UPDATE turns SET seq = -seq WHERE session_id = ? AND seq < 0',
  insertTurnText: 'INSERT INTO turns_fts (rowid, text) VALUES (?, ?)',
  // FTS5's 'delete' command with the exact text the row indexed: secure-delete then removes its tokens in place
  // (the turn index only: the memory and skill indexes mark them deleted, and a purge merges them away).
  deleteTurnText: "INSERT INTO turns_fts (turns_fts, rowid, text) VALUES ('delete', ?, ?)",
  skillSlot: 'SELECT * FROM skills WHERE id = ?',
  insertSkill: `INSERT INTO skills (${rowCodec.SKILL_COLUMNS}) VALUES (${placeholders(rowCodec.SKILL_COLUMNS)})`,
  // The row was found by the skill's id: it stays.
  updateSkill: `UPDATE skills SET (${afterKey(rowCodec.SKILL_COLUMNS, 1)}) = (${placeholders(afterKey(rowCodec.SKILL_COLUMNS, 1))}) WHERE n = ?`,
  insertSkillText: 'INSERT INTO skills_fts (rowid, text) VALUES (?, ?)',
  deleteSkillText: "INSERT INTO skills_fts (skills_fts, rowid, text) VALUES ('delete', ?, ?)",
  memorySlot: 'SELECT n, deleted, content FROM memory WHERE id = ?',
  insertMemory: `INSERT INTO memory (${rowCodec.MEMORY_COLUMNS}) VALUES (${placeholders(rowCodec.MEMORY_COLUMNS)})`,
  // The row was found by the item's id: it stays.
  updateMemory: `UPDATE memory SET (${afterKey(rowCodec.MEMORY_COLUMNS, 1)}) = (${placeholders(afterKey(rowCodec.MEMORY_COLUMNS, 1))}) WHERE n = ?`,
  insertMemoryText: 'INSERT INTO memory_fts (rowid, text) VALUES (?, ?)',
  deleteMemoryText: "INSERT INTO memory_fts (memory_fts, rowid, text) VALUES ('delete', ?, ?)",
  deleteMemoryMeta: 'DELETE FROM memory_meta WHERE item_n = ?',
  insertMemoryMeta: 'INSERT INTO memory_meta (item_n, path, type, value) VALUES (?, ?, ?, ?)',
  bumpMemoryEpoch: 'UPDATE memory_epoch SET epoch = epoch + 1 WHERE id = 1',
  saveMemoryOrder: 'UPDATE memory_order SET last_created_at = ?, last_id = ?, in_order = ? WHERE id = 1',
  // An item after the last one (by createdAt, then id; instants compare as text) becomes the last; any other clears the flag.
  noteMemoryOrder: `UPDATE memory_order SET
      in_order = CASE WHEN @at > last_created_at OR (@at = last_created_at AND @id > last_id) THEN in_order ELSE 0 END,
      last_id = CASE WHEN @at > last_created_at OR (@at = last_created_at AND @id > last_id) THEN @id ELSE last_id END,
      last_created_at = CASE WHEN @at > last_created_at OR (@at = last_created_at AND @id > last_id) THEN @at ELSE last_created_at END
    WHERE id = 1`,
  putOperation: `INSERT INTO operations (${rowCodec.OPERATION_COLUMNS}) VALUES (${placeholders(rowCodec.OPERATION_COLUMNS)})`,
} as const;

/**
 * Secondary indexes that serve the read queries only: no fold look-up and
 * no uniqueness rests on them. A bulk load drops them and creates them
 * again from the finished rows, one sort each instead of an insert per
 * row (their definitions are read from the schema, so they come back as
 * they were).
 */
const DEFERRED_INDEXES = [
  'sessions_live',
  'sessions_live_by_scope',
  'turns_live_recent',
  'skills_live_by_slug',
  'skills_live_by_scope',
  'memory_live_recent',
  'memory_live_by_scope',
  'memory_live_expiring',
  'memory_meta_by_value',
  'checkpoints_newest',
] as const;

/** The full-text tables and the statements that write a row's text into them and delete it. */
const TEXT_STATEMENTS = {
  turns_fts: { insert: SQL.insertTurnText, delete: SQL.deleteTurnText },
  skills_fts: { insert: SQL.insertSkillText, delete: SQL.deleteSkillText },
  memory_fts: { insert: SQL.insertMemoryText, delete: SQL.deleteMemoryText },
} as const;
type TextTable = keyof typeof TEXT_STATEMENTS;

/** The tables a rebuild empties, in an order that respects nothing but clarity. */
export const PROJECTION_TABLES = ['sessions', 'turns', 'skills', 'memory', 'memory_meta', 'operations', 'checkpoints', 'checkpoint_writes'] as const;

/** Writes records into the projection tables of one connection. */
export class Projection {
  /** While true (a rebuild into emptied tables), full-text rows are written once at the end. */
  #bulk = false;
  /** The definitions of the {@link DEFERRED_INDEXES} a bulk load dropped, to create again at its end. */
  #deferred: string[] = [];
  /** While set (see {@link textInRowOrder}), each full-text row's net change: the text it held before, the text it holds now. */
  #texts: Map<TextTable, Map<number, { deleted?: string; inserted?: string }>> | undefined;

  constructor(
    readonly conn: Connection,
    private readonly vectors: VectorIndexes,
  ) {}

  /** Where the projection stands. */
  state(): ProjectionState {
    const row = this.conn.prepare(SQL.state).get() as { seq: number; hlc_wall: number; hlc_counter: number; generation: number } | undefined;
    // The derived schema writes this row and nothing deletes it: without it the file was damaged.
    if (row === undefined)
      throw new CorruptionError('database', 0, `${this.conn.path} is damaged: the projection's state row is missing (run \`agentstate rebuild\`)`);
    return { seq: row.seq, maxHlc: { wall: row.hlc_wall, counter: row.hlc_counter }, generation: row.generation };
  }

  /** Records where the projection stands. Inside the same write transaction as the rows. */
  saveState(state: ProjectionState): void {
    this.conn.prepare(SQL.saveState).run(state.seq, state.maxHlc.wall, state.maxHlc.counter, state.generation);
  }

  /**
   * Folds one change, the event at `seq`, into the tables. `stored`: the
   * event's stored payload holds the records exactly (not upcast), as a
   * checkpoint row may then point at it (see {@link put}).
   */
  apply(change: StateChange, seq: number, stored = true): void {
    const appended = change.type === EventTypes.TurnAppended;
    const purged = change.type === EventTypes.RecordsPurged;
    // The purged turns whose rows record the purge's seq.
    let held: Set<string> | undefined;
    const insertion = turnInsertion(change);
    if (insertion) {
      this.conn.prepare(SQL.shiftTurns).run(insertion.count, insertion.sessionId, insertion.seq);
      this.conn.prepare(SQL.unshiftTurns).run(insertion.sessionId);
    }
    for (const record of changeRecords(change)) {
      // An appended turn's seq is above every seq of its session, and a written item's id is new (fold rules): the slot is free, no need to look.
      if (record.kind === 'turn' && appended) this.#insertTurn(record.record, seq);
      else if (record.kind === 'turn' && purged) {
        if (this.#putTurn(record.record, seq)) {
          held ??= new Set();
          held.add(record.record.id);
        }
      } else if (record.kind === 'memory' && change.type === EventTypes.MemoryWritten) this.#insertMemory(record.record);
      else this.put(record, stored ? seq : undefined);
    }
    // An append's history (its turn and its session) is the turn row's `appended_seq`, and a purged turn's is
    // its row's `purged_seq`: the rows a purge rewrites anyway sit together, its turns' ids are spread over the index.
    if (!appended) indexRecordEvents(this.conn, change, seq, held);
    const operation = change.payload.operation;
    // A live write's first event carries the hash; its later events (a batch) name the id only.
    if (operation?.inputHash !== undefined) this.putOperation(operationEntry(operation, seq));
  }

  /** Indexes the operation of an idempotent write (no hash: an empty `input_hash`); an id already there is refused by the table's key. */
  putOperation(entry: OperationEntry): void {
    this.conn.prepare(SQL.putOperation).run(rowCodec.operationValues(entry));
  }

  /**
   * Writes one record's post-image: the single writer behind `apply`,
   * `restore` and the fold. `eventSeq` names the `state` event whose stored
   * payload holds the record exactly (not upcast), which a checkpoint row
   * points at rather than copying its value.
   */
  put(entry: ChangeRecord, eventSeq?: number): void {
    switch (entry.kind) {
      case 'session':
        this.#putSession(entry.record);
        break;
      case 'sessionAfterTurn':
        this.#bumpSession(entry.turn);
        break;
      case 'turn':
        this.#putTurn(entry.record);
        break;
      case 'skill':
        this.#putSkill(entry.record);
        break;
      case 'memory':
        this.#putMemory(entry.record);
        break;
      case 'checkpoint':
        putCheckpointRow(this.conn, entry.record, eventSeq);
        break;
      case 'checkpointWrite':
        putCheckpointWriteRow(this.conn, entry.record);
        break;
      case 'checkpointThreadDeletion':
        deleteCheckpointThreadRows(this.conn, entry.threadId);
        break;
    }
  }

  /** Loads a snapshot into empty tables; returns the largest HLC in it. */
  restore(snapshot: Snapshot): Hlc {
    for (const s of snapshot.sessions) this.#putSession(s);
    for (const t of snapshot.turns) this.#putTurn(t);
    for (const s of snapshot.skills) this.#putSkill(s);
    // Inserted in recall order, so that recent-first recall can read the index backwards.
    for (const m of [...snapshot.memory].sort((a, b) => compareMemoryNewestFirst(b, a))) this.#putMemory(m);
    for (const o of snapshot.operations) this.putOperation(o);
    for (const c of snapshot.checkpoints) putCheckpointRow(this.conn, c);
    for (const w of snapshot.checkpointWrites) putCheckpointWriteRow(this.conn, w);
    const stamped = [...snapshot.sessions, ...snapshot.turns, ...snapshot.skills, ...snapshot.memory, ...snapshot.checkpoints];
    return stamped.reduce((hlc, record) => maxHlc(hlc, record.updatedHlc), HLC_ZERO);
  }

  /**
   * Starts a bulk load into emptied tables (a rebuild): records are written
   * without their full-text rows and vectors, which {@link endBulk} derives
   * once from the final live rows.
   */
  beginBulk(): void {
    this.#bulk = true;
    // Inside the caller's write transaction: a failed load rolls the drop back with everything else.
    const names = DEFERRED_INDEXES.map((name) => `'${name}'`).join(', ');
    const indexes = this.conn.db.prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND name IN (${names})`).all() as {
      name: string;
      sql: string;
    }[];
    for (const { name } of indexes) this.conn.db.exec(`DROP INDEX ${name}`);
    this.#deferred = indexes.map((index) => index.sql);
  }

  /** Leaves bulk mode without writing anything (the bulk load failed and is rolled back, its dropped indexes with it). */
  cancelBulk(): void {
    this.#bulk = false;
    this.#deferred = [];
  }

  /**
   * Runs `fn` (the fold of a batch of events) with its full-text writes held back and then written in row
   * order, each row's net change once. FTS5 writes its pending terms out as a new segment whenever a row
   * comes before the last one it was given, which the update of an older record does: a batch of updates
   * wrote a segment each, and the merges of those segments took most of its commit.
   */
  textInRowOrder<T>(fn: () => T): T {
    this.#texts = new Map();
    try {
      const result = fn();
      this.flushText();
      return result;
    } finally {
      this.#texts = undefined;
    }
  }

  /** Writes the full-text changes {@link textInRowOrder} held back so far (a purge reads the index after them). */
  flushText(): void {
    if (this.#texts === undefined) return;
    for (const [table, rows] of this.#texts) {
      const remove = this.conn.prepare(TEXT_STATEMENTS[table].delete);
      const insert = this.conn.prepare(TEXT_STATEMENTS[table].insert);
      for (const n of [...rows.keys()].sort((a, b) => a - b)) {
        const { deleted, inserted } = rows.get(n)!;
        if (deleted !== undefined) remove.run(n, deleted);
        if (inserted !== undefined) insert.run(n, inserted);
      }
    }
    this.#texts.clear();
  }

  /** Inserts or deletes the text of row `n` of `table`, or, while held back, notes it: a delete undoes an insert held back. */
  #text(table: TextTable, op: 'insert' | 'delete', n: number, text: string): void {
    if (this.#texts === undefined) {
      this.conn.prepare(TEXT_STATEMENTS[table][op]).run(n, text);
      return;
    }
    const rows = this.#texts.get(table) ?? new Map<number, { deleted?: string; inserted?: string }>();
    this.#texts.set(table, rows);
    const row = rows.get(n) ?? {};
    rows.set(n, row);
    if (op === 'insert') row.inserted = text;
    else if (row.inserted !== undefined) row.inserted = undefined;
    else row.deleted = text;
  }

  /** Creates the indexes {@link beginBulk} dropped, writes the full-text rows of every live record and leaves bulk mode. */
  endBulk(): void {
    this.#bulk = false;
    for (const sql of this.#deferred) this.conn.db.exec(sql);
    this.#deferred = [];
    for (const index of FULL_TEXT_INDEXES) {
      this.conn.db.exec(`INSERT INTO ${index.table} (${index.table}) VALUES ('delete-all')`);
      const insert = this.conn.prepare(`INSERT INTO ${index.table} (rowid, text) VALUES (?, ?)`);
      for (const row of index.liveTexts(this.conn)) insert.run(row.n, row.text);
      this.conn.db.exec(`INSERT INTO ${index.table} (${index.table}) VALUES ('optimize')`);
    }
  }

  /** Empties every projection table and full-text index (vectors: see {@link VectorIndexes.rebuild}). */
  clear(): void {
    for (const table of PROJECTION_TABLES) this.conn.db.exec(`DELETE FROM ${table}`);
    for (const { table } of FULL_TEXT_INDEXES) this.conn.db.exec(`INSERT INTO ${table} (${table}) VALUES ('delete-all')`);
    this.conn.prepare(SQL.saveMemoryOrder).run('', '', 1);
  }

  #putSession(session: Session): void {
    this.conn.prepare(SQL.putSession).run(rowCodec.sessionValues(session));
    // The turns of a deleted session stay live rows; their vectors go with the session, so a
    // nearest-neighbour search never spends its k on them. A bulk load derives vectors at its end.
    if (session.deleted && !this.#bulk) this.vectors.forgetSession(session.id);
  }

  /** Moves a live session to its next version after `turn` without reading it: one statement. */
  #bumpSession(turn: Turn): void {
    const { wall, counter } = turn.updatedHlc;
    const changed = this.conn.prepare(SQL.sessionAfterTurn).run(wall, counter, turn.lastWriterId, turn.lastWriterId, turn.createdAt, turn.sessionId).changes;
    // The stamper read the session live in this transaction, so only a damaged file gets here.
    if (changed !== 1) throw new CorruptionError('database', 0, `${this.conn.path} is damaged: session ${JSON.stringify(turn.sessionId)} has no live row`);
  }

  /**
   * Writes a turn into its `(sessionId, seq)` slot. `purgedSeq`: the seq of the purge whose tombstone it is,
   * recorded in the turn's own row unless the row already records one (a second purge) or holds no such turn.
   * True when the row records it: the history index then needs no row for the turn.
   */
  #putTurn(turn: Turn, purgedSeq?: number): boolean {
    const slot = this.conn.prepare(SQL.turnSlot).get(turn.sessionId, turn.seq) as
      | { n: number; id: string; deleted: number; content: string; purged_seq: number | null }
      | undefined;
    let n: number;
    let held = false;
    if (slot) {
      n = slot.n;
      held = purgedSeq !== undefined && slot.id === turn.id && slot.purged_seq === null;
      if (held) this.conn.prepare(SQL.purgeSameTurn).run(...rowCodec.turnValues(turn).slice(3), purgedSeq, n);
      else if (slot.id === turn.id) this.conn.prepare(SQL.updateSameTurn).run(...rowCodec.turnValues(turn).slice(3), n);
      else this.conn.prepare(SQL.updateTurn).run(...rowCodec.turnValues(turn), n);
      if (slot.deleted === 0 && !this.#bulk) {
        this.#text('turns_fts', 'delete', n, foldForIndex(slot.content));
        this.vectors.forgetTurn(n);
      }
      if (!turn.deleted && !this.#bulk) this.#text('turns_fts', 'insert', n, foldForIndex(turn.content));
    } else this.#insertTurn(turn);
    return held;
  }

  /**
   * Inserts a turn whose `(sessionId, seq)` slot is free, with its full-text row when live.
   * `appendedSeq`: the seq of the append event, recorded in the row instead of history index rows.
   */
  #insertTurn(turn: Turn, appendedSeq?: number): void {
    const n = Number(this.conn.prepare(SQL.insertTurn).run(...rowCodec.turnValues(turn), appendedSeq ?? null).lastInsertRowid);
    if (!turn.deleted && !this.#bulk) this.#text('turns_fts', 'insert', n, foldForIndex(turn.content));
  }

  #putSkill(skill: Skill): void {
    const slot = this.conn.prepare(SQL.skillSlot).get(skill.id) as rowCodec.SkillRow | undefined;
    let n: number;
    if (slot) {
      n = slot.n;
      this.conn.prepare(SQL.updateSkill).run(...rowCodec.skillValues(skill).slice(1), n);
      if (slot.deleted === 0 && !this.#bulk) this.#text('skills_fts', 'delete', n, foldForIndex(skillSearchText(rowCodec.skillFromRow(slot))));
    } else n = Number(this.conn.prepare(SQL.insertSkill).run(rowCodec.skillValues(skill)).lastInsertRowid);
    if (!skill.deleted && !this.#bulk) this.#text('skills_fts', 'insert', n, foldForIndex(skillSearchText(skill)));
  }

  /** Keeps `memory_order.in_order` true while rows arrive in (createdAt, id) order: one statement, no read back into JavaScript. */
  #noteMemoryOrder(item: MemoryItem): void {
    this.conn.prepare(SQL.noteMemoryOrder).run({ at: item.createdAt, id: item.id });
  }

  #putMemory(item: MemoryItem): void {
    const slot = this.conn.prepare(SQL.memorySlot).get(item.id) as { n: number; deleted: number; content: string } | undefined;
    if (!slot) {
      this.#insertMemory(item);
      return;
    }
    const { n } = slot;
    this.conn.prepare(SQL.updateMemory).run(...rowCodec.memoryValues(item).slice(1), n);
    if (slot.deleted === 0) {
      this.conn.prepare(SQL.deleteMemoryMeta).run(n);
      if (!item.deleted) this.conn.prepare(SQL.bumpMemoryEpoch).run();
    }
    if (slot.deleted === 0 && !this.#bulk) {
      this.#text('memory_fts', 'delete', n, foldForIndex(slot.content));
      this.vectors.forget(n);
    }
    this.#indexMemory(item, n);
  }

  /** Inserts an item whose id has no row yet, with its metadata and full-text rows when live. */
  #insertMemory(item: MemoryItem): void {
    const n = Number(this.conn.prepare(SQL.insertMemory).run(rowCodec.memoryValues(item)).lastInsertRowid);
    this.#noteMemoryOrder(item);
    this.#indexMemory(item, n);
  }

  /** Writes the metadata and full-text rows of the item in row `n`, if it is live. */
  #indexMemory(item: MemoryItem, n: number): void {
    if (item.deleted) return;
    const insertMeta = this.conn.prepare(SQL.insertMemoryMeta);
    for (const leaf of rowCodec.metadataLeaves(item.metadata)) insertMeta.run(n, leaf.path, leaf.type, leaf.value);
    if (!this.#bulk) this.#text('memory_fts', 'insert', n, foldForIndex(item.content));
  }
}
