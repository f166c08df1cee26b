/**
 * A purge's patch of the stored snapshots (docs/contract.md §7, "Purge"): each
 * head of chunks at or after the first rewritten event gets the purged records
 * replaced by their erased forms, only the chunks and index chunks holding them
 * rewritten, each once however many heads share it. Backend-free: a backend
 * gives the rows and applies the returned writes in the purge's transaction.
 */
import { CorruptionError } from '../errors.js';
import { compareTuples, lowerBound } from '../records/order.js';
import { STATE_STREAM, type PurgedRecords } from '../log/events.js';
import type { LogEvent, StoredSnapshot } from '../log/log.js';
import { eraseMemoryItem, eraseSession, eraseSkill, eraseTurn } from '../log/redact.js';
import type { OperationEntry } from '../log/operation.js';
import { eventDigest, formatBoundSnapshot, sha256Hex } from './binding.js';
import {
  type ChunkIndex,
  type ChunkKey,
  type ChunkRef,
  chunkKey,
  chunkStream,
  decodeChunk,
  decodeIndexChunk,
  encodeChunk,
  joinChunk,
  SNAPSHOT_CHUNKS_FORMAT,
  SNAPSHOT_COLLECTIONS,
} from './chunks.js';
import type { SnapshotCodec } from './codecs.js';
import { looseChunkDigests, looseHeadIndex, looseIndexDigests, looseJson, type RowKey } from './heads.js';
import { unbindHead } from './restore.js';

/** What {@link patchSnapshots} reads. */
export interface SnapshotPatchInput {
  /** The `state` rows (heads) at or after the first rewritten seq. */
  heads: readonly Pick<StoredSnapshot, 'seq' | 'data'>[];
  /** The stored text of a chunk or index chunk, by digest; undefined when there is no such row. */
  chunk: (sha256: string) => string | undefined;
  /** The records the purge erased, and the operations whose input hash it dropped. */
  purged: SnapshotErasure;
  /** The provider's codec: opens the heads and seals the patched ones. */
  codec: SnapshotCodec;
  /** The log's identity. */
  identity: string;
  /** The event of the `state` stream at a seq as it was before the purge rewrote it: what a stored head is bound to. */
  before: (seq: number) => LogEvent | undefined;
  /** The event at a seq as it is now: what a patched head is bound to. */
  after: (seq: number) => LogEvent | undefined;
  /**
   * The `state` rows before the first rewritten seq, read only when a dropped
   * head leaves rows that may be shared with them (then every index chunk of
   * every head is read through `chunk`).
   */
  olderHeads: () => readonly Pick<StoredSnapshot, 'seq' | 'data'>[];
}

/** What a purge erases from a snapshot: the records it erased, and the operations whose input hash it dropped (by id). */
export interface SnapshotErasure extends PurgedRecords {
  operations?: readonly string[];
}

/** The writes of {@link patchSnapshots}, to apply in the purge's transaction: saves first, then drops. */
export interface SnapshotPatch {
  /** New chunk rows, new index chunk rows, then the patched heads (replacing theirs at the same seq). */
  save: StoredSnapshot[];
  /** Heads dropped and chunk rows no head names any more (old texts of patched chunks and index chunks among them). */
  drop: RowKey[];
  /** How many heads were patched. */
  patched: number;
  /** How many heads were dropped. */
  dropped: number;
}

type Erase = (record: never) => unknown;
const ERASE: Readonly<Record<'sessions' | 'turns' | 'skills' | 'memory' | 'operations', Erase>> = {
  sessions: eraseSession as Erase,
  turns: eraseTurn as Erase,
  skills: eraseSkill as Erase,
  memory: eraseMemoryItem as Erase,
  operations: (({ id, seq }: OperationEntry) => ({ id, seq })) as Erase,
};
type Purgeable = keyof typeof ERASE;

