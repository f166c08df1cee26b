/** LangGraph checkpoints in the tools: `threads list`, the counts of `stats` and the lines of `log tail`. */
import { openSqlite } from '@agentstate/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('threads and checkpoints in the CLI', () => {
  const db = tmp.path('graph.db');

  beforeAll(async () => {
    const p = await openSqlite(db);
    try {
      const saved = { checkpoint: {}, metadata: { step: 0, source: 'loop' } };
      await p.checkpoints.put({ threadId: 'chat-a', namespace: '', checkpointId: 'c1', parentCheckpointId: null, ...saved });
      await p.checkpoints.put({ threadId: 'chat-a', namespace: 'agent:1', checkpointId: 'c2', parentCheckpointId: null, ...saved });
      await p.checkpoints.putWrites({
        threadId: 'chat-a',
        namespace: '',
        checkpointId: 'c1',
        taskId: 'task',
        writes: [{ idx: 0, channel: 'messages', value: 'hi' }],
      });
      await p.checkpoints.put({ threadId: 'chat-b', namespace: '', checkpointId: 'c3', parentCheckpointId: null, ...saved });
      await p.sessions.create({ title: 'not a thread' });
    } finally {
      await p.close();
    }
  });

  it('threads list shows each thread with its checkpoints, writes and namespaces', () => {
    const threads = okJson<unknown[]>(['threads', 'list', '--db', db]);
    expect(threads).toEqual([
      { threadId: 'chat-b', checkpoints: 1, writes: 0, namespaces: [''], lastCheckpointId: 'c3', lastSavedAt: expect.any(String) },
      { threadId: 'chat-a', checkpoints: 2, writes: 1, namespaces: ['', 'agent:1'], lastCheckpointId: 'c2', lastSavedAt: expect.any(String) },
    ]);
    const text = ok(['threads', 'list', '--db', db]);
    expect(text).toMatch(/^THREAD +SAVED +CHECKPOINTS +WRITES +NAMESPACES +LAST CHECKPOINT\n/);
    expect(text).toMatch(/\nchat-a +\S+ \S+ +2 +1 +\(root\), agent:1 +c2\n/);
    expect(ok(['threads', 'list', '--at', '1', '--db', db])).toMatch(/\nchat-a +\S+ \S+ +1 +0 +\(root\) +c1\n$/);
  });

  it('stats counts threads and checkpoints', () => {
    expect(okJson(['stats', '--db', db])).toMatchObject({ threads: 2, checkpoints: 3, sessions: { live: 1, deleted: 0 } });
    expect(ok(['stats', '--db', db])).toMatch(/\nthreads: +2 \(3 checkpoints\)\n/);
  });

  it('log tail says what each checkpoint event did', () => {
    const lines = ok(['log', 'tail', '-n', '5', '--db', db]).trimEnd().split('\n');
    expect(lines.map((line) => line.split(/ {2,}/).slice(-1)[0])).toEqual([
      'thread chat-a checkpoint c1 step 0 loop',
      'thread chat-a ("agent:1") checkpoint c2 step 0 loop',
      'thread chat-a checkpoint c1 task task wrote messages',
      'thread chat-b checkpoint c3 step 0 loop',
      expect.stringMatching(/^session \S+ "not a thread"$/),
    ]);
  });
});
