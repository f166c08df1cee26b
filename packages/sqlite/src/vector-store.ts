/**
 * The {@link VectorStore}s of a SQLite backend: one store, for memory items
 * (recall) or turns (semantic transcript search), over the tables of
 * `vectors.ts`. On a database opened read-only the store writes nothing:
 * the live records that have no stored vector yet (written without an
 * embedder) are embedded all the same, and their vectors kept in memory for
 * the life of the provider and searched beside the stored ones. Leaving
 * them out would silently drop those records from every answer.
 */
import type { MemoryItem, Scope, Turn, TurnRole } from '@agentstate/core';
import { CorruptionError, cosineSimilarity } from '@agentstate/core';
import type { Embeddable, TurnVectorQuery, VectorQuery, VectorStore } from '@agentstate/core/backend';
import {
  descendantKeyRange,
  holdsContent,
  matchesNoScope,
  memoryRowFilter,
  nearestFirst,
  scopeFilter,
  scopeKey,
  rowCodec,
  turnFilter,
  turnWhere,
} from '@agentstate/core/backend';
import type { Connection } from './connection.js';
import { sqliteSql } from './scope-sql.js';
import type { VectorIndex, VectorIndexes, VectorTarget } from './vectors.js';
import { checkDimensions, MAX_NEIGHBOURS, MEMORY_TARGET, metaOf, TURN_TARGET, vecTable } from './vectors.js';

/** A condition and its parameters. */
interface Sql {
  sql: string;
  params: unknown[];
}

/** What a search asks of every target. */
interface Search {
  embedderId: string;
  vector: Float32Array;
  k: number;
}

/** What differs between the memory and the turn store. */
interface StoreTarget<R, Q> {
  tables: VectorTarget;
  /** The record table, aliased as {@link alias}. */
  from: string;
  alias: string;
  /** The condition of the records that get vectors. */
  live: Sql;
  fromRow(row: never): R;
  /** True when the query can match nothing. */
  matchesNothing(query: Q): boolean;
  /** The filters of the `vec0` search, appended to its `WHERE`: filters are conjunctions, so a disjunction is several searches, merged. */
  knn(query: Q): Sql[];
  /** What the rows found must meet besides being live (` AND …`, or `''`). */
  rows(query: Q): Sql;
  /** The same filter over a vector held in memory, by its {@link VectorTarget.meta} values. */
  holds(query: Q): (meta: readonly [string, string]) => boolean;
  /**
   * The query of a counter that moves whenever a row that had a vector is rewritten in place, live:
   * while it stands still, `pending` need not look again at rows it found embedded (memory only).
   */
  epoch?: string;
}

/** A vector held in memory by a read-only store. */
interface HeldVector {
  n: number;
  vector: Float32Array;
  meta: readonly [string, string];
}

/** One embedder's vectors held in memory, and how far `pending` has handed out records. */
interface Held {
  after: number;
  dimensions: number;
  vectors: Map<number, HeldVector>;
}

/** A row found near the query. */
interface Hit {
  n: number;
  similarity: number;
}

/** Where `pending` may start for an index: every live row with `n <= mark` has a vector (valid for one generation and epoch). */
interface Mark {
  generation: number;
  epoch: number;
  mark: number;
}

/** The vector store of one target, writable or (on a read-only connection) holding new vectors in memory. */
export class SqliteVectorStore<R extends Embeddable, Q extends Search> implements VectorStore<R, Q> {
  readonly #marks = new Map<number, Mark>();
  /** Read-only: the vectors embedded since the open, by embedder. */
  readonly #held: Map<string, Held> | undefined;

  constructor(
    private readonly conn: Connection,
    private readonly indexes: VectorIndexes,
    private readonly target: StoreTarget<R, Q>,
  ) {
    this.#held = conn.readonly ? new Map() : undefined;
  }

