/**
 * History and purge on the in-memory backend: every version of a record
 * from the log, and erasure that leaves no trace of the text in the log,
 * the read model or a snapshot, while a replay of the rewritten log still
 * equals the read model.
 */
import { describe, expect, it } from 'vitest';
import { encodeChunk, loadSnapshot, parseBoundSnapshot, storedHeadRows } from '@agentstate/core/backend';
import { decodeChunkIndex, encodeChunkIndex } from '../src/snapshot/chunks.js';
import {
  createInMemoryProvider,
  encodeSnapshot,
  InMemoryLog,
  ManualClock,
  NotFoundError,
  plainCodec,
  replay,
  seededEntropy,
  STATE_STREAM,
  ValidationError,
} from '@agentstate/core';

const T0 = Date.UTC(2026, 0, 1);

function provider() {
  const clock = new ManualClock(T0);
  const log = new InMemoryLog({ identity: 'lifecycle', clock });
  return { log, clock, p: createInMemoryProvider({ log, clock, entropy: seededEntropy(7), instanceId: 'writer-1', eventMeta: { actor: 'tester' } }) };
}

/** The whole stored log and snapshots as text. */
async function logText(log: InMemoryLog): Promise<string> {
  const events = await log.read({ stream: STATE_STREAM });
  // The head of the newest snapshot and each row it names (the text is in its chunks).
  const head = await log.latestSnapshot(STATE_STREAM);
  const rows = head ? [head, ...(await Promise.all((await storedHeadRows(log, head)).map((key) => log.latestSnapshot(key.stream, { upToSeq: key.seq }))))] : [];
  return JSON.stringify(events) + rows.map((row) => row?.data ?? '').join('');
}

