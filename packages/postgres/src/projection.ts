/**
 * The projection: the only code that changes the read-model tables. The same
 * `apply` serves a live commit and a catch-up fold (docs/architecture.md).
 * Lexical index columns are kept for live records only and hold core's
 * folded tokens (see `lexical.ts`); a record's vectors go when it changes.
 */
import type { Hlc, MemoryItem, OperationEntry, Session, Skill, StateChange, Turn } from '@agentstate/core';
import type { ChangeRecord } from '@agentstate/core/backend';
import { changeRecordIds, changeRecords, operationEntry, skillSearchText, rowCodec, turnInsertion } from '@agentstate/core/backend';
import { deleteCheckpointThreadRows, putCheckpointRow, putCheckpointWriteRow } from './checkpoints.js';
import type { Database, Sql, Statement } from './database.js';
import { indexLexemes, tsvectorText } from './lexical.js';
import { valueColumn } from './metadata.js';

/** `$1, $2, …` for a column list. */
const placeholders = (columns: string): string =>
  columns
    .split(',')
    .map((_, i) => `$${i + 1}`)
    .join(', ');

/**
 * A live session's next version after a turn (core's `sessionAfterTurn`), the parameters named: an instant
 * compares as text in code-point order, whatever the database's collation; the writer is stored as '' when it
 * is the origin, as core's row codec stores it.
 */
export const bumpSessionText = (db: Database, id: string, wall: string, counter: string, writer: string, at: string): string =>
  `UPDATE ${db.t('sessions')} SET sync_version = sync_version + 1, hlc_wall = ${wall}, hlc_counter = ${counter},
        last_writer_id = CASE WHEN origin_instance_id = ${writer} THEN '' ELSE ${writer} END,
        updated_at = CASE WHEN updated_at COLLATE "C" >= ${at} THEN updated_at ELSE ${at} END WHERE id = ${id} AND NOT deleted`;

/** A turn's columns, then its lexemes (`search`); {@link turnValues} gives their values. */
export const TURN_ROW = `${rowCodec.TURN_COLUMNS}, search`;

/** A record's post-image as a fold writes it. */
export type RecordEntry = Extract<ChangeRecord, { kind: 'session' | 'turn' | 'skill' | 'memory' }>;

/** Writes records into the projection tables of one schema, through the transaction given. */
export class Projection {
  /**
   * The texts of the statements every append sends, made once: one text each, which the connection prepares
   * once (`Pipeline`), so the server plans each once per connection, not per write.
   */
  readonly #texts: { bumpSession: string; putTurn: string; appendTurn: string; indexRecords: string };

