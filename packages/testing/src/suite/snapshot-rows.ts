/**
 * The stored snapshot rows a log holds, read through the `Log` interface alone: every `state` head
 * and every row it names (its index chunks and chunks). What erasure checks search for text. And
 * snapshots stored as versions before chunks stored them, which today's loaders skip.
 */
import type { Log, Snapshot, SnapshotCodec, StoredSnapshot } from '@agentstate/core';
import { canonicalJson, encodeSnapshot, plainCodec, STATE_STREAM } from '@agentstate/core';
import { chunkStream, formatBoundSnapshot, looseIndexDigests, sha256Hex, snapshotBinding, storedHeadRows } from '@agentstate/core/backend';

/** Every stored head of the `state` stream, newest first. */
export async function storedHeads(log: Log): Promise<StoredSnapshot[]> {
  const heads: StoredSnapshot[] = [];
  for (let upToSeq = Number.MAX_SAFE_INTEGER; upToSeq >= 0; ) {
    const head = await log.latestSnapshot(STATE_STREAM, { upToSeq });
    if (!head) break;
    heads.push(head);
    upToSeq = head.seq - 1;
  }
  return heads;
}

/** Every stored head and every row the heads name, each once (rows named but missing left out). */
export async function storedSnapshotRows(log: Log): Promise<StoredSnapshot[]> {
  const rows = new Map<string, StoredSnapshot>();
  for (const head of await storedHeads(log)) {
    for (const row of [head, ...(await rowsNow(log, await storedHeadRows(log, head)))]) rows.set(`${row.seq} ${row.stream}`, row);
  }
  return [...rows.values()];
}

/** The rows stored now under each of `keys` (a row deleted since is left out). */
export async function rowsNow(log: Log, keys: readonly Pick<StoredSnapshot, 'stream' | 'seq'>[]): Promise<StoredSnapshot[]> {
  const out: StoredSnapshot[] = [];
  for (const key of keys) {
    const row = await log.latestSnapshot(key.stream, { upToSeq: key.seq });
    if (row?.seq === key.seq) out.push(row);
  }
  return out;
}

/** The chunk rows a stored head of chunks names for `collection` through its index chunks, read without checking them. */
export async function chunkRowsOf(log: Log, head: Pick<StoredSnapshot, 'data'>, collection: string): Promise<StoredSnapshot[]> {
  const content = head.data.slice(head.data.indexOf('\n') + 1);
  const index = (JSON.parse(content) as { index: Record<string, { sha256: string }[]> }).index;
  const out: StoredSnapshot[] = [];
  const refs = (index[collection] ?? []).map((ref) => ({ stream: chunkStream(ref.sha256), seq: 0 }));
  for (const row of await rowsNow(log, refs)) for (const sha256 of looseIndexDigests(row.data)) out.push({ stream: chunkStream(sha256), seq: 0, data: '' });
  return out;
}

/** The first stored row the head at `seq` names (a chunk or an index chunk) whose text holds `text`. */
export async function namedRowHolding(log: Log, seq: number, text: string): Promise<StoredSnapshot | undefined> {
  const head = await log.latestSnapshot(STATE_STREAM, { upToSeq: seq });
  if (head?.seq !== seq) return undefined;
  for (const row of await rowsNow(log, await storedHeadRows(log, head))) if (row.data.includes(text)) return row;
  return undefined;
}

/** The stream of the memory part of a head of parts (format 4), at the head's seq: the one part {@link storeEarlierFormat} stores. */
export const FORMAT_4_MEMORY_PART = `${STATE_STREAM}#memory`;

/**
 * Stores `snapshot` at its seq as a version before chunks did: a head of parts (format 4) with its
 * memory part, or whole (format 3, the canonical text), bound to `log` or, as versions before
 * bindings stored it, not.
 */
export async function storeEarlierFormat(
  log: Log,
  snapshot: Snapshot,
  format: 'parts' | 'whole' | 'unbound',
  codec: SnapshotCodec = plainCodec,
): Promise<void> {
  const { seq } = snapshot;
  let content = encodeSnapshot(snapshot);
  if (format === 'unbound') return log.saveSnapshot({ stream: STATE_STREAM, seq, data: codec.seal(content) });
  if (format === 'parts') {
    const memory = canonicalJson({ memory: snapshot.memory });
    await log.saveSnapshot({ stream: FORMAT_4_MEMORY_PART, seq, data: memory });
    content = canonicalJson({ format: 'agentstate.snapshot/4', parts: { memory: sha256Hex(memory) }, seq });
  }
  await log.saveSnapshot({ stream: STATE_STREAM, seq, data: codec.seal(formatBoundSnapshot(await snapshotBinding(log, seq, content), content)) });
}
