/**
 * The vector tables against the projection: for every embedder's index,
 * the listing of which items have a vector (`memory_vectors`) and the
 * sqlite-vec table hold the same rows, only live items have vectors, each
 * vector row carries its item's scope and kind, and each vector equals the
 * one cached for the item's current content. A live item without a vector
 * is not damage: vectors are derived lazily, and it is counted as pending.
 */
import { contentHash } from '@agentstate/core/backend';
import type { Connection } from '../connection.js';
import { describe } from './integrity.js';
import type { VerifyProblem } from './report.js';

const MAX_LISTED = 5;

/** How close a stored vector must be to the cached embedding of its content. */
const MIN_COSINE = 0.999;

interface IndexRow {
  no: number;
  embedder_id: string;
  dimensions: number;
}

/** What the vector check found. */
export interface VectorCheck {
  problems: VerifyProblem[];
  /** Live items without a vector, per embedder id. */
  pending: Record<string, number>;
}

/** Checks every vector index; inside a read transaction, with sqlite-vec loaded when any exists. */
export function checkVectors(conn: Connection): VectorCheck {
  const problems: VerifyProblem[] = [];
  const pending: Record<string, number> = {};
  let indexes: IndexRow[];
  try {
    indexes = conn.db.prepare('SELECT no, embedder_id, dimensions FROM vector_indexes ORDER BY no').all() as IndexRow[];
  } catch (error) {
    return {
      problems: [
        { part: 'vectors', object: 'vector_indexes', message: `the list of vector indexes cannot be read: ${describe(error)}`, repair: 'export-import' },
      ],
      pending,
    };
  }
  for (const index of indexes) {
    const table = `memory_vec_${Math.trunc(index.no)}`;
    try {
      const found = compareIndex(conn, index, table);
      pending[index.embedder_id] = found.pending;
      for (const message of found.messages)
        problems.push({ part: 'vectors', object: table, message: `${table} (${index.embedder_id}): ${message}`, repair: 'rebuild' });
    } catch (error) {
      problems.push({ part: 'vectors', object: table, message: `${table} (${index.embedder_id}) cannot be read: ${describe(error)}`, repair: 'rebuild' });
    }
  }
  return { problems, pending };
}

function compareIndex(conn: Connection, index: IndexRow, table: string): { messages: string[]; pending: number } {
  const messages: string[] = [];
  const listedRows = new Set(
    (conn.db.prepare('SELECT item_n FROM memory_vectors WHERE index_no = ?').all(index.no) as { item_n: number }[]).map((r) => r.item_n),
  );
  const vectors = conn.db.prepare(`SELECT rowid AS n, embedding, scope_key, kind FROM ${table}`).all() as {
    n: number | bigint;
    embedding: Buffer;
    scope_key: string;
    kind: string;
  }[];
  const items = new Map(
    (
      conn.db.prepare('SELECT n, content, scope_key, kind FROM memory WHERE deleted = 0').all() as {
        n: number;
        content: string;
        scope_key: string;
        kind: string;
      }[]
    ).map((r) => [r.n, r]),
  );
  const cached = conn.db.prepare('SELECT vector FROM embedding_cache WHERE embedder_id = ? AND content_hash = ?');
  const stored = new Set<number>();
  const unlisted: number[] = [];
  const dead: number[] = [];
  const mislabelled: number[] = [];
  const changed: number[] = [];
  for (const row of vectors) {
    const n = Number(row.n);
    stored.add(n);
    if (!listedRows.has(n)) unlisted.push(n);
    const item = items.get(n);
    if (!item) {
      dead.push(n);
      continue;
    }
    if (item.scope_key !== row.scope_key || item.kind !== row.kind) mislabelled.push(n);
    const cache = cached.get(index.embedder_id, contentHash(item.content)) as { vector: Buffer } | undefined;
    if (row.embedding.length !== index.dimensions * 4 || (cache && !close(cache.vector, row.embedding))) changed.push(n);
  }
  const lost = [...listedRows].filter((n) => !stored.has(n));
  if (lost.length) messages.push(`${lost.length} items are listed as having a vector that is missing (n ${listed(lost)})`);
  if (unlisted.length) messages.push(`${unlisted.length} vectors are not listed (n ${listed(unlisted)})`);
  if (dead.length) messages.push(`${dead.length} vectors belong to no live item (n ${listed(dead)})`);
  if (mislabelled.length) messages.push(`${mislabelled.length} vectors carry the wrong scope or kind (n ${listed(mislabelled)})`);
  if (changed.length) messages.push(`${changed.length} vectors differ from the embedding of their item's content (n ${listed(changed)})`);
  let pending = 0;
  for (const n of items.keys()) if (!stored.has(n) && !listedRows.has(n)) pending += 1;
  return { messages, pending };
}

/**
 * Two stored float32 vectors agree in direction. Not byte equality: an
 * embedder that is not bit-for-bit deterministic may have refreshed the
 * cache after the vector was stored.
 */
function close(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) return false;
  const x = new Float32Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.length));
  const y = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
  let dot = 0;
  let xx = 0;
  let yy = 0;
  for (let i = 0; i < x.length; i += 1) {
    dot += x[i]! * y[i]!;
    xx += x[i]! * x[i]!;
    yy += y[i]! * y[i]!;
  }
  if (xx === 0 || yy === 0) return xx === yy;
  const cosine = dot / Math.sqrt(xx * yy);
  return Number.isFinite(cosine) && cosine >= MIN_COSINE;
}

function listed(values: readonly number[]): string {
  const shown = values.slice(0, MAX_LISTED).join(', ');
  return values.length > MAX_LISTED ? `${shown}, …` : shown;
}