/** Patches every head in `input.heads`; see the module comment. Pure: nothing is written here. */
export function patchSnapshots(input: SnapshotPatchInput): SnapshotPatch {
  const purged = purgedKeys(input.purged);
  /** Old digest → new digest (equal when the row held none of the purged records), for chunks and index chunks. */
  const memo = new Map<string, string>();
  /** New rows by digest, and the new chunks each new index chunk names. */
  const fresh = new Map<string, string>();
  const freshLeaves = new Map<string, string[]>();
  const patchChunk = (seq: number, collection: Purgeable, sha256: string): string => {
    const known = memo.get(sha256);
    if (known !== undefined) return known;
    const ref = { first: [], sha256 };
    const records = decodeChunk(seq, collection, ref, input.chunk(sha256), false) as { id: string }[];
    const { ids } = purged[collection];
    let touched = false;
    // A record parsed from canonical text keeps its sorted keys, so JSON.stringify gives its canonical text;
    // only an erased one (whose new parts are built in another key order) goes through the sorting encoder.
    const texts = records.map((record) => {
      if (!ids.has(record.id)) return JSON.stringify(record);
      touched = true;
      return encodeChunk([ERASE[collection](record as never)]).slice(1, -1);
    });
    const next = touched ? store(joinChunk(texts)) : sha256;
    memo.set(sha256, next);
    return next;
  };
  const store = (text: string): string => {
    const sha256 = sha256Hex(text);
    fresh.set(sha256, text);
    return sha256;
  };
  const patchIndex = (seq: number, collection: Purgeable, sha256: string): string => {
    const known = memo.get(sha256);
    if (known !== undefined) return known;
    const refs = decodeIndexChunk(seq, collection, { first: [], sha256 }, input.chunk(sha256), false);
    const at = positions(refs, purged[collection].keys);
    const leaves: string[] = [];
    const next = refs.map((ref, i) => {
      if (!at.has(i)) return ref;
      const leaf = patchChunk(seq, collection, ref.sha256);
      if (leaf !== ref.sha256) leaves.push(leaf);
      return { first: ref.first, sha256: leaf };
    });
    // Parsed references keep the canonical key order (`first`, `sha256`) and new ones are built in it: JSON.stringify is canonical.
    const digest = leaves.length > 0 ? store(JSON.stringify(next)) : sha256;
    if (digest !== sha256) freshLeaves.set(digest, leaves);
    memo.set(sha256, digest);
    return digest;
  };

  const save: StoredSnapshot[] = [];
  const drop: RowKey[] = [];
  const kept: ChunkIndex[] = [];
  const droppedHeads: Pick<StoredSnapshot, 'seq' | 'data'>[] = [];
  for (const head of input.heads) {
    try {
      // Checked against the log as it was before the purge.
      const opened = unbindHead(head, input.codec.open(head.data), { head: head.seq, identity: () => input.identity, eventAt: input.before }, lightChunkIndex);
      const index = { ...opened.index };
      for (const collection of Object.keys(ERASE) as Purgeable[]) {
        const refs = opened.index[collection];
        const at = positions(refs, purged[collection].keys);
        if (at.size === 0) continue;
        index[collection] = refs.map((ref, i) => (at.has(i) ? { first: ref.first, sha256: patchIndex(opened.seq, collection, ref.sha256) } : ref));
      }
      // The parsed head keeps the canonical text's key order (sorted) and the new references are built in it too,
      // so JSON.stringify gives the canonical text, without canonicalJson's sorting of the references.
      const content = JSON.stringify({ format: SNAPSHOT_CHUNKS_FORMAT, index, seq: opened.seq });
      const binding = { log: input.identity, seq: opened.seq, event: eventDigest(input.after(opened.seq)), sha256: sha256Hex(content) };
      const data = input.codec.seal(formatBoundSnapshot(binding, content));
      kept.push({ seq: opened.seq, index });
      save.push({ stream: STATE_STREAM, seq: head.seq, data });
    } catch {
      // Untrusted, missing a row or not sealable here: dropped.
      drop.push({ stream: STATE_STREAM, seq: head.seq });
      droppedHeads.push(head);
    }
  }
  // The new rows the kept heads name: their new index chunks, and the new chunks those name.
  const keptIndex = new Set<string>();
  for (const head of kept) for (const collection of SNAPSHOT_COLLECTIONS) for (const ref of head.index[collection]) keptIndex.add(ref.sha256);
  const saved = new Set<string>();
  for (const [sha256, leaves] of freshLeaves) {
    if (!keptIndex.has(sha256)) continue;
    saved.add(sha256);
    for (const leaf of leaves) saved.add(leaf);
  }
  const rows: StoredSnapshot[] = [];
  // Chunks before the index chunks that name them, as a head is saved after its rows.
  for (const [sha256, data] of fresh) if (saved.has(sha256) && !freshLeaves.has(sha256)) rows.push({ stream: chunkStream(sha256), seq: 0, data });
  for (const [sha256, data] of fresh) if (saved.has(sha256) && freshLeaves.has(sha256)) rows.push({ stream: chunkStream(sha256), seq: 0, data });
  // A row that changed held a purged record (or named one that did), so no head before the first rewritten seq
  // names it, and every head at or after it was patched to its new text or dropped: its old row goes.
  const gone = new Set<string>();
  for (const [old, next] of memo) if (next !== old && !saved.has(old)) gone.add(old);
  if (droppedHeads.length > 0) for (const sha256 of unshared(droppedHeads, keptIndex, fresh, input)) if (!saved.has(sha256)) gone.add(sha256);
  for (const sha256 of gone) drop.push({ stream: chunkStream(sha256), seq: 0 });
  return { save: [...rows, ...save], drop, patched: save.length, dropped: droppedHeads.length };
}

/**
 * The positions in `refs` of the rows that would hold the records of `keys`
 * (sorted, as {@link keysOf} gives them): for each reference, a binary search
 * of the keys for one in its range, so a purge of thousands of records costs
 * a few comparisons per reference rather than a search of the references per
 * key, in each of a hundred heads.
 */
