/**
 * Vector storage. Vectors live in a `real[]` column per target (`memory` or
 * `turn`) and embedder; a vector is stored only while its record is live
 * and still has the content it was computed from, so a concurrent edit
 * never leaves a stale vector behind.
 *
 * Where the pgvector extension is installed (chosen at open time), each
 * target, embedder and dimension gets a partial HNSW index (cosine) on the
 * column cast to `vector(d)`, and a nearest-neighbour query walks it with
 * pgvector's iterative scan, so filters that reject most neighbours still
 * fill `k`. Without pgvector, the exact fallback selects the live records
 * passing the filter in SQL. Either way the candidates are ranked here by
 * core's cosine similarity, so scores equal the reference's.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { MemoryItem, Turn } from '@agentstate/core';
import { cosineSimilarity } from '@agentstate/core';
import type { Embeddable, SqlDialect, TurnVectorQuery, VectorQuery, VectorStore } from '@agentstate/core/backend';
import { matchesNoScope, nearestFirst, Params, recordFilter, rowCodec, turnWhere } from '@agentstate/core/backend';
import type { Database, Sql } from './database.js';
import { onAlias } from './lookups.js';
import { beginWriting } from './writers-lock.js';
import { postgresDialect } from './metadata.js';

/** What differs between the memory and the turn store. */
interface Target<R, Q> {
  name: 'memory' | 'turn';
  table: 'memory' | 'turns';
  /** The columns of its rows, on alias `r` (not `r.*`: a connection prepares the reads). */
  columns: string;
  /** The condition of the records the target embeds, on alias `r`. */
  live(d: SqlDialect, p: Params): string;
  /** The condition of a query's filter, on alias `r` (`undefined`: nothing can match). */
  filter(d: SqlDialect, p: Params, query: Q): string | undefined;
  fromRow(row: never): R;
}

/** How nearest neighbours are found: exactly, or through pgvector's HNSW indexes. */
export type VectorIndex = { kind: 'exact' } | { kind: 'pgvector' /** The quoted schema pgvector's types live in. */; schema: string };

/** What {@link PostgresOptions.vectorIndex} may ask for. */
export type VectorIndexChoice = 'auto' | 'exact';

/**
 * Chooses the vector index at open time: pgvector when the extension is
 * created in the database, or can be created (`CREATE EXTENSION`, which
 * needs the privilege); otherwise, or when `exact` is asked for, the exact
 * fallback.
 */