  #heldFor(embedderId: string): Held | undefined {
    if (this.#held === undefined) return undefined;
    let held = this.#held.get(embedderId);
    if (!held) {
      held = { after: 0, dimensions: this.indexes.find(embedderId)?.dimensions ?? 0, vectors: new Map() };
      this.#held.set(embedderId, held);
    }
    return held;
  }

  /** The row of `n` as the rows of a search are selected: live, and meeting `filter`. */
  #rows(ns: readonly number[], filter: Sql): Array<{ n: number }> {
    const { from, alias: a, live } = this.target;
    return this.conn
      .prepare(`SELECT ${a}.* FROM ${from} WHERE ${a}.n IN (SELECT value FROM json_each(?)) AND ${live.sql}${filter.sql}`)
      .all(JSON.stringify(ns), ...live.params, ...filter.params) as Array<{ n: number }>;
  }

  pending(embedderId: string, limit: number): R[] {
    const take = Math.max(0, Math.trunc(limit));
    if (take === 0) return [];
    const held = this.#heldFor(embedderId);
    return this.conn.read(() => {
      const { from, alias: a, live, tables } = this.target;
      const index = this.indexes.find(embedderId);
      const marked = index && !held ? this.#mark(index) : undefined;
      let sql = `SELECT ${a}.* FROM ${from} WHERE ${a}.n > ? AND ${live.sql}`;
      const params: unknown[] = [held?.after ?? marked?.from ?? 0, ...live.params];
      if (marked) {
        sql += ` AND ${a}.n <= ?`;
        params.push(marked.upTo);
      }
      if (index) {
        sql += ` AND NOT EXISTS (SELECT 1 FROM ${tables.listed} v WHERE v.index_no = ? AND v.${tables.rowColumn} = ${a}.n)`;
        params.push(index.no);
      }
      const rows = this.conn.prepare(`${sql} ORDER BY ${a}.n LIMIT ?`).all(...params, take) as Array<{ n: number }>;
      // Read-only: everything handed out is embedded and put before the next call.
      if (held && rows.length > 0) held.after = rows[rows.length - 1]!.n;
      marked?.save(rows.length === 0 ? marked.upTo : rows[0]!.n - 1);
      return rows.map((row) => this.target.fromRow(row as never));
    });
  }

  /** Where `pending` may start for `index`, up to the last row now, and how to record how far it found vectors. */
  #mark(index: VectorIndex): { from: number; upTo: number; save(mark: number): void } | undefined {
    const { epoch: epochSql, from, alias: a } = this.target;
    if (epochSql === undefined) return undefined;
    const row = this.conn.prepare('SELECT generation FROM projection_state WHERE id = 1').get() as { generation: number } | undefined;
    if (row === undefined) throw new CorruptionError('database', 0, `${this.conn.path} is damaged: the projection's state row is missing`);
    const { generation } = row;
    const epoch = (this.conn.prepare(epochSql).get() as { epoch: number } | undefined)?.epoch ?? 0;
    const known = this.#marks.get(index.no);
    const upTo = (this.conn.prepare(`SELECT max(${a}.n) AS n FROM ${from}`).get() as { n: number | null }).n ?? 0;
    return {
      from: known && known.generation === generation && known.epoch === epoch ? known.mark : 0,
      upTo,
      save: (mark) => this.#marks.set(index.no, { generation, epoch, mark }),
    };
  }

  cached(embedderId: string, contentHashes: readonly string[]): Map<string, Float32Array> {
    return this.conn.read(() => this.indexes.cached(embedderId, contentHashes));
  }

  /** The look-up of a record by id: its row number, content, metadata columns and whether it gets vectors. */
  #lookup(): (id: string) => ({ n: number; content: string; live: number } & Record<string, unknown>) | undefined {
    const { from, alias: a, live, tables } = this.target;
    const statement = this.conn.prepare(
      `SELECT ${a}.n, ${a}.content, ${tables.meta.map((c) => `${a}.${c}`).join(', ')}, (${live.sql}) AS live FROM ${from} WHERE ${a}.id = ?`,
    );
    return (id) => statement.get(...live.params, id) as ({ n: number; content: string; live: number } & Record<string, unknown>) | undefined;
  }

  put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): Promise<void> | void {
    if (entries.length === 0) return;
    const held = this.#heldFor(embedderId);
    const { tables } = this.target;
    if (held) {
      if (held.dimensions === 0) held.dimensions = entries[0]!.vector.length;
      this.conn.read(() => {
        const index = this.indexes.find(embedderId);
        const lookup = this.#lookup();
        for (const entry of entries) {
          checkDimensions(held.dimensions, entry.vector.length);
          const row = lookup(entry.id);
          if (!row?.live || (index && this.indexes.has(tables, index, row.n))) continue;
          held.vectors.set(row.n, { n: row.n, vector: entry.vector, meta: metaOf(tables, row) });
        }
      });
      return;
    }
    return this.conn.exclusive(() =>
      this.conn.immediateWhenFree(() => {
        const index = this.indexes.ensure(embedderId, entries[0]!.vector.length);
        const lookup = this.#lookup();
        for (const entry of entries) {
          checkDimensions(index.dimensions, entry.vector.length);
          const row = lookup(entry.id);
          if (holdsContent(row?.content, entry.contentHash)) this.indexes.cache(embedderId, entry.contentHash, entry.vector);
          if (!row?.live || this.indexes.has(tables, index, row.n)) continue;
          this.indexes.add(tables, index, row.n, entry.vector, metaOf(tables, row));
        }
      }),
    );
  }

  nearest(query: Q): Array<{ record: R; similarity: number }> {
    const k = Math.min(Math.max(0, Math.trunc(query.k)), MAX_NEIGHBOURS);
    if (k === 0 || this.target.matchesNothing(query)) return [];
    const stored = this.conn.read(() => this.#stored(query, k));
    const held = this.#held?.get(query.embedderId);
    if (!held || held.vectors.size === 0) return stored;
    checkDimensions(held.dimensions, query.vector.length);
    const holds = this.target.holds(query);
    const candidates = [...held.vectors.values()].filter((v) => holds(v.meta)).map((v) => ({ n: v.n, similarity: cosineSimilarity(query.vector, v.vector) }));
    // The rows decide liveness and the filters on the record, as in the stored search.
    const rows = this.conn.read(() =>
      this.#rows(
        candidates.map((c) => c.n),
        this.target.rows(query),
      ),
    );
    return nearestFirst([...stored, ...this.#ranked(candidates, rows).slice(0, k)], k);
  }

  /** The stored vectors nearest to the query, with their rows. */
  #stored(query: Q, k: number): Array<{ record: R; similarity: number }> {
    const { tables } = this.target;
    const index = this.indexes.find(query.embedderId);
    if (!index) return [];
    checkDimensions(index.dimensions, query.vector.length);
    const arms = this.target.knn(query);
    const neighbours = (depth: number): Hit[] =>
      arms.flatMap((arm) =>
        (
          this.conn
            .prepare(`SELECT rowid AS n, distance FROM ${vecTable(tables, index)} WHERE embedding MATCH ? AND k = ?${arm.sql}`)
            .all(query.vector, depth, ...arm.params) as { n: number | bigint; distance: number | null }[]
        ).map((hit) => ({
          n: Number(hit.n),
          similarity: hit.distance === null || !Number.isFinite(hit.distance) ? 0 : 1 - hit.distance,
        })),
      );
    const filter = this.target.rows(query);
    // The filters on the record are checked on the rows after the search: while they
    // leave fewer than k, ask the index for more neighbours.
    for (let depth = k; ; depth = Math.min(depth * 4, MAX_NEIGHBOURS)) {
      const hits = neighbours(depth);
      if (hits.length === 0) return [];
      const rows = this.#rows(
        hits.map((h) => h.n),
        filter,
      );
      if (rows.length < k && hits.length >= depth && depth < MAX_NEIGHBOURS) continue;
      return this.#ranked(hits, rows).slice(0, k);
    }
  }

  /** Hits joined with their rows, best first (ties by id); a hit without a row is left out. */
  #ranked(hits: readonly Hit[], rows: readonly { n: number }[]): Array<{ record: R; similarity: number }> {
    const byN = new Map(rows.map((r) => [r.n, r]));
    const out: Array<{ record: R; similarity: number }> = [];
    for (const hit of hits) {
      const row = byN.get(hit.n);
      if (row) out.push({ record: this.target.fromRow(row as never), similarity: hit.similarity });
    }
    return nearestFirst(out);
  }
}

