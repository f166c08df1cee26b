import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CorruptionError,
  createInMemoryProvider,
  decodeSnapshot,
  ed25519Codec,
  encodeSnapshot,
  hmacCodec,
  ManualClock,
  InMemoryLog,
  plainCodec,
  seededEntropy,
  SnapshotSealError,
} from '../src/index.js';
import { chunkStream, formatBoundSnapshot, loadSnapshot, parseBoundSnapshot, snapshotBinding } from '../src/backend.js';
import { decodeChunkIndex, encodeSnapshotChunks } from '../src/snapshot/chunks.js';
import type { Log } from '../src/index.js';

async function sample() {
  const clock = new ManualClock(1_800_000_000_000);
  const p = createInMemoryProvider({ clock, entropy: seededEntropy(9) });
  const s = await p.sessions.create({ title: 'a' });
  await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hello' });
  await p.skills.upsert({ slug: 'k', tags: ['x'] });
  await p.memory.write({ content: 'fact one' });
  return p;
}

describe('snapshots', () => {
  it('encode deterministically and decode to the same bytes', async () => {
    const p = await sample();
    const snap = await p.snapshot();
    const text = encodeSnapshot(snap);
    expect(encodeSnapshot(decodeSnapshot(text, snap.seq))).toBe(text);
    const shuffled = { ...snap, sessions: [...snap.sessions].reverse(), memory: [...snap.memory].reverse() };
    expect(encodeSnapshot(shuffled)).toBe(text);
  });

  it('refuse text that is not a snapshot', () => {
    expect(() => decodeSnapshot('{', 3)).toThrow(CorruptionError);
    expect(() => decodeSnapshot('{"format":"other"}', 3)).toThrow(CorruptionError);
  });

  it('seal and open with HMAC and Ed25519, refusing tampering', async () => {
    const text = encodeSnapshot(await (await sample()).snapshot());
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    for (const codec of [hmacCodec('secret'), ed25519Codec({ privateKey, publicKey })]) {
      const sealed = codec.seal(text);
      expect(codec.open(sealed)).toBe(text);
      const tampered = sealed.slice(0, -3) + (sealed.endsWith('0') ? '1' : '0') + sealed.slice(-2);
      expect(() => codec.open(tampered)).toThrow(SnapshotSealError);
      expect(() => codec.open(text)).toThrow(SnapshotSealError);
    }
    expect(() => hmacCodec('other').open(hmacCodec('secret').seal(text))).toThrow(SnapshotSealError);
    expect(() => ed25519Codec({ publicKey }).seal(text)).toThrow(SnapshotSealError);
  });

  it('are skipped when tampered, undecodable, mis-numbered or beyond the head', async () => {
    const codec = hmacCodec('k');
    const log = new InMemoryLog();
    const p = createInMemoryProvider({ log, snapshotCodec: codec });
    await p.memory.write({ content: 'one' });
    const good = await p.saveSnapshot();
    await p.memory.write({ content: 'two' });
    await p.memory.write({ content: 'three' });
    const second = await p.saveSnapshot();
    // The chunk holding 'three' (chunks are not shared with the first snapshot's, which held no 'three').
    const head = decodeChunkIndex(parseBoundSnapshot(codec.open(second.data), second.seq).content, second.seq);
    const index = JSON.parse((await log.latestSnapshot(chunkStream(head.index.memory.at(-1)!.sha256)))!.data) as { sha256: string }[];
    const part = await log.latestSnapshot(chunkStream(index.at(-1)!.sha256));
    await log.saveSnapshot({ ...part!, data: part!.data.replace('three', 'thrEe') });
    await log.saveSnapshot({ stream: 'state', seq: 2, data: codec.seal('not json') });
    const loaded = await loadSnapshot(log, codec, 3);
    expect(loaded.snapshot?.seq).toBe(good.seq);
    expect(loaded.skipped.map((s) => s.seq)).toEqual([3, 2]);
    const misnumbered = encodeSnapshotChunks({
      seq: 2,
      sessions: [],
      turns: [],
      skills: [],
      memory: [],
      operations: [],
      checkpoints: [],
      checkpointWrites: [],
    }).head;
    await log.saveSnapshot({ stream: 'state', seq: 1, data: codec.seal(formatBoundSnapshot(await snapshotBinding(log, 1, misnumbered), misnumbered)) });
    const none = await loadSnapshot(log, codec, 3);
    expect(none.snapshot).toBeUndefined();
    expect(none.skipped.at(-1)).toEqual({ seq: 1, reason: expect.stringContaining('inner seq 2 disagrees with stored seq 1'), damaged: true });
  });

  it('name a sealed snapshot read without its key as sealed, and one read with another codec as such', async () => {
    const codec = hmacCodec('k');
    const log = new InMemoryLog();
    const p = createInMemoryProvider({ log, snapshotCodec: codec });
    await p.memory.write({ content: 'one' });
    await p.saveSnapshot();
    const plain = await loadSnapshot(log, plainCodec, 1);
    expect(plain.snapshot).toBeUndefined();
    expect(plain.skipped).toEqual([
      { seq: 1, reason: 'sealed with hmac-sha256, and cannot be verified without its key', damaged: false, sealedWith: 'hmac-sha256' },
    ]);
    const { publicKey } = generateKeyPairSync('ed25519');
    expect((await loadSnapshot(log, ed25519Codec({ publicKey }), 1)).skipped).toEqual([
      { seq: 1, reason: 'sealed with hmac-sha256, not ed25519', damaged: false },
    ]);
    expect((await loadSnapshot(log, hmacCodec('other'), 1)).skipped).toEqual([
      { seq: 1, reason: expect.stringMatching(/HMAC mismatch: sealed with another key/), damaged: true },
    ]);
    await log.saveSnapshot({ stream: 'state', seq: 1, data: (await createInMemoryProvider({ log: new InMemoryLog() }).saveSnapshot()).data });
    expect((await loadSnapshot(log, codec, 1)).skipped).toEqual([
      { seq: 1, reason: 'not sealed, but snapshots must be sealed with hmac-sha256 here', damaged: false },
    ]);
    await p.saveSnapshot();
    expect((await loadSnapshot(log, codec, 1)).snapshot?.seq).toBe(1);
  });

  it('are bound to the identity of their log, which an InMemoryLog takes as an option or draws at random', async () => {
    expect(await new InMemoryLog({ identity: 'fixed' }).identity()).toBe('fixed');
    expect(await new InMemoryLog().identity()).toMatch(/^[0-9a-f]{32}$/);
    expect(await new InMemoryLog().identity()).not.toBe(await new InMemoryLog().identity());
    expect(() => new InMemoryLog({ identity: '' })).toThrow(/identity/);
    // With a fixed identity, the same calls store byte-identical snapshots.
    const stored = async () => {
      const p = createInMemoryProvider({
        log: new InMemoryLog({ identity: 'fixed', clock: new ManualClock(1_800_000_000_000) }),
        clock: new ManualClock(1_800_000_000_000),
        entropy: seededEntropy(3),
      });
      await p.memory.write({ content: 'same' });
      return (await p.saveSnapshot()).data;
    };
    expect(await stored()).toBe(await stored());
  });

  it('are saved automatically every k mutations', async () => {
    const log = new InMemoryLog();
    const p = createInMemoryProvider({ log, snapshotEvery: 2 });
    for (let i = 0; i < 5; i += 1) await p.memory.write({ content: `m${i}` });
    expect((await log.latestSnapshot('state'))?.seq).toBe(4);
    expect((await log.latestSnapshot('state', { upToSeq: 3 }))?.seq).toBe(2);
  });

  it('never fail the write when saving fails', async () => {
    const log = new InMemoryLog();
    // A log of another kind, whose rows the backend stores one by one through `saveSnapshot`.
    const failing: Log = {
      identity: () => log.identity(),
      append: (input) => log.append(input),
      read: (query) => log.read(query),
      head: (stream) => log.head(stream),
      latestSnapshot: (stream, options) => log.latestSnapshot(stream, options),
      saveSnapshot: async () => {
        throw new Error('disk full');
      },
    };
    const errors: unknown[] = [];
    const p = createInMemoryProvider({ log: failing, snapshotEvery: 1, onBackgroundError: (e) => errors.push(e) });
    await expect(p.memory.write({ content: 'kept' })).resolves.toMatchObject({ content: 'kept' });
    expect(errors).toHaveLength(1);
    expect(await log.head('state')).toBe(1);
  });
});
