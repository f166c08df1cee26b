/**
 * Derived vectors of turns in sqlite-vec, for semantic transcript search
 * (docs/contract.md §6): per embedder a `turn_vec_<no>` table beside the
 * index's memory table, with the turn's session and role as metadata
 * columns, and `turn_vectors` listing which turns have one. Vectors exist
 * for live turns of live sessions only; they share the embedding cache with memory items, so
 * equal text is embedded once, and a rebuild re-creates them from it.
 */
import type { Turn } from '@agentstate/core';
import type { TurnVectorQuery, VectorStore, TurnRow } from '@agentstate/core/backend';
import { compareStrings, holdsContent, turnFromRow } from '@agentstate/core/backend';
import { ValidationError } from '@agentstate/core';
import type { Connection } from './connection.js';
import { turnWhere } from './turn-queries.js';
import type { VectorIndexes } from './vectors.js';
import { MAX_NEIGHBOURS, turnTableOf } from './vectors.js';

/** The turn {@link VectorStore} of a writable SQLite backend. */
export class SqliteTurnVectorStore implements VectorStore<Turn, TurnVectorQuery> {
  constructor(
    private readonly conn: Connection,
    private readonly indexes: VectorIndexes,
  ) {}

  pending(embedderId: string, limit: number): Turn[] {
    const take = Math.max(0, Math.trunc(limit));
    if (take === 0) return [];
    return this.conn.read(() => {
      const index = this.indexes.find(embedderId);
      const { where, params } = turnWhere({});
      const unstored = index ? 'AND NOT EXISTS (SELECT 1 FROM turn_vectors v WHERE v.index_no = ? AND v.turn_n = t.n)' : '';
      const rows = this.conn
        .prepare(`SELECT t.* FROM turns t WHERE ${where} ${unstored} ORDER BY t.n LIMIT ?`)
        .all(...params, ...(index ? [index.no] : []), take) as TurnRow[];
      return rows.map(turnFromRow);
    });
  }

  cached(embedderId: string, contentHashes: readonly string[]): Map<string, Float32Array> {
    return this.conn.read(() => this.indexes.cached(embedderId, contentHashes));
  }

  async put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): Promise<void> {
    if (entries.length === 0) return;
    await this.conn.exclusive(() =>
      this.conn.immediateWhenFree(() => {
        const index = this.indexes.ensure(embedderId, entries[0]!.vector.length);
        this.indexes.ensureTurnTable(index);
        // A turn whose session was deleted after it was handed out for embedding gets no vector.
        const lookup = this.conn.prepare(
          'SELECT t.n, t.deleted + (SELECT s.deleted FROM sessions s WHERE s.id = t.session_id) AS deleted, t.session_id, t.role, t.content FROM turns t WHERE t.id = ?',
        );
        for (const entry of entries) {
          if (entry.vector.length !== index.dimensions) {
            throw new ValidationError('vector', `expected ${index.dimensions} dimensions, got ${entry.vector.length}`);
          }
          const row = lookup.get(entry.id) as { n: number; deleted: number; session_id: string; role: string; content: string } | undefined;
          if (holdsContent(row?.content, entry.contentHash)) this.indexes.cache(embedderId, entry.contentHash, entry.vector);
          if (row?.deleted !== 0 || this.indexes.hasTurn(index, row.n)) continue;
          this.indexes.addTurn(index, row.n, entry.vector, row.session_id, row.role);
        }
      }),
    );
  }

  nearest(query: TurnVectorQuery): Array<{ record: Turn; similarity: number }> {
    const k = Math.min(Math.max(0, Math.trunc(query.k)), MAX_NEIGHBOURS);
    if (k === 0 || query.sessionIds?.length === 0 || query.roles?.length === 0) return [];
    return this.conn.read(() => {
      const index = this.indexes.find(query.embedderId);
      if (!index || !this.#hasTable(turnTableOf(index))) return [];
      if (query.vector.length !== index.dimensions) {
        throw new ValidationError('vector', `expected ${index.dimensions} dimensions, got ${query.vector.length}`);
      }
      let sql = `SELECT rowid AS n, distance FROM ${turnTableOf(index)} WHERE embedding MATCH ? AND k = ?`;
      const params: unknown[] = [query.vector, k];
      if (query.sessionIds) {
        sql += ` AND session_id IN (${query.sessionIds.map(() => '?').join(', ')})`;
        params.push(...query.sessionIds);
      }
      if (query.roles) {
        sql += ` AND role IN (${query.roles.map(() => '?').join(', ')})`;
        params.push(...query.roles);
      }
      const hits = this.conn.prepare(sql).all(...params) as { n: number | bigint; distance: number | null }[];
      if (hits.length === 0) return [];
      // Vectors exist only for live turns of live sessions; the rows are checked again all the same.
      const { where } = turnWhere({});
      const rows = this.conn
        .prepare(`SELECT t.* FROM turns t WHERE t.n IN (SELECT value FROM json_each(?)) AND ${where}`)
        .all(JSON.stringify(hits.map((h) => Number(h.n)))) as (TurnRow & { n: number })[];
      const byN = new Map(rows.map((r) => [r.n, r]));
      const out: Array<{ record: Turn; similarity: number }> = [];
      for (const hit of hits) {
        const row = byN.get(Number(hit.n));
        if (!row) continue;
        const similarity = hit.distance === null || !Number.isFinite(hit.distance) ? 0 : 1 - hit.distance;
        out.push({ record: turnFromRow(row), similarity });
      }
      return out.sort((a, b) => b.similarity - a.similarity || compareStrings(a.record.id, b.record.id));
    });
  }

  #hasTable(name: string): boolean {
    return this.conn.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  }
}
