/**
 * Snapshots stored in chunks (format 5): what a view reads of them and what
 * a second snapshot stores.
 */
import { describe, expect, it } from 'vitest';
import type { Log } from '../src/index.js';
import { createInMemoryProvider, encodeSnapshot, hmacCodec, InMemoryLog, ManualClock, plainCodec, seededEntropy, STATE_STREAM } from '../src/index.js';
import type { ChunkIndex, ChunkRef, SnapshotCollection } from '../src/snapshot/chunks.js';
import { CHUNK_STREAM_PREFIX, chunkStream, loadSnapshot, parseBoundSnapshot } from '../src/backend.js';
import { decodeChunkIndex } from '../src/snapshot/chunks.js';
import type { SnapshotCodec } from '../src/index.js';

/** The head of chunks stored at `seq`. */
async function headAt(log: Log, codec: SnapshotCodec, seq: number): Promise<ChunkIndex> {
  const row = await log.latestSnapshot(STATE_STREAM, { upToSeq: seq });
  return decodeChunkIndex(parseBoundSnapshot(codec.open(row!.data), seq).content, seq);
}

/** The chunk references of `collection` in `head`, through its index chunks read from `log`. */
async function leafRefs(log: Log, head: ChunkIndex, collection: SnapshotCollection): Promise<ChunkRef[]> {
  const out: ChunkRef[] = [];
  for (const ref of head.index[collection]) out.push(...(JSON.parse((await log.latestSnapshot(chunkStream(ref.sha256)))!.data) as ChunkRef[]));
  return out;
}

/** The streams a reader of `collections` in `head` reads, in order: their index chunks, then their chunks. */
async function chunkStreams(log: Log, head: ChunkIndex, ...collections: SnapshotCollection[]): Promise<string[]> {
  const index = collections.flatMap((collection) => head.index[collection].map((ref) => chunkStream(ref.sha256)));
  const leaves: string[] = [];
  for (const collection of collections) for (const ref of await leafRefs(log, head, collection)) leaves.push(chunkStream(ref.sha256));
  return [...index, ...leaves];
}

/** `log`, recording the stream of every snapshot row read. */
function recording(log: Log, streams: string[]): Log {
  return {
    identity: () => log.identity(),
    append: (input) => log.append(input),
    read: (query) => log.read(query),
    head: (stream) => log.head(stream),
    saveSnapshot: (snapshot) => log.saveSnapshot(snapshot),
    latestSnapshot: (stream, options) => {
      streams.push(stream);
      return log.latestSnapshot(stream, options);
    },
  };
}

async function populated(codec = hmacCodec('parts')) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const log = new InMemoryLog({ identity: 'parts', clock });
  const streams: string[] = [];
  const p = createInMemoryProvider({ log: recording(log, streams), clock, entropy: seededEntropy(3), snapshotCodec: codec });
  const s = await p.sessions.create({ title: 'chat' });
  await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'before the snapshot' });
  const item = await p.memory.write({ key: 'plan', content: 'ship on friday' });
  await p.skills.upsert({ slug: 'deploy', body: 'v1' });
  const saved = await p.snapshot();
  const snapshot = await p.saveSnapshot();
  await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', content: 'after the snapshot' });
  await p.memory.update(item.id, { content: 'ship on monday' });
  await p.skills.upsert({ slug: 'deploy', body: 'v2' });
  return { p, log, streams, codec, session: s, item, snapshot, saved };
}

