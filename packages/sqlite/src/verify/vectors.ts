/**
 * The vector tables against the projection, for every embedder's index and
 * both kinds of record with vectors (memory items in `memory_vec_<no>`,
 * turns in `turn_vec_<no>`): the listing of which records have a vector
 * (`memory_vectors`, `turn_vectors`) and the sqlite-vec table hold the same
 * rows, only live items and live turns of live sessions have vectors, each
 * vector row carries its record's metadata (an item's scope and kind, a
 * turn's session and role), and each vector equals the one cached for the
 * record's current content. A live record without a vector is not damage:
 * vectors are derived lazily, and it is counted as pending.
 */
import { cosineSimilarity } from '@agentstate/core';
import { contentHash, describeError, listed } from '@agentstate/core/backend';
import type { VerifyProblem } from '@agentstate/core';
import type { Connection } from '../connection.js';
import type { VectorIndex, VectorTarget } from '../vectors.js';
import { fromBlob, MEMORY_TARGET, metaOf, TURN_TARGET, VectorIndexes, vecTable } from '../vectors.js';

/** How close a stored vector must be to the cached embedding of its content. */
const MIN_COSINE = 0.999;

/** What the vector check found. */
export interface VectorCheck {
  problems: VerifyProblem[];
  /** Live items without a vector, per embedder id. */
  pending: Record<string, number>;
  /** Live turns of live sessions without a vector, per embedder id. */
  pendingTurns: Record<string, number>;
}

/** How messages name a target's records and their metadata. */
const NAMES: Record<VectorTarget['prefix'], { noun: string; labelled: string }> = {
  memory_vec: { noun: 'item', labelled: 'scope or kind' },
  turn_vec: { noun: 'turn', labelled: 'session or role' },
};

/** Checks every vector index; inside a read transaction, with sqlite-vec loaded when any exists. */
export function checkVectors(conn: Connection): VectorCheck {
  const problems: VerifyProblem[] = [];
  const pending: Record<string, number> = {};
  const pendingTurns: Record<string, number> = {};
  const tables = new VectorIndexes(conn);
  let indexes: VectorIndex[];
  try {
    indexes = tables.list();
  } catch (error) {
    return {
      problems: [
        { part: 'vectors', object: 'vector_indexes', message: `the list of vector indexes cannot be read: ${describeError(error)}`, repair: 'export-import' },
      ],
      pending,
      pendingTurns,
    };
  }
  for (const index of indexes) {
    for (const [target, counts] of [
      [MEMORY_TARGET, pending],
      [TURN_TARGET, pendingTurns],
    ] as const) {
      const table = vecTable(target, index);
      try {
        const found = compareIndex(conn, index, target);
        counts[index.embedder_id] = found.pending;
        for (const message of found.messages)
          problems.push({ part: 'vectors', object: table, message: `${table} (${index.embedder_id}): ${message}`, repair: 'rebuild' });
      } catch (error) {
        problems.push({
          part: 'vectors',
          object: table,
          message: `${table} (${index.embedder_id}) cannot be read: ${describeError(error)}`,
          repair: 'rebuild',
        });
      }
    }
  }
  return { problems, pending, pendingTurns };
}

interface VectorRow {
  n: number | bigint;
  embedding: Buffer;
  a: string;
  b: string;
}

function compareIndex(conn: Connection, index: VectorIndex, target: VectorTarget): { messages: string[]; pending: number } {
  const messages: string[] = [];
  const table = vecTable(target, index);
  const listing = `SELECT ${target.rowColumn} AS n FROM ${target.listed} WHERE index_no = ?`;
  const listedRows = new Set((conn.db.prepare(listing).all(index.no) as { n: number }[]).map((r) => r.n));
  const [a, b] = target.meta;
  const vectors = conn.db.prepare(`SELECT rowid AS n, embedding, ${a} AS a, ${b} AS b FROM ${table}`).all() as VectorRow[];
  const live = conn.db.prepare(target.liveRows).all() as ({ n: number; content: string } & Record<string, unknown>)[];
  const records = new Map(live.map((r) => [r.n, { content: r.content, meta: metaOf(target, r) }]));
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
    const record = records.get(n);
    if (!record) {
      dead.push(n);
      continue;
    }
    if (record.meta[0] !== row.a || record.meta[1] !== row.b) mislabelled.push(n);
    const cache = cached.get(index.embedder_id, contentHash(record.content)) as { vector: Buffer } | undefined;
    if (row.embedding.length !== index.dimensions * 4 || (cache && !close(cache.vector, row.embedding))) changed.push(n);
  }
  const { noun, labelled } = NAMES[target.prefix];
  const lost = [...listedRows].filter((n) => !stored.has(n));
  if (lost.length) messages.push(`${lost.length} ${noun}s are listed as having a vector that is missing (n ${listed(lost)})`);
  if (unlisted.length) messages.push(`${unlisted.length} vectors are not listed (n ${listed(unlisted)})`);
  if (dead.length) messages.push(`${dead.length} vectors belong to no live ${noun} (n ${listed(dead)})`);
  if (mislabelled.length) messages.push(`${mislabelled.length} vectors carry the wrong ${labelled} (n ${listed(mislabelled)})`);
  if (changed.length) messages.push(`${changed.length} vectors differ from the embedding of their ${noun}'s content (n ${listed(changed)})`);
  let pending = 0;
  for (const n of records.keys()) if (!stored.has(n) && !listedRows.has(n)) pending += 1;
  return { messages, pending };
}

/**
 * Two stored float32 vectors agree in direction. Not byte equality: an
 * embedder that is not bit-for-bit deterministic may have refreshed the
 * cache after the vector was stored.
 */
function close(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) return false;
  const zero = (v: Float32Array): boolean => v.every((x) => x === 0);
  const x = fromBlob(a);
  const y = fromBlob(b);
  if (zero(x) || zero(y)) return zero(x) && zero(y);
  const cosine = cosineSimilarity(x, y);
  return Number.isFinite(cosine) && cosine >= MIN_COSINE;
}
