/** One-line event summaries name what structured turns and transcript operations did. */
import { createInMemoryProvider, STATE_STREAM } from '@agentstate/core';
import { describe, expect, it } from 'vitest';
import { summarizeEvent } from '../src/events.js';

describe('event summaries', () => {
  it('show a turn without text by its parts, and the turns a transcript operation removed and added', async () => {
    const p = createInMemoryProvider({ instanceId: 'i' });
    const s = await p.sessions.create({ id: 's' });
    await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'look it up' });
    await p.sessions.appendTurn({
      sessionId: s.id,
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: '' },
        { type: 'tool-call', callId: 'c1', toolName: 'lookupOrder', input: { order: 1 } },
      ],
    });
    const last = await p.sessions.removeLastTurn(s.id);
    await p.sessions.replaceSuffix(s.id, { expected: [(await p.sessions.turns(s.id))[0]!.id], turns: [{ role: 'user', content: 'again' }] });
    const lines = (await p.log.read({ stream: STATE_STREAM })).map(summarizeEvent);
    expect(lines.slice(1)).toEqual([
      'session s #1 user: "look it up"',
      'session s #2 assistant: [reasoning, tool-call lookupOrder]',
      'session s removed #2',
      'session s removed #1, added #3',
    ]);
    expect(last.seq).toBe(2);
  });

  it('say which thread, checkpoint, step and task a checkpoint event is about', async () => {
    const p = createInMemoryProvider({ instanceId: 'i' });
    const key = { threadId: 't1', namespace: '' };
    await p.checkpoints.put({ ...key, checkpointId: 'c1', parentCheckpointId: null, checkpoint: {}, metadata: { step: -1, source: 'input' } });
    await p.checkpoints.put({ ...key, checkpointId: 'c2', parentCheckpointId: 'c1', checkpoint: {}, metadata: {} });
    await p.checkpoints.putWrites({
      ...key,
      namespace: 'agent:abc',
      checkpointId: 'c2',
      taskId: 'task-1',
      writes: [
        { idx: 0, channel: 'messages', value: 1 },
        { idx: 1, channel: 'messages', value: 2 },
        { idx: 2, channel: 'branch:to:tools', value: null },
      ],
    });
    await p.checkpoints.deleteThread('t1');
    expect((await p.log.read({ stream: STATE_STREAM })).map(summarizeEvent)).toEqual([
      'thread t1 checkpoint c1 step -1 input',
      'thread t1 checkpoint c2 after c1',
      'thread t1 ("agent:abc") checkpoint c2 task task-1 wrote messages, branch:to:tools',
      'thread t1 deleted',
    ]);
  });
});
