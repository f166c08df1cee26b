/** C1–C9: graph checkpoints and their pending writes (docs/contract.md §2, "Checkpoints"). */
import { type CheckpointTuple, ConflictError, LIMITS, type Provider, ValidationError } from '@agentstate/core';
import { readExport } from '../suite/log-cut.js';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { stateHead } from '../suite/fixtures.js';
import { checks, fresh, freshLog, needing, type ProviderCheck } from '../suite/harness.js';

/** Saves checkpoints `ids` of a thread in order, each the parent of the next. */
async function chain(p: Provider, threadId: string, ids: readonly string[], namespace = ''): Promise<void> {
  let parent: string | undefined;
  for (const [step, checkpointId] of ids.entries()) {
    await p.checkpoints.put({
      threadId,
      namespace,
      checkpointId,
      parentCheckpointId: parent,
      checkpoint: { v: checkpointId },
      metadata: { step, source: step === 0 ? 'input' : 'loop' },
    });
    parent = checkpointId;
  }
}

/** A pending write at `idx` of `channel`. */
const w = (idx: number, channel: string, value: unknown) => ({ idx, channel, value });

/** `thread/namespace/checkpointId` of each tuple. */
const places = (tuples: readonly CheckpointTuple[]): string[] =>
  tuples.map((t) => `${t.checkpoint.threadId}/${t.checkpoint.namespace}/${t.checkpoint.checkpointId}`);

