/**
 * `verify()` and `rebuild()` on PostgreSQL: a sound schema verifies, with
 * the tables equal to a replay of the log byte for byte; a damaged table
 * row, metadata leaf or full-text column is reported with `rebuild` as its
 * repair, and the rebuild (from the newest snapshot, or from scratch)
 * repairs it; a changed event is reported as damage to the log; a rebuild
 * that meets a corrupted event changes nothing.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { CorruptionError, encodeSnapshot } from '@agentstate/core';
import { foldLog, sha256Hex } from '@agentstate/core/backend';
import type { PostgresProvider } from '../src/index.js';
import { fresh } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function opened(): Promise<{ provider: PostgresProvider; url: string; schema: string }> {
  const f = await fresh();
  cleanups.push(f.close);
  return f;
}

/** Runs one statement on its own connection, as damage from outside the library would. */
async function damage(url: string, text: string, values: unknown[] = []): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

/** Some of every kind of record, with a stored snapshot in the middle. */
async function populate(provider: PostgresProvider): Promise<{ memoryId: string; sessionId: string }> {
  const session = await provider.sessions.create({ title: 'Verify me' });
  await provider.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'The deploy failed on staging' });
  await provider.skills.upsert({ slug: 'rollback', body: 'git revert, then redeploy', tags: ['ops'] });
  const item = await provider.memory.write({ content: 'The user prefers dark themes', metadata: { topic: 'ui', level: 2 } });
  await provider.saveSnapshot();
  await provider.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: 'Rolled back the release' });
  await provider.memory.write({ content: 'Deploys go out on Tuesdays', key: 'deploy-day' });
  return { memoryId: item.id, sessionId: session.id };
}