describe('history', () => {
  it('lists every version of a memory item, oldest first, with its event', async () => {
    const { p, clock } = provider();
    const item = await p.memory.write({ content: 'first version', scope: ['user:ann'] });
    clock.advance(1000);
    await p.memory.update(item.id, { content: 'second version' });
    await p.memory.write({ content: 'unrelated' });
    await p.memory.delete(item.id);
    const versions = await p.history(item.id);
    expect(versions.map((v) => [v.type, v.kind, v.record.deleted])).toEqual([
      ['memory.written', 'memory', false],
      ['memory.updated', 'memory', false],
      ['memory.deleted', 'memory', true],
    ]);
    expect(versions.map((v) => (v.kind === 'memory' ? v.record.content : ''))).toEqual(['first version', 'second version', 'second version']);
    expect(versions[0]).toMatchObject({ seq: 1, time: '2026-01-01T00:00:00.000Z', actor: 'tester' });
    expect(versions[1]!.seq).toBe(2);
    expect(await p.history('0190a0a0-0000-7000-8000-000000000000')).toEqual([]);
  });

  it('follows a session through its turns, and a turn through its removal', async () => {
    const { p } = provider();
    const s = await p.sessions.create({ title: 't' });
    const turn = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hello' });
    await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', content: 'hi' });
    await p.sessions.removeLastTurn(s.id);
    expect((await p.history(s.id)).map((v) => v.type)).toEqual(['session.created', 'session.turn_appended', 'session.turn_appended', 'session.turns_removed']);
    expect((await p.history(turn.id)).map((v) => v.seq)).toEqual([2]);
  });

  it("derives a session's version after a turn append as the fold does, with the turn's clock and writer when another instance wrote it", async () => {
    const { p, log, clock } = provider();
    const s = await p.sessions.create({ title: 't' });
    const own = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hello', operationId: 'op-1' });
    // A turn another instance wrote (replicated, or imported), stored whole rather than compacted.
    clock.advance(1000);
    const [appended] = await log.read({ stream: STATE_STREAM, afterSeq: 1, limit: 1 });
    const foreign = {
      ...own,
      id: '019b76da-a800-7285-a6b2-e2fcb463d85b',
      seq: 2,
      content: 'from elsewhere',
      parts: [{ type: 'text', text: 'from elsewhere' }],
      createdAt: '2026-01-01T00:00:01.000Z',
      updatedHlc: { wall: T0 + 1000, counter: 3 },
      originInstanceId: 'writer-2',
      lastWriterId: 'writer-2',
    };
    await log.append({ stream: STATE_STREAM, type: appended!.type, schemaVersion: appended!.schemaVersion, actor: 'elsewhere', payload: { turn: foreign } });
    const again = await replay(log);
    const versions = await again.history(s.id);
    expect(versions.map((v) => [v.seq, v.type, v.operationId, v.actor])).toEqual([
      [1, 'session.created', undefined, 'tester'],
      [2, 'session.turn_appended', 'op-1', 'tester'],
      [3, 'session.turn_appended', undefined, 'elsewhere'],
    ]);
    expect(versions.at(-1)!.record).toEqual(await again.sessions.get(s.id));
    expect(versions.at(-1)!.record).toMatchObject({ lastWriterId: 'writer-2', updatedHlc: foreign.updatedHlc, updatedAt: foreign.createdAt, syncVersion: 3 });
  });

  it('reads the versions before a snapshot a replay started from', async () => {
    const { p, log } = provider();
    const skill = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'v1' });
    await p.saveSnapshot();
    await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'v2' });
    const again = await replay(log);
    expect((await again.history(skill.id)).map((v) => v.seq)).toEqual([1, 2]);
  });

  it('refuses an id that is not one', async () => {
    const { p } = provider();
    await expect(p.history('')).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('purge', () => {
  it('erases a memory item from every event, the read model and the snapshots', async () => {
    const { p, log } = provider();
    const secret = await p.memory.write({ content: 'ann lives at 12 Secret Lane', key: 'address', metadata: { street: 'Secret Lane' } });
    await p.memory.update(secret.id, { content: 'ann moved to 9 Hidden Road' });
    const kept = await p.memory.write({ content: 'the sky is blue' });
    const snapshot = await p.saveSnapshot();
    const result = await p.purge({ id: secret.id, reason: 'erasure request 42' });
    expect(result).toMatchObject({ memory: [secret.id], sessions: [], turns: [], skills: [] });
    const text = await logText(log);
    for (const erased of ['Secret Lane', 'Hidden Road', 'address']) expect(text).not.toContain(erased);
    expect(text).toContain('the sky is blue');
    expect(text).toContain('erasure request 42');
    await expect(p.memory.get(secret.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await p.memory.getAny(secret.id)).content).toBe('[erased]');
    expect((await p.memory.get(kept.id)).content).toBe('the sky is blue');
    const versions = await p.history(secret.id);
    expect(versions.map((v) => [v.type, v.erasedBy])).toEqual([
      ['memory.written', result.seq],
      ['memory.updated', result.seq],
      ['records.purged', undefined],
    ]);
    // The rewritten log folds to the same read model.
    const again = await replay(log, { fromScratch: true });
    expect(await again.snapshot()).toEqual(await p.snapshot());
    // The snapshot is patched, not dropped: it still loads, and holds the erased tombstone.
    const loaded = await loadSnapshot(log, plainCodec, snapshot.seq);
    expect([loaded.snapshot?.seq, loaded.skipped]).toEqual([snapshot.seq, []]);
    expect(loaded.snapshot?.memory.find((m) => m.id === secret.id)?.content).toBe('[erased]');
    expect(encodeSnapshot(loaded.snapshot!)).toContain('the sky is blue');
    // Its head is patched by swapping digests in the stored text: still the canonical encoding of what it names.
    const { content } = parseBoundSnapshot((await log.latestSnapshot(STATE_STREAM, { upToSeq: snapshot.seq }))!.data, snapshot.seq);
    expect(content).toBe(encodeChunkIndex(decodeChunkIndex(content, snapshot.seq)));
    for (const key of await storedHeadRows(log, { seq: snapshot.seq, data: content.padStart(content.length + 1, '\n') })) {
      const chunk = (await log.latestSnapshot(key.stream, { upToSeq: 0 }))!.data;
      expect(chunk).toBe(encodeChunk(JSON.parse(chunk) as unknown[]));
    }
  });

  it('erases a session with all its turns, and leaves other sessions alone', async () => {
    const { p, log } = provider();
    const s = await p.sessions.create({ title: 'Ann private chat', metadata: { who: 'ann' } });
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'my pin is 4711' });
    await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', content: 'noted 4711' });
    await p.sessions.removeLastTurn(s.id);
    const other = await p.sessions.create({ title: 'other' });
    await p.sessions.appendTurn({ sessionId: other.id, role: 'user', content: 'keep me' });
    const result = await p.purge({ id: s.id, reason: 'user request' });
    expect(result.sessions).toEqual([s.id]);
    expect(result.turns).toHaveLength(2);
    const text = await logText(log);
    expect(text).not.toContain('4711');
    expect(text).not.toContain('Ann private chat');
    expect(text).toContain('keep me');
    expect((await p.sessions.turns(other.id)).map((t) => t.content)).toEqual(['keep me']);
    const again = await replay(log, { fromScratch: true });
    expect(await again.snapshot()).toEqual(await p.snapshot());
  });

  it('erases a namespace and its descendants, and text matches', async () => {
    const { p, log } = provider();
    await p.memory.write({ content: 'ann likes tea', scope: ['user:ann'] });
    await p.memory.write({ content: 'ann project notes', scope: ['user:ann', 'project:x'] });
    await p.skills.upsert({ slug: 'ann-skill', name: 'Ann skill', body: 'ann body', scope: ['user:ann'] });
    await p.memory.write({ content: 'bob likes coffee', scope: ['user:bob'] });
    const s = await p.sessions.create({ title: 'bob chat', scope: ['user:bob'] });
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'card 5555-1234' });
    const namespace = await p.purge({ namespace: ['user:ann'], reason: 'account closed' });
    expect([namespace.memory.length, namespace.skills.length]).toEqual([2, 1]);
    const matching = await p.purge({ matching: '5555-1234', reason: 'card number' });
    expect(matching.turns).toHaveLength(1);
    const text = await logText(log);
    for (const erased of ['likes tea', 'project notes', 'ann body', 'Ann skill', '5555-1234']) expect(text).not.toContain(erased);
    expect(text).toContain('bob likes coffee');
    expect(await p.purge({ matching: 'nothing has this', reason: 'none' })).toMatchObject({ seq: 0, memory: [], turns: [] });
    const again = await replay(log, { fromScratch: true });
    expect(await again.snapshot()).toEqual(await p.snapshot());
  });

  it('refuses an unknown id, a missing reason, two selectors and the global scope', async () => {
    const { p } = provider();
    await expect(p.purge({ id: '0190a0a0-0000-7000-8000-000000000000', reason: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(p.purge({ id: '0190a0a0-0000-7000-8000-000000000000' } as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(p.purge({ id: '0190a0a0-0000-7000-8000-000000000000', matching: 'x', reason: 'x' })).rejects.toBeInstanceOf(ValidationError);
    await expect(p.purge({ namespace: [], reason: 'x' })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('the fold rule of records.purged', () => {
  it('accepts exactly the erased tombstones one version later, and refuses forgeries', async () => {
    const { p, log } = provider();
    const item = await p.memory.write({ content: 'keep out' });
    await p.purge({ id: item.id, reason: 'r' });
    const events = await log.read({ stream: STATE_STREAM });
    const purge = events[events.length - 1]!;
    const forge = async (edit: (payload: { memory: Record<string, unknown>[] }) => void) => {
      const forged = new InMemoryLog({ identity: 'forged' });
      for (const e of events.slice(0, -1)) await forged.append({ ...e, payload: e.payload });
      const payload = structuredClone(purge.payload) as { memory: Record<string, unknown>[] };
      edit(payload);
      await forged.append({ ...purge, payload });
      return replay(forged, { fromScratch: true });
    };
    await expect(forge(() => undefined)).resolves.toBeDefined();
    await expect(
      forge((pl) => {
        pl.memory[0]!.content = 'keep out';
      }),
    ).rejects.toThrow(/not its erased tombstone/);
    await expect(
      forge((pl) => {
        pl.memory.push(pl.memory[0]!);
      }),
    ).rejects.toThrow(/purged twice/);
    await expect(
      forge((pl) => {
        pl.memory[0]!.id = '0190a0a0-0000-7000-8000-000000000000';
      }),
    ).rejects.toThrow(/does not exist/);
    await expect(
      forge((pl) => {
        pl.memory[0]!.syncVersion = 5;
      }),
    ).rejects.toThrow(/syncVersion/);
  });
});