function positions(refs: readonly ChunkRef[], keys: readonly ChunkKey[]): Set<number> {
  const at = new Set<number>();
  if (keys.length === 0) return at;
  for (let i = 0; i < refs.length; i += 1) {
    const from = lowerBound(keys, refs[i]!.first, compareTuples);
    if (from < keys.length && (i === refs.length - 1 || compareTuples(keys[from]!, refs[i + 1]!.first) < 0)) at.add(i);
  }
  return at;
}

/**
 * The rows (index chunks and chunks) that only the dropped heads name: not
 * the kept heads (whose index chunks are `keptIndex`), nor the heads before
 * the first rewritten seq. Read loosely;
 * a row another head's index chunk might name, when that index chunk cannot
 * be read, is kept (a leftover row, never a missing one).
 */
function unshared(
  dropped: readonly Pick<StoredSnapshot, 'seq' | 'data'>[],
  keptIndex: ReadonlySet<string>,
  fresh: ReadonlyMap<string, string>,
  input: SnapshotPatchInput,
): string[] {
  const text = (sha256: string) => fresh.get(sha256) ?? input.chunk(sha256);
  const indexes = new Set<string>();
  const candidates = new Set<string>();
  for (const head of dropped)
    for (const index of looseChunkDigests(head.data)) {
      indexes.add(index);
      candidates.add(index);
      for (const leaf of looseIndexDigests(text(index))) candidates.add(leaf);
    }
  if (candidates.size === 0) return [];
  const others = new Set(keptIndex);
  for (const head of input.olderHeads()) for (const index of looseChunkDigests(head.data)) others.add(index);
  let complete = true;
  for (const index of [...others]) {
    const body = text(index);
    if (body === undefined) complete = false;
    for (const leaf of looseIndexDigests(body)) others.add(leaf);
  }
  // Without every other index chunk, only the dropped heads' own index chunks are known to be unshared.
  return [...candidates].filter((sha256) => !others.has(sha256) && (complete || indexes.has(sha256)));
}

/**
 * The digests of the rows (index chunks, then the chunks under them)
 * {@link patchSnapshots} will read for `heads`, from their text parsed
 * without any check: what a backend that reads asynchronously fetches first,
 * so the patch itself runs synchronously. The chunks are found through the
 * index chunks `chunk` already gives, so such a backend calls this twice:
 * once for the index chunks, then again, after fetching them, for the chunks.
 */
export function chunksToPatch(
  heads: readonly Pick<StoredSnapshot, 'data'>[],
  purged: SnapshotErasure,
  chunk: (sha256: string) => string | undefined = () => undefined,
): string[] {
  const keys = purgedKeys(purged);
  const out = new Set<string>();
  const within = (refs: unknown, collection: Purgeable, then: (sha256: string) => void): void => {
    if (!Array.isArray(refs)) return;
    for (const i of positions(refs as ChunkRef[], keys[collection].keys)) if (typeof refs[i]?.sha256 === 'string') then(refs[i].sha256);
  };
  for (const head of heads) {
    const index = looseHeadIndex(head.data);
    for (const collection of Object.keys(ERASE) as Purgeable[]) {
      within(index[collection], collection, (sha256) => {
        out.add(sha256);
        within(looseJson(chunk(sha256)), collection, (leaf) => out.add(leaf));
      });
    }
  }
  return [...out];
}

/** The ids and sort keys (in order) of the purged records of each collection. */
function purgedKeys(purged: SnapshotErasure): Record<Purgeable, { ids: Set<string>; keys: ChunkKey[] }> {
  const keysOf = (collection: Purgeable) => {
    const records = collection === 'operations' ? (purged.operations ?? []).map((id) => ({ id })) : purged[collection];
    const keys = records.map((r) => chunkKey(collection, r as unknown as Record<string, unknown>)).sort(compareTuples);
    return { ids: new Set(records.map((r) => r.id)), keys };
  };
  return { sessions: keysOf('sessions'), turns: keysOf('turns'), skills: keysOf('skills'), memory: keysOf('memory'), operations: keysOf('operations') };
}

/**
 * A head of chunks parsed with its shape checked but not each reference's
 * schema: the purge's read of every head at or after the rewrite, where a
 * full schema check of every reference of every head was most of the
 * cost. The text matched its digest (and seal); a loader still checks the
 * patched head in full before it trusts it.
 */
function lightChunkIndex(content: string, seq: number): ChunkIndex {
  const raw = JSON.parse(content) as { format?: unknown; seq?: unknown; index?: Record<string, unknown> };
  const index = raw.index;
  if (raw.format !== SNAPSHOT_CHUNKS_FORMAT || typeof raw.seq !== 'number' || index === null || typeof index !== 'object')
    throw new CorruptionError(STATE_STREAM, seq, 'snapshot head does not match its schema');
  for (const collection of SNAPSHOT_COLLECTIONS)
    if (!Array.isArray(index[collection])) throw new CorruptionError(STATE_STREAM, seq, 'snapshot head does not match its schema');
  return { seq: raw.seq, index: index as ChunkIndex['index'] };
}
