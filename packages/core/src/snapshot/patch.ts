/**
 * A purge's patch of the stored snapshots (docs/contract.md §7, "Purge"):
 * instead of dropping every snapshot at or after the first rewritten event,
 * each head of chunks (format 5) there gets the purged records replaced by
 * their erased forms, exactly what a fold of the rewritten log holds at its
 * seq. Only the chunks holding a purged record change: each is found by
 * binary search on its head's first keys, patched once however many heads
 * share it, stored under its new digest, and its old row dropped. Every head
 * is bound again (the event at its seq may have been rewritten) and sealed
 * with the provider's codec. A head that cannot be trusted or sealed, and
 * every head of an older format, is dropped as before. Backend-free: a
 * backend gives the rows and applies the returned writes in the purge's own
 * transaction.
 */
import { CorruptionError } from '../errors.js';
import { STATE_STREAM } from '../log/events.js';
import type { PurgedRecords } from '../log/events.js';
import type { LogEvent, StoredSnapshot } from '../log/log.js';
import { eraseMemoryItem, eraseSession, eraseSkill, eraseTurn } from '../log/redact.js';
import type { MemoryItem, Session, Skill, Turn } from '../records/records.js';
import { checkBinding, eventDigest, formatBoundSnapshot, parseBoundSnapshot, sha256Hex } from './binding.js';
import type { ChunkIndex, ChunkKey, SnapshotCollection } from './chunks.js';
import {
  chunkDigests,
  chunkHolding,
  chunkKey,
  chunkStream,
  decodeChunk,
  encodeChunk,
  isChunkIndex,
  SNAPSHOT_CHUNKS_FORMAT,
  SNAPSHOT_COLLECTIONS,
} from './chunks.js';
import type { SnapshotCodec } from './codecs.js';
import { looseChunkDigests } from './heads.js';
import type { RowKey } from './heads.js';

/** What {@link patchSnapshots} reads. */
export interface SnapshotPatchInput {
  /** The `state` rows (heads) at or after the first rewritten seq. */
  heads: readonly Pick<StoredSnapshot, 'seq' | 'data'>[];
  /** The stored text of a chunk, by digest; undefined when there is no such row. */
  chunk: (sha256: string) => string | undefined;
  /** The records the purge erased. */
  purged: PurgedRecords;
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
   * head leaves chunks that may be shared with them.
   */
  olderHeads: () => readonly Pick<StoredSnapshot, 'seq' | 'data'>[];
}

/** The writes of {@link patchSnapshots}, to apply in the purge's transaction: saves first, then drops. */
export interface SnapshotPatch {
  /** New chunk rows, then the patched heads (replacing theirs at the same seq). */
  save: StoredSnapshot[];
  /** Heads dropped and chunk rows no head names any more (old texts of patched chunks among them). */
  drop: RowKey[];
  /** How many heads were patched. */
  patched: number;
  /** How many heads were dropped. */
  dropped: number;
}

type Erase = (record: never) => unknown;
const ERASE: Readonly<Record<'sessions' | 'turns' | 'skills' | 'memory', Erase>> = {
  sessions: eraseSession as Erase,
  turns: eraseTurn as Erase,
  skills: eraseSkill as Erase,
  memory: eraseMemoryItem as Erase,
};
type Purgeable = keyof typeof ERASE;

/** Patches every head in `input.heads`; see the module comment. Pure: nothing is written here. */
export function patchSnapshots(input: SnapshotPatchInput): SnapshotPatch {
  const purged: Record<Purgeable, { ids: Set<string>; keys: ChunkKey[] }> = {
    sessions: keysOf('sessions', input.purged.sessions),
    turns: keysOf('turns', input.purged.turns),
    skills: keysOf('skills', input.purged.skills),
    memory: keysOf('memory', input.purged.memory),
  };
  /** Old digest → new digest (equal when the chunk held none of the purged records). */
  const memo = new Map<string, string>();
  const fresh = new Map<string, string>();
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
    let next = sha256;
    if (touched) {
      const text = `[${texts.join(',')}]`;
      next = sha256Hex(text);
      if (next !== sha256) fresh.set(next, text);
    }
    memo.set(sha256, next);
    return next;
  };

  const save: StoredSnapshot[] = [];
  const drop: RowKey[] = [];
  const oldRefs = new Set<string>();
  const keptRefs = new Set<string>();
  let dropped = 0;
  for (const head of input.heads) {
    let next: { data: string; index: ChunkIndex } | undefined;
    try {
      const index = openHead(head, input);
      for (const sha256 of chunkDigests(index)) oldRefs.add(sha256);
      const chunks = { ...index.chunks };
      for (const collection of Object.keys(ERASE) as Purgeable[]) {
        const refs = index.chunks[collection];
        const at = new Set<number>();
        for (const key of purged[collection].keys) {
          const i = chunkHolding(refs, key);
          if (i >= 0) at.add(i);
        }
        if (at.size === 0) continue;
        chunks[collection] = refs.map((ref, i) => (at.has(i) ? { first: ref.first, sha256: patchChunk(index.seq, collection, ref.sha256) } : ref));
      }
      // The parsed head keeps the canonical text's key order (sorted) and the new references are built in it too,
      // so JSON.stringify gives the canonical text, without canonicalJson's sorting of thousands of references.
      const content = JSON.stringify({ chunks, format: SNAPSHOT_CHUNKS_FORMAT, seq: index.seq });
      const binding = { log: input.identity, seq: index.seq, event: eventDigest(input.after(index.seq)), sha256: sha256Hex(content) };
      next = { data: input.codec.seal(formatBoundSnapshot(binding, content)), index: { seq: index.seq, chunks } };
    } catch {
      // Untrusted, of an older format, missing a chunk or not sealable here: dropped, as every snapshot was before chunks.
      for (const sha256 of looseChunkDigests(head.data)) oldRefs.add(sha256);
      drop.push({ stream: STATE_STREAM, seq: head.seq });
      dropped += 1;
      continue;
    }
    for (const sha256 of chunkDigests(next.index)) keptRefs.add(sha256);
    save.push({ stream: STATE_STREAM, seq: head.seq, data: next.data });
  }
  const chunkRows: StoredSnapshot[] = [];
  for (const [sha256, data] of fresh) if (keptRefs.has(sha256)) chunkRows.push({ stream: chunkStream(sha256), seq: 0, data });
  // A chunk that changed held a purged record, so no head before the first rewritten seq names it;
  // one only a dropped head named may be shared with those older heads.
  const orphans = [...oldRefs].filter((sha256) => !keptRefs.has(sha256));
  const unsure = orphans.filter((sha256) => memo.get(sha256) === undefined || memo.get(sha256) === sha256);
  const older = new Set<string>();
  if (unsure.length > 0) for (const head of input.olderHeads()) for (const sha256 of looseChunkDigests(head.data)) older.add(sha256);
  for (const sha256 of orphans) if (!older.has(sha256)) drop.push({ stream: chunkStream(sha256), seq: 0 });
  return { save: [...chunkRows, ...save], drop, patched: save.length, dropped };
}

