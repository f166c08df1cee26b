/**
 * Semantic transcript search on a database opened read-only, as
 * `readonly-vectors.ts` does for memory: a search first embeds the live
 * turns that have no stored vector yet (turns written without an
 * embedder); a read-only database cannot store them, so they are kept in
 * memory for the life of the provider and searched beside the stored ones.
 */
import type { Turn } from '@agentstate/core';
import type { TurnVectorQuery, VectorStore, TurnRow } from '@agentstate/core/backend';
import { compareStrings, turnFromRow } from '@agentstate/core/backend';
import { ValidationError } from '@agentstate/core';
import type { Connection } from './connection.js';
import { cosine } from './readonly-vectors.js';
import type { SqliteTurnVectorStore } from './turn-vectors.js';
import { turnWhere } from './turn-queries.js';
import type { VectorIndexes } from './vectors.js';
import { MAX_NEIGHBOURS } from './vectors.js';

/** A turn vector held in memory, with what a filtered search needs. */
interface HeldVector {
  n: number;
  vector: Float32Array;
  sessionId: string;
  role: string;
}

/** One embedder's turn vectors held in memory, and how far `pending` has handed out turns. */
interface Held {
  after: number;
  dimensions: number;
  vectors: Map<number, HeldVector>;
}

/** The turn {@link VectorStore} of a read-only SQLite backend: stored vectors, plus the missing ones in memory. */
export class ReadOnlyTurnVectorStore implements VectorStore<Turn, TurnVectorQuery> {
  readonly #held = new Map<string, Held>();

  constructor(
    private readonly conn: Connection,
    private readonly indexes: VectorIndexes,
    private readonly stored: SqliteTurnVectorStore,
  ) {}

  #heldFor(embedderId: string): Held {
    let held = this.#held.get(embedderId);
    if (!held) {
      held = { after: 0, dimensions: this.indexes.find(embedderId)?.dimensions ?? 0, vectors: new Map() };
      this.#held.set(embedderId, held);
    }
    return held;
  }

  pending(embedderId: string, limit: number): Turn[] {
    const take = Math.max(0, Math.trunc(limit));
    if (take === 0) return [];
    const held = this.#heldFor(embedderId);
    return this.conn.read(() => {
      const index = this.indexes.find(embedderId);
      const { where, params } = turnWhere({});
      const unstored = index ? 'AND NOT EXISTS (SELECT 1 FROM turn_vectors v WHERE v.index_no = ? AND v.turn_n = t.n)' : '';
      const rows = this.conn
        .prepare(`SELECT t.* FROM turns t WHERE t.n > ? AND ${where} ${unstored} ORDER BY t.n LIMIT ?`)
        .all(held.after, ...params, ...(index ? [index.no] : []), take) as (TurnRow & { n: number })[];
      // Everything handed out is embedded and put before the next call.
      if (rows.length > 0) held.after = rows[rows.length - 1]!.n;
      return rows.map(turnFromRow);
    });
  }

  cached(embedderId: string, contentHashes: readonly string[]): Map<string, Float32Array> {
    return this.stored.cached(embedderId, contentHashes);
  }

  put(embedderId: string, entries: readonly { id: string; contentHash: string; vector: Float32Array }[]): void {
    if (entries.length === 0) return;
    const held = this.#heldFor(embedderId);
    if (held.dimensions === 0) held.dimensions = entries[0]!.vector.length;
    this.conn.read(() => {
      const index = this.indexes.find(embedderId);
      const { where, params } = turnWhere({});
      const lookup = this.conn.prepare(`SELECT t.n, t.session_id, t.role FROM turns t WHERE t.id = ? AND ${where}`);
      for (const entry of entries) {
        if (entry.vector.length !== held.dimensions) {
          throw new ValidationError('vector', `expected ${held.dimensions} dimensions, got ${entry.vector.length}`);
        }
        const row = lookup.get(entry.id, ...params) as { n: number; session_id: string; role: string } | undefined;
        if (!row || (index && this.indexes.hasTurn(index, row.n))) continue;
        held.vectors.set(row.n, { n: row.n, vector: entry.vector, sessionId: row.session_id, role: row.role });
      }
    });
  }

  nearest(query: TurnVectorQuery): Array<{ record: Turn; similarity: number }> {
    const k = Math.min(Math.max(0, Math.trunc(query.k)), MAX_NEIGHBOURS);
    const stored = this.stored.nearest(query);
    const held = this.#held.get(query.embedderId);
    if (k === 0 || !held || held.vectors.size === 0) return stored;
    if (query.vector.length !== held.dimensions) {
      throw new ValidationError('vector', `expected ${held.dimensions} dimensions, got ${query.vector.length}`);
    }
    const sessions = query.sessionIds ? new Set(query.sessionIds) : undefined;
    const roles = query.roles ? new Set<string>(query.roles) : undefined;
    const candidates = [...held.vectors.values()]
      .filter((v) => (!sessions || sessions.has(v.sessionId)) && (!roles || roles.has(v.role)))
      .map((v) => ({ n: v.n, similarity: cosine(query.vector, v.vector) }))
      .sort((a, b) => b.similarity - a.similarity);
    // The rows decide liveness, as the stored search does.
    const { where, params } = turnWhere({});
    const rows = this.conn.read(
      () =>
        this.conn
          .prepare(`SELECT t.* FROM turns t WHERE t.n IN (SELECT value FROM json_each(?)) AND ${where}`)
          .all(JSON.stringify(candidates.map((c) => c.n)), ...params) as (TurnRow & { n: number })[],
    );
    const byN = new Map(rows.map((r) => [r.n, r]));
    const fromMemory = candidates
      .flatMap((c) => {
        const row = byN.get(c.n);
        return row ? [{ record: turnFromRow(row), similarity: c.similarity }] : [];
      })
      .slice(0, k);
    return [...stored, ...fromMemory].sort((a, b) => b.similarity - a.similarity || compareStrings(a.record.id, b.record.id)).slice(0, k);
  }
}