  constructor(private readonly db: Database) {
    // Its columns named, not `*`: a statement of `*` is not prepared (`Pipeline`), and would be planned on every append.
    const index = (ids: string, seqs: string) =>
      `INSERT INTO ${db.t('record_events')} (record_id, seq) SELECT r.id, r.seq FROM unnest(${ids}::text[], ${seqs}::bigint[]) AS r (id, seq)
        ON CONFLICT DO NOTHING`;
    // A turn's upsert by its place in the session, as `putMany`'s: the row there, if live, loses its vectors.
    const putTurn = `forgotten AS (DELETE FROM ${db.t('vectors')} WHERE target = 'turn' AND record_id = $3
          AND EXISTS (SELECT 1 FROM ${db.t('turns')} WHERE session_id = $1 AND seq = $2 AND NOT deleted))
        INSERT INTO ${db.t('turns')} (${TURN_ROW}) VALUES (${placeholders(rowCodec.TURN_COLUMNS)}, array_to_tsvector($16::text[]))
        ${rowCodec.onConflictUpdate(TURN_ROW, 'session_id, seq')}`;
    this.#texts = {
      bumpSession: bumpSessionText(db, '$1', '$2', '$3', '$4', '$5'),
      putTurn: `WITH ${putTurn}`,
      // The turn's upsert with its session's bump (by the turn's session, clock and time, and its writer `$17`) and
      // its history index (`$18`, `$19`): the three writes of an append in one statement, not three.
      appendTurn: `WITH bumped AS (${bumpSessionText(db, '$1', '$11', '$12', '$17', '$8')}), indexed AS (${index('$18', '$19')}), ${putTurn}`,
      indexRecords: index('$1', '$2'),
    };
  }

  /**
   * The largest HLC of the stored records, as `sql` sees it, where a reopened
   * clock starts: read from the rows, as no row of its own is written by
   * every write (a hot row would serialise the writers).
   */
  async maxHlc(sql: Sql): Promise<Hlc> {
    const [row] = await sql.rows<{ wall: number; counter: number }>(
      `SELECT hlc_wall AS wall, hlc_counter AS counter FROM (${['sessions', 'turns', 'skills', 'memory', 'checkpoints']
        .map((table) => `(SELECT hlc_wall, hlc_counter FROM ${this.db.t(table)} ORDER BY hlc_wall DESC, hlc_counter DESC LIMIT 1)`)
        .join(' UNION ALL ')}) h ORDER BY hlc_wall DESC, hlc_counter DESC LIMIT 1`,
    );
    return row ?? { wall: 0, counter: 0 };
  }

  /** Folds one change, the event at `seq`, into the tables. */
  async apply(sql: Sql, change: StateChange, seq: number): Promise<void> {
    const records = changeRecords(change);
    const ids = changeRecordIds(change);
    const seqs = Array(ids.length).fill(seq);
    const [bumped, turn] = records;
    // An append: the session's bump, the turn and the history index in one statement.
    if (bumped?.kind === 'sessionAfterTurn' && turn?.kind === 'turn' && records.length === 2)
      await sql.exec(this.#texts.appendTurn, [...turnValues(turn.record), bumped.turn.lastWriterId, ids, seqs]);
    else {
      for (const record of records) await this.put(sql, record);
      await this.indexRecords(sql, ids, seqs);
    }
    const operation = change.payload.operation;
    // A live write's first event carries the hash; its later events (a batch) name the id only.
    if (operation?.inputHash !== undefined) await this.putOperations(sql, [operationEntry(operation, seq)]);
  }

  /**
   * Moves the turns from a merged append's rank on as many seqs up as it inserts (`turnInsertion`), before the fold
   * puts its turns: through negative seqs, as `(session_id, seq)` is unique row by row.
   */
  async shiftTurns(sql: Sql, change: StateChange): Promise<void> {
    const insertion = turnInsertion(change);
    if (insertion === undefined) return;
    const { sessionId, seq, count } = insertion;
    await sql.exec(`UPDATE ${this.db.t('turns')} SET seq = -seq - $3 WHERE session_id = $1 AND seq >= $2`, [sessionId, seq, count]);
    await sql.exec(`UPDATE ${this.db.t('turns')} SET seq = -seq WHERE session_id = $1 AND seq < 0`, [insertion.sessionId]);
  }

  /** Writes the history index's rows (docs/contract.md §7, "History"): record `ids[i]` changed by the event at `seqs[i]`, in one statement. */
  async indexRecords(sql: Sql, ids: readonly string[], seqs: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await sql.exec(this.#texts.indexRecords, [ids, seqs]);
  }

  /** Indexes the operations of idempotent writes (no hash: an empty `input_hash`) in one statement; an id already there is refused by the table's key. */
  async putOperations(sql: Sql, entries: readonly OperationEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const rows = entries.map(rowCodec.operationValues);
    await sql.exec(`INSERT INTO ${this.db.t('operations')} (${rowCodec.OPERATION_COLUMNS}) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])`, [
      rows.map((r) => r[0]),
      rows.map((r) => r[1]),
      rows.map((r) => r[2]),
    ]);
  }

  /** Writes one record's post-image: the single writer behind `apply` and the fold. */
  put(sql: Sql, entry: ChangeRecord): Promise<void> {
    switch (entry.kind) {
      case 'session':
        return this.#putSession(sql, entry.record);
      case 'sessionAfterTurn':
        return this.#bumpSession(sql, entry.turn);
      case 'turn':
        return this.#putTurn(sql, entry.record);
      case 'skill':
        return this.#putSkill(sql, entry.record);
      case 'memory':
        return this.#putMemory(sql, entry.record);
      case 'checkpoint':
        return putCheckpointRow(this.db, sql, entry.record);
      case 'checkpointWrite':
        return putCheckpointWriteRow(this.db, sql, entry.record);
      case 'checkpointThreadDeletion':
        return deleteCheckpointThreadRows(this.db, sql, entry.threadId);
    }
  }

  /**
   * Writes the post-images of many records, each id once, in a few set-based statements (one per table and step),
   * for a fold, which holds the writers' lock exclusive: a version after the first updates its row, or inserts it
   * where there is none (no other writer can have taken the id since the rules looked). The rows a version leaves
   * (a deletion, a memory key given up) are marked deleted first, so an item of the same batch may take their
   * key or slug whatever order the table writes rows in; a record that was live loses its vectors, as with `put`.
   */
  async putMany(sql: Sql, entries: readonly RecordEntry[]): Promise<void> {
    const [sessions, turns, skills, memory]: [Session[], Turn[], Skill[], MemoryItem[]] = [[], [], [], []];
    for (const entry of entries) {
      if (entry.kind === 'session') sessions.push(entry.record);
      else if (entry.kind === 'turn') turns.push(entry.record);
      else if (entry.kind === 'skill') skills.push(entry.record);
      else memory.push(entry.record);
    }
    if (sessions.length > 0) {
      const input = this.#input('sessions', rowCodec.SESSION_COLUMNS, sessions.map(rowCodec.sessionValues));
      // The turns of a deleted session stay rows; their vectors go with the session (see `#putSession`).
      await sql.exec(
        `WITH ${input.cte}, put AS (INSERT INTO ${this.db.t('sessions')} (${rowCodec.SESSION_COLUMNS}) SELECT ${rowCodec.SESSION_COLUMNS} FROM input
          ${rowCodec.onConflictUpdate(rowCodec.SESSION_COLUMNS, 'id')})
         DELETE FROM ${this.db.t('vectors')} WHERE target = 'turn' AND record_id IN
           (SELECT t.id FROM ${this.db.t('turns')} t JOIN input i ON t.session_id = i.id WHERE i.deleted)`,
        input.values,
      );
    }
    if (turns.length > 0) {
      const columns = `${rowCodec.TURN_COLUMNS}, search`;
      const input = this.#input(
        'turns',
        rowCodec.TURN_COLUMNS,
        turns.map(rowCodec.turnValues),
        turns.map((turn) => (turn.deleted ? null : turn.content)),
      );
      // Keyed by its place in the session; the row there, if live, loses its vectors.
      await sql.exec(
        `WITH ${input.cte}, forgotten AS (DELETE FROM ${this.db.t('vectors')} WHERE target = 'turn' AND record_id IN
           (SELECT i.id FROM input i JOIN ${this.db.t('turns')} t ON t.session_id = i.session_id AND t.seq = i.seq WHERE NOT t.deleted))
         INSERT INTO ${this.db.t('turns')} (${columns}) SELECT ${columns} FROM input ${rowCodec.onConflictUpdate(columns, 'session_id, seq')}`,
        input.values,
      );
    }
    if (skills.length > 0) {
      const texts = skills.map((skill) => (skill.deleted ? null : skillSearchText(skill)));
      await this.#upsertMany(sql, 'skills', rowCodec.SKILL_COLUMNS, 'slug', skills.map(rowCodec.skillValues), texts, skills);
    }
    if (memory.length === 0) return;
    const texts = memory.map((item) => (item.deleted ? null : item.content));
    await this.#upsertMany(sql, 'memory', rowCodec.MEMORY_COLUMNS, 'key', memory.map(rowCodec.memoryValues), texts, memory);
    // Each live item's metadata leaves, written again whole (`#upsertMany` dropped the old ones).
    const leaves = memory.flatMap((item) => (item.deleted ? [] : rowCodec.metadataLeaves(item.metadata).map((leaf) => ({ id: item.id, ...leaf }))));
    if (leaves.length === 0) return;
    await sql.exec(
      `INSERT INTO ${this.db.t('memory_meta')} (item_n, path, type, text_value, number_value)
       SELECT m.n, l.path, l.type, l.text_value, l.number_value FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[])
         AS l (id, path, type, text_value, number_value) JOIN ${this.db.t('memory')} m ON m.id = l.id`,
      [
        leaves.map((l) => l.id),
        leaves.map((l) => l.path),
        leaves.map((l) => l.type),
        leaves.map((l) => (valueColumn(l.type) === 'text_value' ? l.value : null)),
        leaves.map((l) => (valueColumn(l.type) === 'number_value' ? l.value : null)),
      ],
    );
  }

  /**
   * The rows `values` of `columns` (with `search`, the lexemes of `texts`, when given) as the common table
   * expression `input`, read from one JSON parameter by the table's own row type: no column's type is named here.
   */
  #input(table: string, columns: string, values: readonly rowCodec.RowValue[][], texts?: readonly (string | null)[]): { cte: string; values: [string] } {
    const names = columns.split(', ');
    const rows = values.map((row, r) => {
      const object: Record<string, rowCodec.RowValue> = {};
      for (let i = 0; i < names.length; i += 1) object[names[i]!] = row[i]!;
      const text = texts?.[r];
      const lexemes = typeof text === 'string' ? indexLexemes(text) : null;
      if (lexemes !== null) object.search = tsvectorText(lexemes);
      return object;
    });
    const selected = texts === undefined ? columns : `${columns}, search`;
    return {
      cte: `input AS (SELECT ${selected} FROM json_populate_recordset(NULL::${this.db.t(table)}, $1::json))`,
      values: [JSON.stringify(rows)],
    };
  }

  /**
   * Writes skills or memory items (`table`), each once, keyed by id: first the rows that give up their live place
   * (`place`, in their scope) are marked deleted, and a memory item's vectors (if it was live) and metadata leaves
   * go; then every row is inserted, or updated where its id stands.
   */
  async #upsertMany(
    sql: Sql,
    table: 'skills' | 'memory',
    columns: string,
    place: 'slug' | 'key',
    values: readonly rowCodec.RowValue[][],
    texts: readonly (string | null)[],
    records: readonly { syncVersion: number }[],
  ): Promise<void> {
    // What the first step reads of each later version: its id, its place and whether it is deleted.
    const names = columns.split(', ');
    const read = ['id', place, 'deleted'].map((name) => names.indexOf(name));
    const later = values.filter((_, i) => records[i]!.syncVersion > 1).map((row) => read.map((i) => row[i]!));
    if (later.length > 0) {
      const input = this.#input(table, `id, ${place}, deleted`, later);
      const t = this.db.t(table);
      const dropped =
        table === 'memory'
          ? `, forgotten AS (DELETE FROM ${this.db.t('vectors')} WHERE target = 'memory' AND record_id IN (SELECT m.id FROM ${t} m JOIN input i ON m.id = i.id WHERE NOT m.deleted)),
             dropped AS (DELETE FROM ${this.db.t('memory_meta')} WHERE item_n IN (SELECT m.n FROM ${t} m JOIN input i ON m.id = i.id))`
          : '';
      await sql.exec(
        `WITH ${input.cte}${dropped}
         UPDATE ${t} r SET deleted = true FROM input i
         WHERE r.id = i.id AND NOT r.deleted AND (i.deleted OR r.${place} IS DISTINCT FROM i.${place})`,
        input.values,
      );
    }
    const input = this.#input(table, columns, values, texts);
    const all = `${columns}, search`;
    await sql.exec(`WITH ${input.cte} INSERT INTO ${this.db.t(table)} (${all}) SELECT ${all} FROM input ${rowCodec.onConflictUpdate(all, 'id')}`, input.values);
  }

  /**
   * Moves a live session to its next version after `turn` (core's
   * `sessionAfterTurn`) without reading it: the stamper found the session
   * live, locked, in this transaction, and so did the fold's rule.
   */
  #bumpSession(sql: Sql, turn: Turn): Promise<void> {
    return sql.exec(this.#texts.bumpSession, [turn.sessionId, turn.updatedHlc.wall, turn.updatedHlc.counter, turn.lastWriterId, turn.createdAt]);
  }

  async #putSession(sql: Sql, session: Session): Promise<void> {
    await sql.exec(
      `INSERT INTO ${this.db.t('sessions')} (${rowCodec.SESSION_COLUMNS}) VALUES (${placeholders(rowCodec.SESSION_COLUMNS)})
       ${rowCodec.onConflictUpdate(rowCodec.SESSION_COLUMNS, 'id')}`,
      rowCodec.sessionValues(session),
    );
    // The turns of a deleted session stay rows; their vectors go with the session, so a nearest-neighbour search never spends its k on them.
    if (session.deleted)
      await sql.exec(
        `DELETE FROM ${this.db.t('vectors')} WHERE target = 'turn' AND record_id IN (SELECT id FROM ${this.db.t('turns')} WHERE session_id = $1)`,
        [session.id],
      );
  }

  /**
   * The statement that inserts or updates a row keyed by `slot`, in one
   * statement: the old row is read, updated or, when there is none, a new
   * one inserted; a record that was live loses its vectors (`vectors` names
   * their target and the record id's parameter). It selects the row's `n`.
   */
  #upsert(
    table: string,
    columns: string,
    values: unknown[],
    slot: { where: string; params: unknown[] },
    text: string | null,
    vectors?: { target: 'memory' | 'turn'; id: string },
  ): Statement {
    const search = text === null ? null : indexLexemes(text);
    const count = columns.split(',').length;
    // The slot's parameters follow the row's and its lexemes, then the vectors' target and record id.
    const where = slot.where.replace(/\$(\d+)/g, (_, i: string) => `$${count + 1 + Number(i)}`);
    const target = count + 2 + slot.params.length;
    const parts = [
      `old AS (SELECT n, deleted FROM ${this.db.t(table)} WHERE ${where})`,
      `updated AS (UPDATE ${this.db.t(table)} SET (${columns}, search) = (${placeholders(columns)}, array_to_tsvector($${count + 1}::text[]))
        WHERE n = (SELECT n FROM old) RETURNING n)`,
      `inserted AS (INSERT INTO ${this.db.t(table)} (${columns}, search)
        SELECT ${placeholders(columns)}, array_to_tsvector($${count + 1}::text[]) WHERE NOT EXISTS (SELECT 1 FROM old) RETURNING n)`,
    ];
    if (vectors !== undefined)
      parts.push(
        `forgotten AS (DELETE FROM ${this.db.t('vectors')} WHERE target = $${target} AND record_id = $${target + 1} AND EXISTS (SELECT 1 FROM old WHERE NOT deleted))`,
      );
    return [
      `WITH ${parts.join(',\n')} SELECT coalesce((SELECT n FROM updated), (SELECT n FROM inserted)) AS n`,
      [...values, search, ...slot.params, ...(vectors === undefined ? [] : [vectors.target, vectors.id])],
    ];
  }

  #putTurn(sql: Sql, turn: Turn): Promise<void> {
    return sql.exec(this.#texts.putTurn, turnValues(turn));
  }

  async #putSkill(sql: Sql, skill: Skill): Promise<void> {
    await sql.exec(
      ...this.#upsert(
        'skills',
        rowCodec.SKILL_COLUMNS,
        rowCodec.skillValues(skill),
        { where: firstVersionInserts(skill), params: [skill.id] },
        skill.deleted ? null : skillSearchText(skill),
      ),
    );
  }

  async #putMemory(sql: Sql, item: MemoryItem): Promise<void> {
    const [text, values] = this.#upsert(
      'memory',
      rowCodec.MEMORY_COLUMNS,
      rowCodec.memoryValues(item),
      { where: firstVersionInserts(item), params: [item.id] },
      item.deleted ? null : item.content,
      { target: 'memory', id: item.id },
    );
    // Queued, not awaited: the row's `n` is read again by its id in the statements after it, so a fold's writes
    // go to the server in bounded round trips rather than one an item.
    await sql.exec(text, values);
    const n = `(SELECT n FROM ${this.db.t('memory')} WHERE id = $1)`;
    // The item's metadata leaves are written again whole: the old ones go whatever the item was (a first version
    // is a new row, which has none).
    if (item.syncVersion > 1) await sql.exec(`DELETE FROM ${this.db.t('memory_meta')} WHERE item_n = ${n}`, [item.id]);
    if (item.deleted) return;
    const leaves = rowCodec.metadataLeaves(item.metadata);
    if (leaves.length === 0) return;
    await sql.exec(
      `INSERT INTO ${this.db.t('memory_meta')} (item_n, path, type, text_value, number_value)
       SELECT ${n}, * FROM unnest($2::text[], $3::text[], $4::text[], $5::float8[])`,
      [
        item.id,
        leaves.map((l) => l.path),
        leaves.map((l) => l.type),
        leaves.map((l) => (valueColumn(l.type) === 'text_value' ? l.value : null)),
        leaves.map((l) => (valueColumn(l.type) === 'number_value' ? l.value : null)),
      ],
    );
  }
}

/**
 * The row a version updates, `$1` its id. A first version is a new row: a writer that created the slug or key
 * since this one looked it up holds its id (derived from the slug or key), so the insert collides and the write
 * is tried again, not laid over that record.
 */
function firstVersionInserts(record: { syncVersion: number }): string {
  return record.syncVersion === 1 ? 'false AND id = $1' : 'id = $1';
}

/** The values of {@link TURN_ROW} for `turn`: its row's, then its lexemes (none for a tombstone). */
export function turnValues(turn: Turn): unknown[] {
  return [...rowCodec.turnValues(turn), turn.deleted ? null : indexLexemes(turn.content)];
}
