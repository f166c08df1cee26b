/**
 * Snapshots stored in parts (format 4): what a view reads of them, and the
 * whole formats before them, which still load everywhere.
 */
import { describe, expect, it } from 'vitest';
import type { Log } from '../src/index.js';
import { createInMemoryProvider, encodeSnapshot, hmacCodec, InMemoryLog, ManualClock, replay, seededEntropy, STATE_STREAM } from '../src/index.js';
import { bindSnapshot, formatBoundSnapshot, loadSnapshot, SNAPSHOT_PARTS, snapshotBinding, snapshotPartStream } from '../src/backend.js';

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

describe('snapshots stored in parts', () => {
  it('store a small sealed head and one row per part at its seq, which load back to the whole projection', async () => {
    const { log, codec, snapshot, saved } = await populated();
    expect(snapshot.data.length).toBeLessThan(1_000);
    expect(snapshot.data).not.toContain('ship on friday');
    for (const part of SNAPSHOT_PARTS) expect((await log.latestSnapshot(snapshotPartStream(part)))?.seq, part).toBe(snapshot.seq);
    const loaded = await loadSnapshot(log, codec, snapshot.seq);
    expect(encodeSnapshot(loaded.snapshot!)).toBe(encodeSnapshot(saved));
  });

  it('let a view read only the parts its reads need, and fold the later events into each', async () => {
    const { p, log, streams, snapshot, session, item } = await populated();
    const head = await log.head(STATE_STREAM);
    const view = await p.at({ seq: head });
    streams.length = 0;
    expect((await view.memory.get(item.id)).content).toBe('ship on monday');
    expect(streams.filter((s) => s !== STATE_STREAM)).toEqual([snapshotPartStream('memory')]);
    streams.length = 0;
    expect((await view.sessions.turns(session.id)).map((t) => t.content)).toEqual(['before the snapshot', 'after the snapshot']);
    expect(streams).toEqual([snapshotPartStream('sessions'), snapshotPartStream('turns')]);
    streams.length = 0;
    // Concurrent first reads restore a part once and agree.
    const [a, b] = await Promise.all([view.skills.get('deploy'), view.skills.get('deploy')]);
    expect([a.body, b.body]).toEqual(['v2', 'v2']);
    expect(streams).toEqual([snapshotPartStream('skills')]);
    expect(encodeSnapshot(await view.capture())).toBe(encodeSnapshot(await p.snapshot()));
    expect(snapshot.seq).toBeLessThan(head);
  });

  it('still load whole snapshots of formats 2 and 3, for views, folds and replays', async () => {
    const codec = hmacCodec('old');
    const { p, log, item } = await populated(codec);
    const head = await log.head(STATE_STREAM);
    const whole = await p.snapshot();
    // Format 3: one row holding the whole projection, as the versions before parts stored it, above the parted one.
    await log.saveSnapshot({ stream: STATE_STREAM, seq: head, data: codec.seal(await bindSnapshot(log, whole)) });
    expect((await loadSnapshot(log, codec, head)).snapshot?.seq).toBe(head);
    expect(encodeSnapshot(await (await p.at({ seq: head })).capture())).toBe(encodeSnapshot(whole));
    expect((await (await p.at({ seq: head })).memory.get(item.id)).content).toBe('ship on monday');
    expect(encodeSnapshot(await (await replay(log, { snapshotCodec: codec })).snapshot())).toBe(encodeSnapshot(whole));
    // Format 2: the same without checkpoints.
    await p.memory.write({ content: 'one more' });
    const at = await log.head(STATE_STREAM);
    const { checkpoints: _c, checkpointWrites: _w, ...rest } = await p.snapshot();
    const text = JSON.stringify({ format: 'agentstate.snapshot/2', ...rest });
    await log.saveSnapshot({ stream: STATE_STREAM, seq: at, data: codec.seal(formatBoundSnapshot(await snapshotBinding(log, at, text), text)) });
    const loaded = await loadSnapshot(log, codec, at);
    expect([loaded.snapshot?.seq, loaded.skipped]).toEqual([at, []]);
    expect(encodeSnapshot(await (await p.at({ seq: at })).capture())).toBe(encodeSnapshot(await p.snapshot()));
  });
});
