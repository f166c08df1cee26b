/**
 * Vector storage without an index extension: the exact fallback. Vectors
 * live in a `real[]` column per target (`memory` or `turn`) and embedder;
 * a nearest-neighbour query selects the live records passing the filter in
 * SQL and ranks them by cosine similarity here, exactly. A vector is stored
 * only while its record is live and still has the content it was computed
 * from, so a concurrent edit never leaves a stale vector behind.
 */
import type { MemoryItem, Turn } from '@agentstate/core';
import { cosineSimilarity } from '@agentstate/core';
import type { Embeddable, TurnVectorQuery, VectorQuery, VectorStore } from '@agentstate/core/backend';
import { compareStrings } from '@agentstate/core/backend';
import type { Database } from './database.js';
import { memoryRowFilter } from './metadata.js';
import { Params } from './params.js';
import type { MemoryRow, TurnRow } from './rows.js';
import { memoryFromRow, turnFromRow } from './rows.js';
import { scopeCondition } from './scope-sql.js';
import { turnWhere } from './turn-queries.js';

/** What differs between the memory and the turn store. */
interface Target<R, Q> {
  name: 'memory' | 'turn';
  table: 'memory' | 'turns';
  /** The condition of the records the target embeds, on alias `r`. */
  live(p: Params): string;
  /** The condition of a query's filter, on alias `r` (`undefined`: nothing can match). */
  filter(p: Params, query: Q): string | undefined;
  fromRow(row: never): R;
}

/** Exact cosine vector storage for one target. */
class ExactVectorStore<R extends Embeddable, Q extends { embedderId: string; vector: Float32Array; k: number }> implements VectorStore<R, Q> {
  constructor(
    private readonly db: Database,
    private readonly target: Target<R, Q>,
  ) {}

  async pending(embedderId: string, limit: number): Promise<R[]> {
    const take = Math.max(0, Math.trunc(limit));
    if (take === 0) return [];
    const p = new Params();
    const live = this.target.live(p);
    const rows = await this.db.rows<never>(
      `SELECT r.* FROM ${this.db.t(this.target.table)} r WHERE ${live} AND NOT EXISTS (
         SELECT 1 FROM ${this.db.t('vectors')} v WHERE v.target = ${p.add(this.target.name)} AND v.embedder_id = ${p.add(embedderId)} AND v.record_id = r.id)
       ORDER BY r.n LIMIT ${p.add(take)}`,
      p.values,
    );
    return rows.map((row) => this.target.fromRow(row));
  }

  async cached(embedderId: string, contentHashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const rows = await this.db.rows<{ content_hash: string; vector: number[] }>(
      `SELECT content_hash, vector FROM ${this.db.t('embedding_cache')} WHERE embedder_id = $1 AND content_hash = ANY($2::text[])`,
      [embedderId, contentHashes],
    );
    return new Map(rows.map((row) => [row.content_hash, Float32Array.from(row.vector)]));
  }

  async put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): Promise<void> {
    if (entries.length === 0) return;
    const vectors = entries.map((e) => `{${Array.from(e.vector).join(',')}}`);
    const ids = entries.map((e) => e.id);
    const hashes = entries.map((e) => e.contentHash);
    await this.db.transaction(async (sql) => {
      await sql.rows(
        `INSERT INTO ${this.db.t('embedding_cache')} (embedder_id, content_hash, vector)
         SELECT DISTINCT ON (h) $1, h, v::real[] FROM unnest($2::text[], $3::text[]) AS e(h, v)
         ON CONFLICT (embedder_id, content_hash) DO NOTHING`,
        [embedderId, hashes, vectors],
      );
      const p = new Params();
      const live = this.target.live(p);
      await sql.rows(
        `INSERT INTO ${this.db.t('vectors')} (target, embedder_id, record_id, vector)
         SELECT ${p.add(this.target.name)}, ${p.add(embedderId)}, r.id, e.v::real[]
         FROM unnest(${p.add(ids)}::text[], ${p.add(hashes)}::text[], ${p.add(vectors)}::text[]) AS e(id, h, v)
         JOIN ${this.db.t(this.target.table)} r ON r.id = e.id
         WHERE ${live} AND encode(sha256(convert_to(r.content, 'UTF8')), 'hex') = e.h
         ON CONFLICT (target, embedder_id, record_id) DO UPDATE SET vector = excluded.vector`,
        p.values,
      );
    });
  }

  async nearest(query: Q): Promise<Array<{ record: R; similarity: number }>> {
    const p = new Params();
    const filter = this.target.filter(p, query);
    if (filter === undefined || query.k <= 0) return [];
    const rows = await this.db.rows<{ vector: number[] }>(
      `SELECT r.*, v.vector FROM ${this.db.t('vectors')} v JOIN ${this.db.t(this.target.table)} r ON r.id = v.record_id
       WHERE v.target = ${p.add(this.target.name)} AND v.embedder_id = ${p.add(query.embedderId)} AND ${this.target.live(p)} AND ${filter}`,
      p.values,
    );
    const hits = rows.map((row) => ({
      record: this.target.fromRow(row as never),
      similarity: cosineSimilarity(query.vector, Float32Array.from(row.vector)),
    }));
    hits.sort((a, b) => b.similarity - a.similarity || compareStrings(a.record.id, b.record.id));
    return hits.slice(0, query.k);
  }
}

/** Exact vector storage of memory items. */
export function memoryVectors(db: Database): VectorStore<MemoryItem, VectorQuery> {
  return new ExactVectorStore<MemoryItem, VectorQuery>(db, {
    name: 'memory',
    table: 'memory',
    live: () => 'NOT r.deleted',
    filter: (p, query) => {
      if ((query.scopes?.length === 0 && query.descendantsOf === undefined) || query.kinds?.length === 0) return undefined;
      let sql = 'true';
      const scoped = scopeCondition(p, query, 'r.scope_key');
      if (scoped) sql += ` AND ${scoped}`;
      if (query.kinds !== undefined) sql += ` AND r.kind = ANY(${p.add(query.kinds)}::text[])`;
      return sql + memoryRowFilter(p, query, 'r', db.t('memory_meta'));
    },
    fromRow: (row: MemoryRow) => memoryFromRow(row),
  });
}

/** Exact vector storage of turns (live turns of live sessions). */
export function turnVectors(db: Database): VectorStore<Turn, TurnVectorQuery> {
  return new ExactVectorStore<Turn, TurnVectorQuery>(db, {
    name: 'turn',
    table: 'turns',
    live: (p) => turnWhere(db, p, {}, 'r'),
    filter: (p, query) => {
      if (query.sessionIds?.length === 0 || query.roles?.length === 0) return undefined;
      return turnWhere(db, p, query, 'r');
    },
    fromRow: (row: TurnRow) => turnFromRow(row),
  });
}
