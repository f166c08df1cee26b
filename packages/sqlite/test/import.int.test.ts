/**
 * `importSqlite` builds a new database file from an export's lines: the
 * tables equal the source's, a refused line names itself, and an existing
 * file is never imported into.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ExportFormatError, ValidationError, encodeSnapshot, exportLog } from '@agentstate/core';
import { importSqlite, openSqlite } from '../src/index.js';
import { deterministic, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

async function sourceExport(): Promise<{ lines: string[]; snapshot: string }> {
  const p = openSqlite(tmp.file('source.db'), deterministic());
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
    const copy = openSqlite(path);
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

  it('never imports into a file that exists', async () => {
    const { lines } = await source;
    const path = tmp.file('taken.db');
    writeFileSync(path, 'mine');
    await expect(importSqlite(path, lines)).rejects.toBeInstanceOf(ValidationError);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });
});