export const checkpointChecks: ProviderCheck[] = checks([], {
  'C1 put saves under (thread, namespace, checkpointId); get returns the newest or the named one with its parent; saving again replaces': fresh(async (p) => {
    expect(await p.checkpoints.get({ threadId: 't' })).toBeUndefined();
    await chain(p, 't', ['01', '02', '03']);
    await chain(p, 't', ['09'], 'sub');
    const latest = await p.checkpoints.get({ threadId: 't' });
    expect(latest?.checkpoint).toMatchObject({ threadId: 't', namespace: '', checkpointId: '03', parentCheckpointId: '02', checkpoint: { v: '03' } });
    expect([latest?.checkpoint.metadata, latest?.pendingWrites]).toEqual([{ step: 2, source: 'loop' }, []]);
    expect((await p.checkpoints.get({ threadId: 't', checkpointId: '01' }))?.checkpoint.parentCheckpointId).toBeNull();
    expect((await p.checkpoints.get({ threadId: 't', namespace: 'sub' }))?.checkpoint.checkpointId).toBe('09');
    expect(await p.checkpoints.get({ threadId: 't', checkpointId: '09' })).toBeUndefined();
    // Nested subgraph namespaces grow with depth: three LangGraph levels are longer than an id.
    const nested = ['outer', 'inner', 'leaf'].map((node) => `${node}:1ef4f797-8335-6428-8001-8a1503f9b875`).join('|');
    await chain(p, 't', ['10'], nested);
    expect((await p.checkpoints.get({ threadId: 't', namespace: nested }))?.checkpoint.namespace).toBe(nested);
    const first = (await p.checkpoints.get({ threadId: 't', checkpointId: '02' }))!.checkpoint;
    expect(first.syncVersion).toBe(1);
    const again = await p.checkpoints.put({ threadId: 't', checkpointId: '02', parentCheckpointId: '01', checkpoint: { v: 'new' } });
    expect(again).toMatchObject({ id: first.id, createdAt: first.createdAt, syncVersion: 2, checkpoint: { v: 'new' }, metadata: {} });
    expect((await p.checkpoints.get({ threadId: 't', checkpointId: '02' }))?.checkpoint).toEqual(again);
  }),
  'C2 list is newest first by checkpointId across threads and namespaces, with before, limit and a metadata filter': fresh(async (p) => {
    await chain(p, 'a', ['01', '04', '05']);
    await chain(p, 'b', ['02', '03', '06']);
    await chain(p, 'b', ['04'], 'sub');
    expect(places(await p.checkpoints.list())).toEqual(['b//06', 'a//05', 'b/sub/04', 'a//04', 'b//03', 'b//02', 'a//01']);
    expect(places(await p.checkpoints.list({ threadId: 'b' }))).toEqual(['b//06', 'b/sub/04', 'b//03', 'b//02']);
    expect(places(await p.checkpoints.list({ threadId: 'b', namespace: '' }))).toEqual(['b//06', 'b//03', 'b//02']);
    expect(places(await p.checkpoints.list({ before: '05' }))).toEqual(['b/sub/04', 'a//04', 'b//03', 'b//02', 'a//01']);
    expect(places(await p.checkpoints.list({ before: '05', limit: 2 }))).toEqual(['b/sub/04', 'a//04']);
    expect(places(await p.checkpoints.list({ metadata: { source: 'input' } }))).toEqual(['b/sub/04', 'b//02', 'a//01']);
    expect(places(await p.checkpoints.list({ metadata: { source: 'loop', step: 2 }, limit: 1 }))).toEqual(['b//06']);
    expect([await p.checkpoints.list({ threadId: 'none' }), await p.checkpoints.list({ metadata: { step: '2' } })]).toEqual([[], []]);
  }),
  'C3 putWrites never overwrites a write at a non-negative idx, replaces one at a negative idx, and get returns writes by task then idx': fresh(async (p) => {
    await chain(p, 't', ['01']);
    const key = { threadId: 't', checkpointId: '01' };
    expect((await p.checkpoints.putWrites({ ...key, taskId: 'task-b', writes: [w(0, 'x', 1), w(1, 'y', 2)] })).map((w) => w.idx)).toEqual([0, 1]);
    expect(await p.checkpoints.putWrites({ ...key, taskId: 'task-b', writes: [{ idx: 0, channel: 'x', value: 'ignored' }] })).toEqual([]);
    await p.checkpoints.putWrites({ ...key, taskId: 'task-a', taskPath: '~a', writes: [{ idx: -1, channel: '__error__', value: 'first' }] });
    await p.checkpoints.putWrites({ ...key, taskId: 'task-a', taskPath: '~a', writes: [w(-1, '__error__', 'second'), w(0, 'z', null)] });
    const writes = (await p.checkpoints.get(key))!.pendingWrites;
    const rows = writes.map((w) => `${w.taskId} ${w.idx} ${w.channel} ${JSON.stringify(w.value)}`);
    expect(rows).toEqual(['task-a -1 __error__ "second"', 'task-a 0 z null', 'task-b 0 x 1', 'task-b 1 y 2']);
    expect(writes[0]).toEqual({ threadId: 't', namespace: '', checkpointId: '01', taskId: 'task-a', taskPath: '~a', ...w(-1, '__error__', 'second') });
    // Writes may arrive before their checkpoint is saved.
    await p.checkpoints.putWrites({ threadId: 't', checkpointId: '02', taskId: 'early', writes: [{ idx: 0, channel: 'c', value: true }] });
    await chain(p, 't', ['02']);
    expect((await p.checkpoints.get({ threadId: 't' }))?.pendingWrites.map((w) => w.taskId)).toEqual(['early']);
    expect((await p.checkpoints.list({ threadId: 't', limit: 1 }))[0]?.pendingWrites.map((w) => w.taskId)).toEqual(['early']);
  }),
  'C4 deleteThread removes every checkpoint and write of the thread only; deleting an empty thread writes nothing': fresh(async (p) => {
    await chain(p, 'gone', ['01', '02']);
    await chain(p, 'gone', ['01'], 'sub');
    await p.checkpoints.putWrites({ threadId: 'gone', checkpointId: '02', taskId: 'k', writes: [{ idx: 0, channel: 'c', value: 1 }] });
    await p.checkpoints.putWrites({ threadId: 'only-writes', checkpointId: '01', taskId: 'k', writes: [{ idx: 0, channel: 'c', value: 1 }] });
    await chain(p, 'kept', ['03']);
    await p.checkpoints.deleteThread('gone');
    await p.checkpoints.deleteThread('only-writes');
    expect([await p.checkpoints.get({ threadId: 'gone' }), await p.checkpoints.get({ threadId: 'gone', namespace: 'sub' })]).toEqual([undefined, undefined]);
    expect([await p.checkpoints.list({ threadId: 'gone' }), places(await p.checkpoints.list())]).toEqual([[], ['kept//03']]);
    await chain(p, 'gone', ['02']);
    expect((await p.checkpoints.get({ threadId: 'gone' }))?.pendingWrites).toEqual([]);
    const head = await stateHead(p);
    await p.checkpoints.deleteThread('never');
    expect(await stateHead(p)).toBe(head);
  }),
  'C5 checkpoints and writes survive a reopen': needing(['durable'], async (env) => {
    const p = await env.open();
    await chain(p, 't', ['01', '02']);
    await p.checkpoints.putWrites({ threadId: 't', checkpointId: '02', taskId: 'k', writes: [{ idx: -2, channel: 'c', value: { deep: [1, 'x'] } }] });
    await chain(p, 'u', ['01']);
    await p.checkpoints.deleteThread('u');
    const before = await p.checkpoints.list();
    const reopened = await env.reopen(p);
    expect(await reopened.checkpoints.list()).toEqual(before);
    await reopened.checkpoints.putWrites({ threadId: 't', checkpointId: '02', taskId: 'k', writes: [{ idx: -2, channel: 'c', value: 'replaced' }] });
    expect((await reopened.checkpoints.get({ threadId: 't' }))?.pendingWrites.map((w) => w.value)).toEqual(['replaced']);
  }),
  'C6 an export read back (and a replay of the log) holds the same checkpoints and writes': freshLog(async (p, env) => {
    await chain(p, 't', ['01', '02']);
    await p.checkpoints.putWrites({ threadId: 't', checkpointId: '02', taskId: 'k', writes: [{ idx: 0, channel: 'c', value: [1] }] });
    await chain(p, 'u', ['01']);
    await p.checkpoints.deleteThread('u');
    await p.checkpoints.put({ threadId: 't', checkpointId: '02', checkpoint: 'again' });
    const snapshot = await p.snapshot();
    const read = await readExport(p.log);
    expect([read.checkpoints, read.checkpointWrites]).toEqual([snapshot.checkpoints, snapshot.checkpointWrites]);
    expect(snapshot.checkpoints.map((c) => c.checkpointId)).toEqual(['01', '02']);
    expect(await (await env.replay(p.log)).checkpoints.list()).toEqual(await p.checkpoints.list());
  }),
  'C7 bad checkpoint input is ValidationError and writes nothing': fresh(async (p) => {
    await chain(p, 't', ['01']);
    const before = await p.checkpoints.list();
    const put = { threadId: 't', checkpointId: '02', checkpoint: {} };
    const writes = { threadId: 't', checkpointId: '01', taskId: 'k' };
    const half = 'x'.repeat(LIMITS.checkpoint / 2);
    const bad: [string, () => Promise<unknown>][] = [
      ['threadId', () => p.checkpoints.put({ ...put, threadId: '' })],
      ['checkpointId', () => p.checkpoints.put({ ...put, checkpointId: 'x'.repeat(LIMITS.id + 1) })],
      ['checkpoint.n', () => p.checkpoints.put({ ...put, checkpoint: { n: Number.NaN } })],
      ['checkpoint', () => p.checkpoints.put({ ...put, checkpoint: 'x'.repeat(LIMITS.checkpoint) })],
      ['metadata', () => p.checkpoints.put({ ...put, metadata: [] as never })],
      ['namespace', () => p.checkpoints.put({ ...put, namespace: 'a\u0000' })],
      ['namespace', () => p.checkpoints.put({ ...put, namespace: 'x'.repeat(LIMITS.shortText + 1) })],
      ['writes.1.idx', () => p.checkpoints.putWrites({ ...writes, writes: [w(0, 'a', 1), w(0, 'b', 2)] })],
      ['writes.0.idx', () => p.checkpoints.putWrites({ ...writes, writes: [{ idx: 0.5, channel: 'a', value: 1 }] })],
      ['writes.0.channel', () => p.checkpoints.putWrites({ ...writes, writes: [{ idx: 0, channel: '', value: 1 }] })],
      ['writes', () => p.checkpoints.putWrites({ ...writes, writes: [w(0, 'a', half), w(1, 'b', half)] })],
      ['taskId', () => p.checkpoints.putWrites({ ...writes, taskId: '', writes: [] })],
      ['', () => p.checkpoints.deleteThread('')],
      ['limit', () => p.checkpoints.list({ limit: -1 })],
    ];
    for (const [field, call] of bad) expect((await expectError(call, ValidationError, field)).field).toBe(field);
    expect(await p.checkpoints.list()).toEqual(before);
  }),
  'C8 checkpoint writes are idempotent with an operationId; reusing it with another input is ConflictError': fresh(async (p) => {
    const first = await p.checkpoints.put({ operationId: 'op-1', threadId: 't', checkpointId: '01', checkpoint: 1 });
    expect(await p.checkpoints.put({ operationId: 'op-1', threadId: 't', checkpointId: '01', checkpoint: 1 })).toEqual(first);
    expect((await p.checkpoints.get({ threadId: 't' }))?.checkpoint.syncVersion).toBe(1);
    await expectError(() => p.checkpoints.put({ operationId: 'op-1', threadId: 't', checkpointId: '01', checkpoint: 2 }), ConflictError);
    const w = { operationId: 'op-2', threadId: 't', checkpointId: '01', taskId: 'k', writes: [{ idx: -1, channel: 'c', value: 1 }] };
    const stored = await p.checkpoints.putWrites(w);
    expect(await p.checkpoints.putWrites(w)).toEqual(stored);
    await p.checkpoints.deleteThread('t', { operationId: 'op-3' });
    await p.checkpoints.deleteThread('t', { operationId: 'op-3' });
    expect(await p.checkpoints.get({ threadId: 't' })).toBeUndefined();
  }),
  'C9 what put, putWrites, get and list return, and what the caller passed in, are copies: changing them changes nothing stored': fresh(async (p) => {
    const value = { messages: [{ role: 'user', content: 'hi' }], step: 1 };
    const metadata = { source: 'loop', tags: ['a'] };
    const saved = await p.checkpoints.put({ threadId: 't', checkpointId: '01', checkpoint: value, metadata });
    const write = { idx: 0, channel: 'c', value: { items: [1, 2] } };
    const [written] = await p.checkpoints.putWrites({ threadId: 't', checkpointId: '01', taskId: 'k', writes: [write] });
    const before = await p.checkpoints.list();
    const scribble = (c: { checkpoint: unknown; metadata: unknown }) => {
      ((c.checkpoint as typeof value).messages[0] as { content: string }).content = 'changed';
      (c.metadata as typeof metadata).tags.push('changed');
    };
    scribble({ checkpoint: value, metadata });
    write.value.items.push(3);
    scribble(saved);
    (written!.value as typeof write.value).items.push(4);
    const got = (await p.checkpoints.get({ threadId: 't' }))!;
    scribble(got.checkpoint);
    (got.pendingWrites[0]!.value as typeof write.value).items.push(5);
    const [listed] = await p.checkpoints.list({ threadId: 't' });
    scribble(listed!.checkpoint);
    (listed!.pendingWrites[0]!.value as typeof write.value).items.push(6);
    expect(await p.checkpoints.list()).toEqual(before);
    const stored = { checkpoint: { messages: [{ role: 'user', content: 'hi' }], step: 1 }, metadata: { source: 'loop', tags: ['a'] } };
    expect(before[0]!.checkpoint).toMatchObject(stored);
    expect(before[0]!.pendingWrites[0]!.value).toEqual({ items: [1, 2] });
  }),
});
