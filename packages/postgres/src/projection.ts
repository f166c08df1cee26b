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
import { indexLexemes } from './lexical.js';
import { valueColumn } from './metadata.js';

/** `$1, $2, …` for a column list. */
const placeholders = (columns: string): string =>
  columns
    .split(',')
    .map((_, i) => `$${i + 1}`)
    .join(', ');

/** Writes records into the projection tables of one schema, through the transaction given. */
export class Projection {
  constructor(private readonly db: Database) {}

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
    for (const record of changeRecords(change)) await this.put(sql, record);
    const ids = changeRecordIds(change);
    await this.indexRecords(sql, ids, Array(ids.length).fill(seq));
    const operation = change.payload.operation;
    // A live write's first event carries the hash; its later events (a batch) name the id only.
    if (operation?.inputHash !== undefined) await this.putOperation(sql, operationEntry(operation, seq));
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
    await sql.exec(`INSERT INTO ${this.db.t('record_events')} (record_id, seq) SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT DO NOTHING`, [
      ids,
      seqs,
    ]);
  }

  /** Indexes the operation of an idempotent write (no hash: an empty `input_hash`); an id already there is refused by the table's key. */
  async putOperation(sql: Sql, entry: OperationEntry): Promise<void> {
    await sql.exec(`INSERT INTO ${this.db.t('operations')} (id, seq, input_hash) VALUES ($1, $2, $3)`, rowCodec.operationValues(entry));
  }

  /** Writes one record's post-image: the single writer behind `apply` and the fold. */
  async put(sql: Sql, entry: ChangeRecord): Promise<void> {
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
   * Moves a live session to its next version after `turn` (core's
   * `sessionAfterTurn`) without reading it: the stamper found the session
   * live, locked, in this transaction, and so did the fold's rule.
   */
  async #bumpSession(sql: Sql, turn: Turn): Promise<void> {
    await sql.exec(`SELECT ${this.db.t('bump_session')}($1, $2, $3, $4, $5)`, [
      turn.sessionId,
      turn.updatedHlc.wall,
      turn.updatedHlc.counter,
      turn.lastWriterId,
      turn.createdAt,
    ]);
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

  async #putTurn(sql: Sql, turn: Turn): Promise<void> {
    const values = [...rowCodec.turnValues(turn), turn.deleted ? null : indexLexemes(turn.content)];
    await sql.exec(`SELECT ${this.db.t('put_turn')}(${placeholders(`${rowCodec.TURN_COLUMNS}, search`)})`, values);
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
