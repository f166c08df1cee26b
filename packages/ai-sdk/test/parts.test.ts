import { describe, expect, it } from 'vitest';
import { ValidationError } from '@agentstate/core';
import { fromTurnParts, toTurnParts, type UIPartLike } from '../src/index.js';
import { SDKS } from './sdks.js';

/** One message of every part type and tool state both majors know. */
const COMMON_PARTS: UIPartLike[] = [
  { type: 'step-start' },
  { type: 'text', text: 'Hello', state: 'done', providerMetadata: { openai: { itemId: 'x' } } },
  { type: 'reasoning', text: 'Thinking', state: 'streaming' },
  { type: 'file', mediaType: 'image/png', url: 'https://example.com/a.png', filename: 'a.png' },
  { type: 'file', mediaType: 'image/png', url: `data:image/png;base64,${'A'.repeat(9000)}` },
  { type: 'source-url', sourceId: 's1', url: 'https://example.com', title: 'Example' },
  { type: 'source-document', sourceId: 's2', mediaType: 'application/pdf', title: 'Doc' },
  { type: 'data-weather', id: 'w1', data: { city: 'Paris', temp: 21 } },
  { type: 'tool-weather', toolCallId: 'c1', state: 'input-streaming', input: { city: 'Pa' } },
  { type: 'tool-weather', toolCallId: 'c2', state: 'input-streaming' },
  { type: 'tool-weather', toolCallId: 'c3', state: 'input-available', input: { city: 'Paris' }, providerExecuted: true },
  { type: 'tool-weather', toolCallId: 'c4', state: 'output-available', input: { city: 'Paris' }, output: { temp: 21 }, preliminary: false },
  { type: 'tool-weather', toolCallId: 'c5', state: 'output-error', input: { city: 'Atlantis' }, errorText: 'no such city' },
  { type: 'tool-weather', toolCallId: 'c6', state: 'output-error', input: undefined, errorText: 'bad input' },
  { type: 'tool-weather', toolCallId: 'c7', state: 'approval-requested', input: { city: 'Paris' }, approval: { id: 'a1' } },
  { type: 'tool-weather', toolCallId: 'c8', state: 'output-denied', input: { city: 'Paris' }, approval: { id: 'a2', approved: false, reason: 'no' } },
  { type: 'dynamic-tool', toolName: 'search', toolCallId: 'c9', state: 'output-available', input: { q: 'x' }, output: 'found' },
  { type: 'dynamic-tool', toolName: 'search', toolCallId: 'c10', state: 'input-available', input: null },
];

/** Parts only ai 7 knows. */
const V7_PARTS: UIPartLike[] = [
  { type: 'custom', kind: 'openai.compaction', providerMetadata: { openai: { id: 'k' } } },
  { type: 'reasoning-file', mediaType: 'image/png', url: 'https://example.com/r.png' },
  { type: 'steering-message', id: 'sm1', parts: [{ type: 'text', text: 'also check Lyon' }] },
];

/** `undefined` fields are absent in JSON, so they read back absent. */
const withoutUndefined = (parts: UIPartLike[]) => parts.map((p) => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)));

describe('UI parts ↔ turn parts', () => {
  it('maps each part onto its natural counterpart, the UI-only fields in metadata.ui', () => {
    const parts = toTurnParts(COMMON_PARTS);
    expect(parts.map((p) => p.type)).toEqual([
      'data', // step-start, kept whole
      'text',
      'reasoning',
      'file',
      'data', // a data URL over the url limit, kept whole
      'data', // source-url, kept whole
      'data', // source-document, kept whole
      'data',
      'tool-call',
      'tool-call',
      'tool-call',
      'tool-call',
      'tool-result',
      'tool-call',
      'tool-result',
      'tool-call',
      'tool-result',
      'tool-call',
      'tool-call',
      'tool-call',
      'tool-result',
      'tool-call',
    ]);
    expect(parts[1]).toEqual({ type: 'text', text: 'Hello', metadata: { ui: { state: 'done', providerMetadata: { openai: { itemId: 'x' } } } } });
    expect(parts[7]).toEqual({ type: 'data', name: 'weather', data: { city: 'Paris', temp: 21 }, metadata: { ui: { id: 'w1' } } });
    expect(parts[11]).toMatchObject({ type: 'tool-call', callId: 'c4', toolName: 'weather', input: { city: 'Paris' } });
    expect(parts[12]).toEqual({ type: 'tool-result', callId: 'c4', toolName: 'weather', output: { temp: 21 }, isError: false });
    expect(parts[14]).toEqual({ type: 'tool-result', callId: 'c5', toolName: 'weather', output: 'no such city', isError: true });
  });

  it('reads back exactly what was written, including v7-only parts', () => {
    const all = [...COMMON_PARTS, ...V7_PARTS];
    expect(fromTurnParts(toTurnParts(all))).toStrictEqual(withoutUndefined(all));
  });

  it('reads turn parts written by another client as the SDK would show them', () => {
    expect(
      fromTurnParts([
        { type: 'text', text: 'hi' },
        { type: 'file', mediaType: 'text/plain', data: 'aGk=' },
        { type: 'tool-call', callId: 'a', toolName: 'add', input: { x: 1 } },
        { type: 'tool-result', callId: 'a', toolName: 'add', output: 2, isError: false },
        { type: 'tool-call', callId: 'b', toolName: 'add', input: { x: 2 } },
        { type: 'tool-result', callId: 'z', toolName: 'add', output: 'boom', isError: true },
      ]),
    ).toStrictEqual([
      { type: 'text', text: 'hi' },
      { type: 'file', mediaType: 'text/plain', url: 'data:text/plain;base64,aGk=' },
      { type: 'tool-add', toolCallId: 'a', state: 'output-available', output: 2, input: { x: 1 } },
      { type: 'tool-add', toolCallId: 'b', state: 'input-available', input: { x: 2 } },
      { type: 'tool-add', toolCallId: 'z', input: null, state: 'output-error', errorText: 'boom' },
    ]);
  });

  it('refuses, naming the part, a part that cannot be stored even whole', () => {
    expect(() =>
      toTurnParts(
        [
          { type: 'text', text: 'ok' },
          { type: 'data-x', data: { n: Number.NaN } },
        ],
        'messages.3.parts',
      ),
    ).toThrow(/invalid messages\.3\.parts\.1: a data-x part that cannot be stored/);
  });

  it('refuses, naming the part, a part without a string type, or no object at all', () => {
    const given = [{ text: 'no type' }, { type: 7 }, null, 'text'] as unknown as UIPartLike[];
    for (const [index, part] of given.entries()) {
      let caught: unknown;
      try {
        toTurnParts([{ type: 'text', text: 'ok' }, part], 'messages.2.parts');
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(part)).toBeInstanceOf(ValidationError);
      expect((caught as ValidationError).field, String(index)).toBe('messages.2.parts.1.type');
    }
  });

  describe.each(SDKS)('with $name', (sdk) => {
    it('the parts read back pass validateUIMessages', async () => {
      const parts = sdk.v7Parts ? [...COMMON_PARTS, ...V7_PARTS] : COMMON_PARTS;
      const messages = [{ id: 'm1', role: 'assistant' as const, parts: fromTurnParts(toTurnParts(parts)) }];
      await expect(sdk.ai.validateUIMessages({ messages })).resolves.toHaveLength(1);
    });
  });
});