describe('snapshots stored in chunks', () => {
  it('store a small sealed head naming content-addressed chunks, which load back to the whole projection', async () => {
    const { log, codec, snapshot, saved } = await populated();
    expect(snapshot.data.length).toBeLessThan(2_000);
    expect(snapshot.data).not.toContain('ship on friday');
    const head = await headAt(log, codec, snapshot.seq);
    for (const stream of await chunkStreams(log, head, 'sessions', 'turns', 'skills', 'memory'))
      expect((await log.latestSnapshot(stream))?.seq, stream).toBe(0);
    const loaded = await loadSnapshot(log, codec, snapshot.seq);
    expect(encodeSnapshot(loaded.snapshot!)).toBe(encodeSnapshot(saved));
  });

  it('store a chunk once: a later snapshot writes only the chunks that changed', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const log = new InMemoryLog({ identity: 'dedup', clock });
    const saved: string[] = [];
    const watched: Log = {
      ...recording(log, []),
      saveSnapshot: (row) => {
        saved.push(row.stream);
        return log.saveSnapshot(row);
      },
    };
    const p = createInMemoryProvider({ log: watched, clock, entropy: seededEntropy(5) });
    for (let i = 0; i < 600; i += 1) await p.memory.write({ content: `item ${i}` });
    const first = await p.saveSnapshot();
    const chunks = saved.filter((s) => s.startsWith(CHUNK_STREAM_PREFIX));
    const memory = await leafRefs(log, await headAt(log, plainCodec, first.seq), 'memory');
    // About one chunk per CHUNK_BOUNDARY records, cut where the content says.
    expect(memory.length).toBeGreaterThan(3);
    expect(chunks.length).toBe(new Set(chunks).size);
    saved.length = 0;
    const item = await p.memory.write({ content: 'one more' });
    await p.memory.write({ content: 'and another' });
    const second = await p.saveSnapshot();
    const head = await headAt(log, plainCodec, second.seq);
    const next = await leafRefs(log, head, 'memory');
    const written = saved.filter((s) => s.startsWith(CHUNK_STREAM_PREFIX));
    // Two new items touch at most two chunks and the index chunks above them (and the empty collections' none); the rest are shared.
    const index = new Set(head.index.memory.map((ref) => chunkStream(ref.sha256)));
    const leaves = written.filter((stream) => !index.has(stream));
    expect(leaves.length).toBeLessThanOrEqual(2);
    expect(written.length - leaves.length).toBeLessThanOrEqual(leaves.length);
    const before = new Set(memory.map((ref) => ref.sha256));
    expect(next.filter((ref) => !before.has(ref.sha256)).length).toBe(leaves.length);
    expect(saved.at(-1)).toBe(STATE_STREAM);
    // The same state snapshotted again writes its head only.
    saved.length = 0;
    await p.saveSnapshot();
    expect(saved).toEqual([STATE_STREAM]);
    expect((await (await p.at({ seq: second.seq })).memory.get(item.id)).content).toBe('one more');
  });

  it('let a view read only the parts its reads need, and fold the later events into each', async () => {
    const { p, log, streams, snapshot, session, item } = await populated();
    const head = await log.head(STATE_STREAM);
    const view = await p.at({ seq: head });
    streams.length = 0;
    const chunks = await headAt(log, hmacCodec('parts'), snapshot.seq);
    streams.length = 0;
    expect((await view.memory.get(item.id)).content).toBe('ship on monday');
    expect(streams.filter((s) => s !== STATE_STREAM)).toEqual(await chunkStreams(log, chunks, 'memory'));
    streams.length = 0;
    expect((await view.sessions.turns(session.id)).map((t) => t.content)).toEqual(['before the snapshot', 'after the snapshot']);
    expect(streams).toEqual(await chunkStreams(log, chunks, 'sessions', 'turns'));
    streams.length = 0;
    // Concurrent first reads restore a part once and agree.
    const [a, b] = await Promise.all([view.skills.get('deploy'), view.skills.get('deploy')]);
    expect([a.body, b.body]).toEqual(['v2', 'v2']);
    expect(streams).toEqual(await chunkStreams(log, chunks, 'skills'));
    expect(encodeSnapshot(await view.capture())).toBe(encodeSnapshot(await p.snapshot()));
    expect(snapshot.seq).toBeLessThan(head);
  });
});
