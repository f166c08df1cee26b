/**
 * The stored form of `session.turn_appended` (schema version 3): the turn
 * alone, without the fields its other fields imply, and read back exactly.
 */
import { describe, expect, it } from 'vitest';
import type { LogEvent, Part, Turn } from '../src/index.js';
import { CorruptionError, createInMemoryProvider, decodeStateEvent, EventTypes, STATE_SCHEMA_VERSION, STATE_STREAM } from '../src/index.js';

const toolCall: Part = { type: 'tool-call', callId: 'c1', toolName: 'search', input: { q: 'x' } };

/** Appends `inputs` to a new session; returns each returned turn with the payload stored for it. */
async function stored(inputs: Record<string, unknown>[]): Promise<{ turn: Turn; payload: Record<string, unknown>; event: LogEvent }[]> {
  const p = createInMemoryProvider();
  const session = await p.sessions.create({ title: 't' });
  const turns: Turn[] = [];
  for (const input of inputs) turns.push(await p.sessions.appendTurn({ sessionId: session.id, role: 'user', ...input }));
  const events = (await p.log.read({ stream: STATE_STREAM })).filter((e) => e.type === EventTypes.TurnAppended);
  return events.map((event, i) => ({ turn: turns[i]!, payload: (event.payload as { turn: Record<string, unknown> }).turn, event }));
}

describe('a stored turn_appended', () => {
  it('keeps only what the reader cannot derive, and reads back the turn exactly', async () => {
    const cases = await stored([
      { content: 'plain text' },
      { content: '' },
      { parts: [{ type: 'text', text: 'a' }, toolCall] },
      { content: 'differs', parts: [{ type: 'text', text: 'from its parts' }] },
      { content: 'x', parts: [{ type: 'text', text: 'x', metadata: { k: 1 } }] },
      { content: 'with metadata', metadata: { source: 'cli' } },
      { parts: [{ type: 'text', text: '' }] },
    ]);
    const keys = cases.map((c) => Object.keys(c.payload).sort());
    const envelope = ['createdAt', 'id', 'originInstanceId', 'role', 'seq', 'sessionId', 'updatedHlc'];
    expect(keys).toEqual([
      [...envelope, 'content'].sort(),
      [...envelope, 'content'].sort(),
      [...envelope, 'parts'].sort(),
      [...envelope, 'content', 'parts'].sort(),
      // A text part with metadata is more than the content gives, but the content is still its text.
      [...envelope, 'parts'].sort(),
      [...envelope, 'content', 'metadata'].sort(),
      // An empty text part is more than '' gives (no part at all): kept.
      [...envelope, 'parts'].sort(),
    ]);
    for (const { turn, event } of cases) {
      expect(event.schemaVersion).toBe(STATE_SCHEMA_VERSION);
      expect(decodeStateEvent(event).payload).toEqual({ turn });
      expect(decodeStateEvent(event, { trusted: true }).payload).toEqual({ turn });
      // A validated event is expanded in one step, to a turn with the stamper's key order.
      expect(Object.keys((decodeStateEvent(event, { trusted: true }).payload as { turn: Turn }).turn)).toEqual(Object.keys(turn));
    }
  });

  it('is refused when a field is present but malformed, rather than filled in', async () => {
    const { event, payload } = (await stored([{ content: 'hi' }]))[0]!;
    for (const bad of [{ syncVersion: null }, { deleted: 'no' }, { metadata: null }, { parts: 'hi' }, { content: undefined }]) {
      const turn = { ...payload, ...bad };
      expect(() => decodeStateEvent({ ...event, payload: { turn } }), JSON.stringify(bad)).toThrow(CorruptionError);
    }
  });
});