/**
 * The digests of the chunks {@link patchSnapshots} will read for `heads`,
 * from their text parsed without any check: what a backend that reads
 * asynchronously fetches first, so the patch itself runs synchronously.
 */
export function chunksToPatch(heads: readonly Pick<StoredSnapshot, 'data'>[], purged: PurgedRecords): string[] {
  const keys = {
    sessions: keysOf('sessions', purged.sessions).keys,
    turns: keysOf('turns', purged.turns).keys,
    skills: keysOf('skills', purged.skills).keys,
    memory: keysOf('memory', purged.memory).keys,
  };
  const out = new Set<string>();
  for (const head of heads) {
    let index: Partial<ChunkIndex['chunks']>;
    try {
      index = (JSON.parse(head.data.slice(head.data.indexOf('\n') + 1)) as { chunks?: Partial<ChunkIndex['chunks']> }).chunks ?? {};
    } catch {
      continue;
    }
    for (const collection of Object.keys(ERASE) as Purgeable[]) {
      const refs = index[collection];
      if (!Array.isArray(refs)) continue;
      for (const key of keys[collection]) {
        const i = chunkHolding(refs, key);
        if (i >= 0 && typeof refs[i]?.sha256 === 'string') out.add(refs[i].sha256);
      }
    }
  }
  return [...out];
}

/** The ids and sort keys of the purged records of one collection. */
function keysOf(collection: SnapshotCollection, records: readonly (Session | Turn | Skill | MemoryItem)[]): { ids: Set<string>; keys: ChunkKey[] } {
  return { ids: new Set(records.map((r) => r.id)), keys: records.map((r) => chunkKey(collection, r as unknown as Record<string, unknown>)) };
}

/** Opens and checks a stored head against the log as it was before the purge; throws unless it is a trusted head of chunks. */
function openHead(stored: Pick<StoredSnapshot, 'seq' | 'data'>, input: SnapshotPatchInput): ChunkIndex {
  const { binding, content } = parseBoundSnapshot(input.codec.open(stored.data), stored.seq);
  if (binding.seq !== stored.seq) throw new CorruptionError(STATE_STREAM, stored.seq, `its binding names seq ${binding.seq}`);
  checkBinding(input.identity, binding, input.before(stored.seq));
  if (!isChunkIndex(content)) throw new CorruptionError(STATE_STREAM, stored.seq, 'not a snapshot of chunks');
  const index = lightChunkIndex(content, stored.seq);
  if (index.seq !== stored.seq) throw new CorruptionError(STATE_STREAM, stored.seq, `inner seq ${index.seq} disagrees with stored seq ${stored.seq}`);
  return index;
}

/**
 * A head of chunks parsed with its shape checked but not each reference's
 * schema: the purge's read of every head at or after the rewrite, where a
 * full schema check of thousands of references per head was most of the
 * cost. The text matched its digest (and seal); a loader still checks the
 * patched head in full before it trusts it.
 */
function lightChunkIndex(content: string, seq: number): ChunkIndex {
  const raw = JSON.parse(content) as { format?: unknown; seq?: unknown; chunks?: Record<string, unknown> };
  const chunks = raw.chunks;
  if (raw.format !== SNAPSHOT_CHUNKS_FORMAT || typeof raw.seq !== 'number' || chunks === null || typeof chunks !== 'object')
    throw new CorruptionError(STATE_STREAM, seq, 'snapshot head does not match its schema');
  for (const collection of SNAPSHOT_COLLECTIONS)
    if (!Array.isArray(chunks[collection])) throw new CorruptionError(STATE_STREAM, seq, 'snapshot head does not match its schema');
  return { seq: raw.seq, chunks: chunks as ChunkIndex['chunks'] };
}