export async function chooseVectorIndex(db: Database, choice: VectorIndexChoice = 'auto'): Promise<VectorIndex> {
  if (choice === 'exact') return { kind: 'exact' };
  const installed = async () =>
    (await db.rows<{ nspname: string }>(`SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`))[0];
  let found = await installed();
  if (found === undefined) {
    const available = await db.rows(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    if (available.length === 0) return { kind: 'exact' };
    try {
      await db.script('CREATE EXTENSION IF NOT EXISTS vector');
    } catch {
      // Not allowed to create it (or another process raced us and failed): fall back, or use the winner's.
    }
    found = await installed();
    if (found === undefined) return { kind: 'exact' };
  }
  return { kind: 'pgvector', schema: `"${found.nspname.replaceAll('"', '""')}"` };
}

/** Candidates fetched beyond `k` from the index, so near-ties at the cut are ranked exactly here. */
const MARGIN = 16;

/** Vector storage for one target: exact, or through pgvector's HNSW indexes. */
class PostgresVectorStore<R extends Embeddable, Q extends { embedderId: string; vector: Float32Array; k: number }> implements VectorStore<R, Q> {
  /** HNSW indexes known to exist, by name. */
  readonly #indexed = new Set<string>();
  readonly #dialect: SqlDialect;

  constructor(
    private readonly db: Database,
    private readonly index: VectorIndex,
    private readonly target: Target<R, Q>,
  ) {
    this.#dialect = postgresDialect(db);
  }

  /**
   * The partial HNSW index of this target, embedder and dimension (pgvector
   * indexes at most 2,000): its name, the predicate it covers and its
   * expression, with columns prefixed by `alias`.
   */
  #hnsw(embedderId: string, dimensions: number, alias = 'v.'): { name: string; where: string; cast: string; schema: string } | undefined {
    if (this.index.kind !== 'pgvector' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > 2000) return undefined;
    const name = `vectors_hnsw_${createHash('sha256').update(`${this.target.name}\0${embedderId}\0${dimensions}`).digest('hex').slice(0, 32)}`;
    const where = `${alias}target = ${pg.escapeLiteral(this.target.name)} AND ${alias}embedder_id = ${pg.escapeLiteral(embedderId)} AND cardinality(${alias}vector) = ${dimensions}`;
    return { name, where, cast: `(${alias}vector::${this.index.schema}.vector(${dimensions}))`, schema: this.index.schema };
  }

  /** Creates the HNSW index for a dimension once, under an advisory lock so processes never race on its name. */
  async #ensureIndex(embedderId: string, dimensions: number): Promise<void> {
    const hnsw = this.#hnsw(embedderId, dimensions, '');
    if (hnsw === undefined || this.#indexed.has(hnsw.name)) return;
    await this.db.transaction(async (sql: Sql) => {
      await sql.rows('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.db.schema}.${hnsw.name}`]);
      await sql.rows(
        `CREATE INDEX IF NOT EXISTS ${hnsw.name} ON ${this.db.t('vectors')} USING hnsw (${hnsw.cast} ${hnsw.schema}.vector_cosine_ops) WHERE ${hnsw.where}`,
      );
    });
    this.#indexed.add(hnsw.name);
  }

  async pending(embedderId: string, limit: number): Promise<R[]> {
    const take = Math.max(0, Math.trunc(limit));
    if (take === 0) return [];
    const p = new Params();
    const live = this.target.live(this.#dialect, p);
    const rows = await this.db.rows<never>(
      `SELECT ${this.target.columns} FROM ${this.db.t(this.target.table)} r WHERE ${live} AND NOT EXISTS (
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
    // Under the writers' lock shared, like a write: a purge commits wholly before (its text is no longer the
    // record's, and is not cached: core's `holdsContent`, in SQL) or after (it drops what this caches).
    await this.db.transaction(
      async (sql) => {
        await sql.rows(
          `INSERT INTO ${this.db.t('embedding_cache')} (embedder_id, content_hash, vector)
         SELECT DISTINCT ON (e.h) $1, e.h, e.v::real[] FROM unnest($2::text[], $3::text[], $4::text[]) AS e(id, h, v)
         JOIN ${this.db.t(this.target.table)} r ON r.id = e.id AND encode(sha256(convert_to(r.content, 'UTF8')), 'hex') = e.h
         ON CONFLICT (embedder_id, content_hash) DO NOTHING`,
          [embedderId, ids, hashes, vectors],
        );
        const p = new Params();
        const live = this.target.live(this.#dialect, p);
        await sql.rows(
          `INSERT INTO ${this.db.t('vectors')} (target, embedder_id, record_id, vector)
         SELECT ${p.add(this.target.name)}, ${p.add(embedderId)}, r.id, e.v::real[]
         FROM unnest(${p.add(ids)}::text[], ${p.add(hashes)}::text[], ${p.add(vectors)}::text[]) AS e(id, h, v)
         JOIN ${this.db.t(this.target.table)} r ON r.id = e.id
         WHERE ${live} AND encode(sha256(convert_to(r.content, 'UTF8')), 'hex') = e.h
         ON CONFLICT (target, embedder_id, record_id) DO UPDATE SET vector = excluded.vector`,
          p.values,
        );
      },
      beginWriting(this.db, 'shared'),
    );
    for (const dimensions of new Set(entries.map((e) => e.vector.length))) await this.#ensureIndex(embedderId, dimensions);
  }

  async nearest(query: Q): Promise<Array<{ record: R; similarity: number }>> {
    const p = new Params();
    const filter = this.target.filter(this.#dialect, p, query);
    if (filter === undefined || query.k <= 0) return [];
    const from = `FROM ${this.db.t('vectors')} v JOIN ${this.db.t(this.target.table)} r ON r.id = v.record_id`;
    const hnsw = this.#hnsw(query.embedderId, query.vector.length);
    let rows: Array<{ vector: number[] }>;
    if (hnsw === undefined) {
      rows = await this.db.rows<{ vector: number[] }>(
        `SELECT ${this.target.columns}, v.vector ${from}
         WHERE v.target = ${p.add(this.target.name)} AND v.embedder_id = ${p.add(query.embedderId)} AND ${this.target.live(this.#dialect, p)} AND ${filter}`,
        p.values,
      );
    } else {
      // The predicate is written out literally, so the planner can prove the partial index applies.
      const take = Math.trunc(query.k) + MARGIN;
      const text = `SELECT ${this.target.columns}, v.vector ${from}
         WHERE ${hnsw.where} AND ${this.target.live(this.#dialect, p)} AND ${filter}
         ORDER BY ${hnsw.cast} OPERATOR(${hnsw.schema}.<=>) ${p.add(`[${Array.from(query.vector).join(',')}]`)}::${hnsw.schema}.vector(${query.vector.length})
         LIMIT ${p.add(take)}`;
      rows = await this.db.transaction(async (sql) => {
        // Without an iterative scan, a filter rejecting most of the ef_search neighbours would return fewer than k.
        await sql.rows(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true)`, [
          String(Math.min(1000, Math.max(40, take))),
        ]);
        return sql.rows<{ vector: number[] }>(text, p.values);
      });
    }
    const hits = rows.map((row) => ({
      record: this.target.fromRow(row as never),
      similarity: cosineSimilarity(query.vector, Float32Array.from(row.vector)),
    }));
    return nearestFirst(hits, query.k);
  }
}

/** Vector storage of memory items. */
export const memoryVectors = (db: Database, index: VectorIndex): VectorStore<MemoryItem, VectorQuery> =>
  new PostgresVectorStore<MemoryItem, VectorQuery>(db, index, {
    name: 'memory',
    table: 'memory',
    columns: onAlias('r', rowCodec.MEMORY_COLUMNS),
    live: () => 'NOT r.deleted',
    filter: (d, p, query) => (matchesNoScope(query) || query.kinds?.length === 0 ? undefined : `NOT r.deleted${recordFilter(d, p, query, 'r')}`),
    fromRow: (row: rowCodec.MemoryRow) => rowCodec.memoryFromRow(row),
  });

/** Vector storage of turns (live turns of live sessions). */
export const turnVectors = (db: Database, index: VectorIndex): VectorStore<Turn, TurnVectorQuery> =>
  new PostgresVectorStore<Turn, TurnVectorQuery>(db, index, {
    name: 'turn',
    table: 'turns',
    columns: onAlias('r', rowCodec.TURN_COLUMNS),
    live: (d, p) => turnWhere(d, p, {}, 'r'),
    filter: (d, p, query) => (query.sessionIds?.length === 0 || query.roles?.length === 0 ? undefined : turnWhere(d, p, query, 'r')),
    fromRow: (row: rowCodec.TurnRow) => rowCodec.turnFromRow(row),
  });