describe('verify() on PostgreSQL', () => {
  it('finds a sound schema sound: the tables equal a replay of the log, byte for byte', async () => {
    const { provider } = await opened();
    await populate(provider);
    const report = await provider.verify();
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ ok: true, repair: null, events: 6, tablesSeq: 6, differences: [], skippedSnapshots: [] });
    expect(report.storedSnapshot).toEqual({ seq: 4, matches: true, codec: 'plain' });
    const text = encodeSnapshot((await foldLog(provider.log, { fromScratch: true })).state.capture());
    expect(report.sha256).toBe(sha256Hex(text));
    expect(encodeSnapshot(await provider.snapshot())).toBe(text);
  });

  it('reports a damaged table row with rebuild as the repair, and the rebuild repairs it', async () => {
    const { provider, url, schema } = await opened();
    const { memoryId } = await populate(provider);
    expect(await damage(url, `UPDATE "${schema}".memory SET content = 'tampered' WHERE id = $1`, [memoryId])).toBe(1);
    const report = await provider.verify();
    expect(report.ok).toBe(false);
    expect(report.repair).toBe('rebuild');
    expect(report.differences).toEqual([`memory: 1 differ from the log (${memoryId})`]);
    // The row's full-text column was made for the original content, so it disagrees too.
    expect(report.problems.map((p) => [p.part, p.repair])).toEqual([
      ['tables', 'rebuild'],
      ['fts', 'rebuild'],
    ]);
    const rebuilt = await provider.rebuild();
    expect(rebuilt).toMatchObject({ seq: 6, snapshotSeq: 4, events: 2, skipped: [] });
    expect((await provider.verify()).problems).toEqual([]);
    expect((await provider.memory.get(memoryId)).content).toBe('The user prefers dark themes');
  });

  it('rebuilds checkpoints from scratch: saves, a second save under one key, writes, and deleted threads before and after', async () => {
    const { provider } = await opened();
    const put = (threadId: string, checkpointId: string, v: number) =>
      provider.checkpoints.put({ threadId, namespace: '', checkpointId, checkpoint: { v }, metadata: { step: v } });
    await put('t', '01', 1);
    await provider.checkpoints.putWrites({ threadId: 't', checkpointId: '01', taskId: 'k', writes: [{ idx: 0, channel: 'c', value: 'a' }] });
    await put('t', '01', 2);
    await put('u', '01', 1);
    await provider.checkpoints.putWrites({ threadId: 'u', checkpointId: '01', taskId: 'k', writes: [{ idx: 0, channel: 'c', value: 'b' }] });
    await provider.checkpoints.deleteThread('u');
    // The thread is used again after its deletion: the rebuild must not take its old rows for present.
    await put('u', '01', 3);
    await provider.checkpoints.putWrites({ threadId: 'u', checkpointId: '01', taskId: 'k', writes: [{ idx: 0, channel: 'c', value: 'c' }] });
    await provider.checkpoints.putWrites({ threadId: 't', checkpointId: '01', taskId: 'k', writes: [{ idx: 1, channel: 'c', value: 'd' }] });
    const before = await provider.snapshot();
    expect(await provider.rebuild({ fromScratch: true })).toMatchObject({ snapshotSeq: 0, events: 9 });
    expect(encodeSnapshot(await provider.snapshot())).toBe(encodeSnapshot(before));
    expect((await provider.verify()).problems).toEqual([]);
  });

  it('reports a damaged metadata index and full-text column, and a rebuild from scratch repairs both', async () => {
    const { provider, url, schema } = await opened();
    const { sessionId } = await populate(provider);
    expect(await damage(url, `DELETE FROM "${schema}".memory_meta WHERE path = '["topic"]'`)).toBe(1);
    expect(await damage(url, `UPDATE "${schema}".turns SET search = to_tsvector('simple', 'other words') WHERE session_id = $1 AND seq = 1`, [sessionId])).toBe(
      1,
    );
    const report = await provider.verify();
    expect(report.differences).toEqual([]);
    expect(report.problems.map((p) => [p.part, p.object, p.repair])).toEqual([
      ['tables', 'memory_meta', 'rebuild'],
      ['fts', 'turns.search', 'rebuild'],
    ]);
    // Recall reads only the index: the damage is visible to it.
    expect((await provider.memory.recall({ where: { topic: 'ui' } })).length).toBe(0);
    expect(await provider.rebuild({ fromScratch: true })).toMatchObject({ seq: 6, snapshotSeq: 0, events: 6 });
    expect((await provider.verify()).ok).toBe(true);
    expect((await provider.memory.recall({ where: { topic: 'ui' } })).map((h) => h.content)).toEqual(['The user prefers dark themes']);
  });

  it('reports a history index that lost and gained rows, and a rebuild from the snapshot refills it from the log', async () => {
    const { provider, url, schema } = await opened();
    const { memoryId, sessionId } = await populate(provider);
    expect(await damage(url, `DELETE FROM "${schema}".record_events WHERE record_id = $1`, [memoryId])).toBe(1);
    expect(await damage(url, `INSERT INTO "${schema}".record_events (record_id, seq) VALUES ('ghost', 2)`)).toBe(1);
    const report = await provider.verify();
    expect(report.problems.map((p) => [p.part, p.object, p.repair])).toEqual([['tables', 'record_events', 'rebuild']]);
    expect(report.problems[0]!.message).toContain(memoryId);
    expect(report.problems[0]!.message).toContain('"ghost"');
    expect(await provider.rebuild()).toMatchObject({ seq: 6, snapshotSeq: 4, events: 2 });
    expect((await provider.verify()).problems).toEqual([]);
    expect((await provider.history(memoryId)).map((v) => v.seq)).toEqual([4]);
    expect((await provider.history(sessionId)).map((v) => v.seq)).toEqual([1, 2, 5]);
  });

  it('reports a changed event as damage to the log, and a rebuild that meets it changes nothing', async () => {
    const { provider, url, schema } = await opened();
    await populate(provider);
    await damage(url, `UPDATE "${schema}".events SET payload = replace(payload, 'Rolled back', 'Rolled forward') WHERE stream = 'state' AND seq = 5`);
    const report = await provider.verify();
    expect(report.ok).toBe(false);
    expect(report.repair).toBe('restore-backup');
    expect(report.problems[0]).toMatchObject({ part: 'log', repair: 'restore-backup' });
    expect(report.problems[0]!.message).toMatch(/does not match its checksum/);
    const before = encodeSnapshot(await provider.snapshot());
    await expect(provider.rebuild()).rejects.toBeInstanceOf(CorruptionError);
    expect(encodeSnapshot(await provider.snapshot())).toBe(before);
  });

  it('reports a stored snapshot that differs from the log, and skips it in a rebuild', async () => {
    const { provider, url, schema } = await opened();
    await populate(provider);
    await damage(url, `UPDATE "${schema}".snapshots SET data = convert_to(replace(convert_from(data, 'UTF8'), 'dark themes', 'light themes'), 'UTF8')`);
    const report = await provider.verify();
    expect(report.problems.map((p) => [p.part, p.repair])).toEqual([['snapshots', 'export-import']]);
    const rebuilt = await provider.rebuild();
    expect(rebuilt.snapshotSeq).toBe(0);
    expect(rebuilt.skipped.map((s) => s.damaged)).toEqual([true]);
  });
});
