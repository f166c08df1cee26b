/** The version 1 → 2 record steps give the fields version 2 added their documented defaults. */
import { describe, expect, it } from 'vitest';
import { decodeStateEvent, STATE_STREAM } from '@agentstate/core';
import { upcastV1Session, upcastV1Turn } from '../src/log/legacy/v1.js';

const ENVELOPE = { syncVersion: 1, originInstanceId: 'i', updatedHlc: { wall: 1, counter: 0 }, lastWriterId: 'i', deleted: false };
const T = '2026-01-01T00:00:00.000Z';
const SESSION_V1 = { id: 's', title: '', model: '', createdAt: T, updatedAt: T, ...ENVELOPE };
const TURN_V1 = { id: 't', sessionId: 's', seq: 1, role: 'user', content: 'hello', createdAt: T, ...ENVELOPE };

describe('version 1 upcasters', () => {
  it('give a session the global scope and empty metadata', () => {
    expect(upcastV1Session(SESSION_V1)).toEqual({ ...SESSION_V1, scope: [], metadata: {} });
  });

  it('give a turn one text part from its content (none for empty content) and empty metadata', () => {
    expect(upcastV1Turn(TURN_V1)).toEqual({ ...TURN_V1, parts: [{ type: 'text', text: 'hello' }], metadata: {} });
    expect(upcastV1Turn({ ...TURN_V1, content: '' })).toMatchObject({ parts: [], metadata: {} });
  });

  it('read a version 1 turn event as a version 2 one', () => {
    const event = {
      stream: STATE_STREAM,
      seq: 2,
      type: 'session.turn_appended',
      time: T,
      schemaVersion: 1,
      payload: { session: SESSION_V1, turn: TURN_V1 },
    };
    const change = decodeStateEvent(event);
    expect(change.payload).toEqual({
      session: { ...SESSION_V1, scope: [], metadata: {} },
      turn: { ...TURN_V1, parts: [{ type: 'text', text: 'hello' }], metadata: {} },
    });
  });
});
