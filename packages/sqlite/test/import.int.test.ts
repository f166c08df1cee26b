/**
 * `importSqlite` builds a new database file from an export's lines: the
 * tables equal the source's, a refused line names itself, and an existing
 * file is never imported into.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ExportFormatError, ValidationError, encodeSnapshot, exportLog, RETENTION_STREAM } from '@agentstate/core';
import { importSqlite, openSqlite } from '../src/index.js';
import { deterministic, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

async function sourceExport(): Promise<{ lines: string[]; snapshot: string }> {
  const p = await openSqlite(tmp.file('source.db'), deterministic());
  const s = await p.sessions.create({ title: 'chat' });
  await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hello' });
  await p.skills.upsert({ slug: 'deploy', body: 'ship it' });
  const m = await p.memory.write({ content: 'a fact' });
  await p.memory.delete(m.id);
  await p.checkpoints.put({ threadId: 't', checkpointId: '01', checkpoint: { step: 1 } });
  await p.checkpoints.put({ threadId: 't', checkpointId: '02', parentCheckpointId: '01', checkpoint: { step: 2 }, metadata: { source: 'loop' } });
  await p.checkpoints.putWrites({ threadId: 't', checkpointId: '02', taskId: 'k', writes: [{ idx: -1, channel: 'c', value: [1] }] });
  await p.checkpoints.put({ threadId: 'gone', checkpointId: '01', checkpoint: null });
  await p.checkpoints.deleteThread('gone');
  let text = '';
  await exportLog(p.log, (chunk) => {
    text += chunk;
  });
  const snapshot = encodeSnapshot(await p.snapshot());
  await p.close();
  return { lines: text.split('\n').slice(0, -1), snapshot };
}

describe('importSqlite', () => {
  const source = sourceExport();

  it('creates a database whose tables equal the source, checkpoints included', async () => {
    const { lines, snapshot } = await source;
    const path = tmp.file('copy.db');
    const result = await importSqlite(path, lines);
    expect(result).toMatchObject({ events: 10, sha256: createHash('sha256').update(snapshot).digest('hex') });
    const copy = await openSqlite(path);
    expect(encodeSnapshot(await copy.snapshot())).toBe(snapshot);
    expect(await copy.memory.recall({ query: 'fact' })).toEqual([]);
    const latest = await copy.checkpoints.get({ threadId: 't' });
    expect(latest?.checkpoint).toMatchObject({ checkpointId: '02', parentCheckpointId: '01', checkpoint: { step: 2 } });
    expect(latest?.pendingWrites.map((w) => w.value)).toEqual([[1]]);
    expect(await copy.checkpoints.list({ threadId: 'gone' })).toEqual([]);
    await copy.close();
  });

  it('refuses a line that is not an event, naming it', async () => {
    const { lines } = await source;
    const error = await importSqlite(tmp.file('bad.db'), [lines[0]!, '{"seq":2}', ...lines.slice(2)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExportFormatError);
    expect((error as ExportFormatError).line).toBe(2);
  });

  it('carries the retention policies, a purge event and the erased payloads through an export and back, byte for byte', async () => {
    const p = await openSqlite(tmp.file('lifecycle-source.db'), deterministic());
    const item = await p.memory.write({ content: 'Sassafrasian secret' });
    await p.memory.update(item.id, { content: 'Sassafrasian secret, revised' });
    await p.memory.write({ content: 'kept' });
    await p.retention.set({ record: 'memory', memoryKind: 'scratch', maxAge: '1d', action: 'purge' });
    await p.retention.set({ id: 'old', record: 'turn', maxAge: '90d' });
    await p.retention.remove('old');
    const purged = await p.purge({ id: item.id, reason: 'request 9' });
    const exportOf = async (log: typeof p.log): Promise<string> => {
      let text = '';
      await exportLog(log, (chunk) => {
        text += chunk;
      });
      return text;
    };
    const text = await exportOf(p.log);
    const policies = await p.retention.list();
    const history = await p.history(item.id);
    await p.close();
    expect(text).not.toContain('Sassafrasian');
    const lines = text.split('\n').slice(0, -1);
    expect(lines.slice(-4, -1).map((l) => (JSON.parse(l) as { stream: string }).stream)).toEqual([RETENTION_STREAM, RETENTION_STREAM, RETENTION_STREAM]);
    const path = tmp.file('lifecycle-copy.db');
    expect(await importSqlite(path, lines)).toMatchObject({ events: purged.seq, trailer: { events: purged.seq + 3 } });
    const copy = await openSqlite(path);
    expect(await copy.retention.list()).toEqual(policies);
    expect(await copy.history(item.id)).toEqual(history);
    expect(history.map((v) => v.erasedBy)).toEqual([purged.seq, purged.seq, undefined]);
    expect(await exportOf(copy.log)).toBe(text);
    expect((await copy.verify()).ok).toBe(true);
    await copy.close();
    // The policies come after every state event: a state line after them is refused, naming it.
    const moved = [lines[0]!, lines[lines.length - 4]!, ...lines.slice(1)];
    const error = await importSqlite(tmp.file('lifecycle-bad.db'), moved).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExportFormatError);
    expect((error as ExportFormatError).line).toBe(3);
  });

  it('never imports into a file that exists', async () => {
    const { lines } = await source;
    const path = tmp.file('taken.db');
    writeFileSync(path, 'mine');
    await expect(importSqlite(path, lines)).rejects.toBeInstanceOf(ValidationError);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });
});