/** `col IN (?, ?, …)` for the `vec0` filters, which take no `json_each`. */
const among = (column: string, values: readonly string[]): Sql => ({ sql: ` AND ${column} IN (${values.map(() => '?').join(', ')})`, params: [...values] });

/** The vector store of memory items. */
export function memoryVectorStore(conn: Connection, indexes: VectorIndexes): SqliteVectorStore<MemoryItem, VectorQuery> {
  return new SqliteVectorStore<MemoryItem, VectorQuery>(conn, indexes, {
    tables: MEMORY_TARGET,
    from: 'memory m',
    alias: 'm',
    live: { sql: 'm.deleted = 0', params: [] },
    fromRow: rowCodec.memoryFromRow,
    matchesNothing: (query) => matchesNoScope(query) || query.kinds?.length === 0,
    knn: (query) => {
      const kinds = query.kinds === undefined ? { sql: '', params: [] } : among('kind', query.kinds);
      const arm = (scope: Sql): Sql => ({ sql: scope.sql + kinds.sql, params: [...scope.params, ...kinds.params] });
      const scopes = query.scopes?.map(scopeKey);
      const arms = scopes === undefined ? [arm({ sql: '', params: [] })] : scopes.length === 0 ? [] : [arm(among('scope_key', scopes))];
      if (query.scopes !== undefined && query.descendantsOf !== undefined) {
        const { from, to } = descendantKeyRange(query.descendantsOf);
        arms.push(arm({ sql: ' AND scope_key >= ? AND scope_key < ?', params: [from, to] }));
      }
      return arms;
    },
    rows: (query) => sqliteSql((d, p) => memoryRowFilter(d, p, query, 'm')),
    holds: (query) => {
      const inScope = scopeFilter(query);
      const kinds = query.kinds ? new Set(query.kinds) : undefined;
      return ([scope, kind]) => inScope(JSON.parse(scope) as Scope) && (!kinds || kinds.has(kind));
    },
    epoch: 'SELECT epoch FROM memory_epoch WHERE id = 1',
  });
}

/** The vector store of turns (live turns of live sessions). */
export function turnVectorStore(conn: Connection, indexes: VectorIndexes): SqliteVectorStore<Turn, TurnVectorQuery> {
  return new SqliteVectorStore<Turn, TurnVectorQuery>(conn, indexes, {
    tables: TURN_TARGET,
    from: 'turns t',
    alias: 't',
    live: sqliteSql((d, p) => turnWhere(d, p, {})),
    fromRow: rowCodec.turnFromRow,
    matchesNothing: (query) => query.sessionIds?.length === 0 || query.roles?.length === 0,
    knn: (query) => {
      const sessions = query.sessionIds === undefined ? { sql: '', params: [] } : among('session_id', query.sessionIds);
      const roles = query.roles === undefined ? { sql: '', params: [] } : among('role', query.roles);
      return [{ sql: sessions.sql + roles.sql, params: [...sessions.params, ...roles.params] }];
    },
    rows: () => ({ sql: '', params: [] }),
    holds: (query) => {
      const held = turnFilter(query);
      return ([sessionId, role]) => held({ sessionId, role: role as TurnRole });
    },
  });
}
