/**
 * Idempotent writes with real files and a real second process, through the
 * built package: an operation written by one process is answered from its
 * event by another process and after a restart, nothing is appended, the
 * operations table is rebuilt by the fold (rebuild, verify), and another
 * input under the same id is refused everywhere.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryItem } from '@agentstate/core';
import { ConflictError, encodeSnapshot, replay } from '@agentstate/core';
import { openSqlite } from '@agentstate/sqlite';
import { tempDir } from './helpers.js';
import { tamper } from './damage.js';

const WRITER = fileURLToPath(new URL('./fixtures/idempotent-writer.mjs', import.meta.url));
const run = promisify(execFile);

/** Runs the writer process; its stdout line, and whether it succeeded. */
async function otherProcess(file: string, operationId: string, content: string): Promise<{ ok: boolean; line: string }> {
  try {
    const { stdout } = await run(process.execPath, [WRITER, file, operationId, content]);
    return { ok: true, line: stdout.trim() };
  } catch (error) {
    return { ok: false, line: String((error as { stdout?: string }).stdout ?? error).trim() };
  }
}

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe('idempotent writes on SQLite files', () => {
  it('answer a retry from another process and after a restart with the original, appending nothing', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = t.file();

    // This process writes first; the other process retries.
    const p = await openSqlite(file);
    const mine = await p.memory.write({ content: 'written here', operationId: 'op-here' });
    await p.close();
    const answered = await otherProcess(file, 'op-here', 'written here');
    expect(answered.ok).toBe(true);
    expect(JSON.parse(answered.line)).toEqual(mine);

    // The other process writes first; this process retries, then after a restart.
    const theirs = await otherProcess(file, 'op-there', 'written there');
    expect(theirs.ok).toBe(true);
    const written = JSON.parse(theirs.line) as MemoryItem;
    expect(written.originInstanceId).toBe('other-process');
    let q = await openSqlite(file);
    expect(await q.memory.write({ content: 'written there', operationId: 'op-there' })).toEqual(written);
    await q.close();
    q = await openSqlite(file);
    expect(await q.memory.write({ operationId: 'op-there', content: 'written there' })).toEqual(written);
    expect(await q.log.head('state')).toBe(2);

    // Another input under a used id is refused, here and there, and writes nothing.
    await expect(q.memory.write({ content: 'changed', operationId: 'op-here' })).rejects.toBeInstanceOf(ConflictError);
    await q.close();
    expect(await otherProcess(file, 'op-there', 'changed')).toEqual({ ok: false, line: 'error conflict' });
    q = await openSqlite(file);
    try {
      expect(await q.log.head('state')).toBe(2);
      expect((await q.memory.recall()).map((m) => m.content).sort()).toEqual(['written here', 'written there']);
    } finally {
      await q.close();
    }
  });

  it('rebuild the operations table from the log, equal to a replay, and keep answering retries', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const p = await openSqlite(t.file());
    try {
      const session = await p.sessions.create({ operationId: 'op-1' });
      const turn = await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'hi', operationId: 'op-2' });
      await p.skills.upsert({ slug: 'deploy', operationId: 'op-3' });
      const outcome = await p.skills.recordOutcome('deploy', { success: true, operationId: 'op-4' });
      const before = await p.snapshot();
      expect(before.operations.map((o) => [o.id, o.seq])).toEqual([
        ['op-1', 1],
        ['op-2', 2],
        ['op-3', 3],
        ['op-4', 4],
      ]);
      const replayed = await replay(p.log, { fromScratch: true });
      expect(encodeSnapshot(await replayed.snapshot())).toBe(encodeSnapshot(before));
      await p.rebuild();
      expect(encodeSnapshot(await p.snapshot())).toBe(encodeSnapshot(before));
      expect((await p.verify()).ok).toBe(true);
      expect(await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'hi', operationId: 'op-2' })).toEqual(turn);
      expect(await p.skills.recordOutcome('deploy', { success: true, operationId: 'op-4' })).toEqual(outcome);
      expect(await p.log.head('state')).toBe(4);
    } finally {
      await p.close();
    }
  });

  it('names a lost operations row in verify, and rebuild restores it so the retry is answered again', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = t.file();
    let p = await openSqlite(file);
    const item = await p.memory.write({ content: 'once', operationId: 'op' });
    await p.close();
    tamper(file, "DELETE FROM operations WHERE id = 'op'");
    p = await openSqlite(file);
    try {
      const report = await p.verify();
      expect(report.ok).toBe(false);
      expect(report.differences).toEqual(['operations: 1 in the log but not in the tables (op)']);
      await p.rebuild();
      expect((await p.verify()).ok).toBe(true);
      expect(await p.memory.write({ content: 'once', operationId: 'op' })).toEqual(item);
      expect(await p.log.head('state')).toBe(1);
    } finally {
      await p.close();
    }
  });
});
