/**
 * A purge's patch of snapshots with two-level heads (format 5) on the
 * in-memory backend, with enough records that a collection spans several
 * index chunks: a one-record purge rewrites one chunk, the one index chunk
 * above it and a small head per snapshot, drops the old rows, and every
 * patched snapshot still loads to the replay of the rewritten log.
 */
import { describe, expect, it } from 'vitest';
import type { ChunkRef } from '../src/snapshot/chunks.js';
import { CHUNK_STREAM_PREFIX, chunkStream, foldLog, loadSnapshot, parseBoundSnapshot } from '@agentstate/core/backend';
import type { ChunkIndex } from '../src/snapshot/chunks.js';
import { decodeChunkIndex } from '../src/snapshot/chunks.js';
import type { Log, StoredSnapshot } from '@agentstate/core';
import { createInMemoryProvider, encodeSnapshot, hmacCodec, InMemoryLog, ManualClock, replay, seededEntropy, STATE_STREAM } from '@agentstate/core';

const codec = hmacCodec('patch');

/** Records every snapshot row `log` saves (the log itself stays: a purge rewrites an `InMemoryLog` in place). */
function recordSaves(log: InMemoryLog, saved: StoredSnapshot[]): void {
  const save = log.saveSnapshot.bind(log);
  log.saveSnapshot = (row) => {
    saved.push(row);
    return save(row);
  };
}

async function headAt(log: Log, seq: number): Promise<ChunkIndex> {
  const row = await log.latestSnapshot(STATE_STREAM, { upToSeq: seq });
  return decodeChunkIndex(parseBoundSnapshot(codec.open(row!.data), seq).content, seq);
}

async function leafRefs(log: Log, head: ChunkIndex): Promise<ChunkRef[]> {
  const out: ChunkRef[] = [];
  for (const ref of head.index.memory) out.push(...(JSON.parse((await log.latestSnapshot(chunkStream(ref.sha256)))!.data) as ChunkRef[]));
  return out;
}

describe('a purge with two-level snapshot heads', () => {
  it('rewrites one chunk, one index chunk and a small head per snapshot, and every snapshot still loads to the replay', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const log = new InMemoryLog({ identity: 'patch', clock });
    const saved: StoredSnapshot[] = [];
    recordSaves(log, saved);
    const p = createInMemoryProvider({ log, clock, entropy: seededEntropy(3), snapshotCodec: codec });
    // About 95 chunks of memory: several index chunks (about 64 references each; five with this seed).
    const ids: string[] = [];
    for (let i = 0; i < 6_000; i += 1) ids.push((await p.memory.write({ content: `note ${i}` })).id);
    const secret = await p.memory.write({ content: 'the vault code is 731' });
    const snapshots = [await p.saveSnapshot()];
    for (let n = 0; n < 2; n += 1) {
      for (let i = 0; i < 50; i += 1) await p.memory.update(ids[i * 97]!, { content: `note ${i} v${n}` });
      snapshots.push(await p.saveSnapshot());
    }
    for (const s of snapshots) expect(s.data.length, 'a head names index chunks only').toBeLessThan(2_000);
    const head = await headAt(log, snapshots[0]!.seq);
    expect(head.index.memory.length).toBeGreaterThan(1);
    const oldRows = new Set<string>();
    for (const s of snapshots) {
      const h = await headAt(log, s.seq);
      for (const ref of h.index.memory) oldRows.add(chunkStream(ref.sha256));
      for (const ref of await leafRefs(log, h)) oldRows.add(chunkStream(ref.sha256));
    }

    saved.length = 0;
    await p.purge({ id: secret.id, reason: 'test' });
    const chunks = saved.filter((row) => row.stream.startsWith(CHUNK_STREAM_PREFIX));
    const heads = saved.filter((row) => row.stream === STATE_STREAM);
    // The secret never changed, so its chunk is shared by the three snapshots: one new text. The index chunks above it
    // differ (items under them were updated between snapshots): one new text per snapshot.
    const index = new Set(
      heads.flatMap((row) => Object.values(decodeChunkIndex(parseBoundSnapshot(codec.open(row.data), row.seq).content, row.seq).index.memory)),
    );
    const newIndex = chunks.filter((row) => [...index].some((ref) => chunkStream(ref.sha256) === row.stream));
    expect([chunks.length - newIndex.length, newIndex.length]).toEqual([1, snapshots.length]);
    expect(heads.map((row) => row.seq)).toEqual(snapshots.map((s) => s.seq));
    for (const row of heads) expect(row.data.length).toBeLessThan(2_000);
    // The old texts are gone; every other row is still shared.
    const dropped: string[] = [];
    for (const stream of oldRows) if ((await log.latestSnapshot(stream)) === undefined) dropped.push(stream);
    expect(dropped.length).toBe(chunks.length);
    for (const stream of dropped) expect(chunks.map((row) => row.stream)).not.toContain(stream);

    // Each patched snapshot loads, holds no trace of the text, and equals the replay of the rewritten log at its seq.
    for (const s of snapshots) {
      const loaded = await loadSnapshot(log, codec, s.seq);
      expect([loaded.snapshot?.seq, loaded.skipped]).toEqual([s.seq, []]);
      expect(encodeSnapshot(loaded.snapshot!)).not.toContain('vault code');
    }
    const fold = await foldLog(log, { snapshotCodec: codec });
    expect(fold.skipped).toEqual([]);
    expect(encodeSnapshot(fold.state.capture())).toBe(encodeSnapshot(await (await replay(log, { fromScratch: true })).snapshot()));
  });

  it('drops the heads it cannot open with every index chunk and chunk only they name, and keeps the rows an older head shares', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const log = new InMemoryLog({ identity: 'patch', clock });
    const p = createInMemoryProvider({ log, clock, entropy: seededEntropy(3), snapshotCodec: codec });
    for (let i = 0; i < 300; i += 1) await p.memory.write({ content: `note ${i}` });
    // Before the secret: untouched by the purge, and sharing most of its rows with the heads after it.
    const older = await p.saveSnapshot();
    const secret = await p.memory.write({ content: 'the vault code is 731' });
    const snapshots = [await p.saveSnapshot()];
    await p.memory.write({ content: 'one more' });
    snapshots.push(await p.saveSnapshot());
    const rows = new Set<string>();
    for (const s of snapshots) {
      const h = await headAt(log, s.seq);
      for (const ref of h.index.memory) rows.add(chunkStream(ref.sha256));
      for (const ref of await leafRefs(log, h)) rows.add(chunkStream(ref.sha256));
    }
    const kept = await headAt(log, older.seq);
    for (const ref of [...kept.index.memory, ...(await leafRefs(log, kept))]) rows.delete(chunkStream(ref.sha256));
    expect(rows.size).toBeGreaterThan(0);
    // A provider with another key cannot open (nor patch) these heads: its purge drops them and every row they name.
    const other = await replay(log, { snapshotCodec: hmacCodec('another key'), clock });
    await other.purge({ id: secret.id, reason: 'test' });
    for (const s of snapshots) expect((await log.latestSnapshot(STATE_STREAM, { upToSeq: s.seq }))?.seq).toBe(older.seq);
    for (const stream of rows) expect(await log.latestSnapshot(stream), stream).toBeUndefined();
    // The older head keeps every row it names, shared ones included.
    const loaded = await loadSnapshot(log, codec, older.seq);
    expect([loaded.snapshot?.seq, loaded.skipped]).toEqual([older.seq, []]);
  });
});
