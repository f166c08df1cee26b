import { createInMemoryProvider } from '@agentstate/core';
import type { UIMessage } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createChatStore, toTurnInput } from '../src/index.js';
import { SDKS } from './sdks.js';

/** Keys a stored JSON object may not have (they would reach a prototype). */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A JSON value as it arrives over the wire: parsed, so `-0` is `0`; no prototype keys. */
const json = fc
  .jsonValue({ maxDepth: 3 })
  .map((v) => JSON.parse(JSON.stringify(v)) as unknown)
  .filter((v) => !JSON.stringify(v).match(/"(__proto__|constructor|prototype)":/));

const jsonObject = fc.dictionary(
  fc.string().filter((k) => !PROTOTYPE_KEYS.has(k)),
  json,
  { maxKeys: 3, noNullPrototype: true },
);
const providerMetadata = fc.option(fc.dictionary(fc.constantFrom('openai', 'anthropic'), jsonObject, { maxKeys: 2, noNullPrototype: true }), {
  nil: undefined,
});
const name = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,12}$/);
const id = fc.string({ minLength: 1, maxLength: 20 });
const text = fc.string({ maxLength: 40 });

const textPart = fc.record({
  type: fc.constantFrom('text', 'reasoning'),
  text,
  state: fc.option(fc.constantFrom('streaming', 'done'), { nil: undefined }),
  providerMetadata,
});
const filePart = fc.record({
  type: fc.constant('file'),
  mediaType: fc.constantFrom('image/png', 'application/pdf', 'text'),
  url: fc.oneof(
    fc.webUrl(),
    fc.base64String({ maxLength: 40 }).map((b) => `data:image/png;base64,${b}`),
  ),
  filename: fc.option(fc.string({ minLength: 1, maxLength: 10 }), { nil: undefined }),
});
const sourcePart = fc.record({ type: fc.constant('source-url'), sourceId: id, url: fc.webUrl(), title: fc.option(text, { nil: undefined }) });
const dataPart = fc.record({ type: name.map((n) => `data-${n}`), id: fc.option(id, { nil: undefined }), data: json });
const toolPart = fc.oneof(
  fc.record({ state: fc.constant('input-streaming'), input: fc.option(json, { nil: undefined }) }),
  fc.record({ state: fc.constant('input-available'), input: json, providerExecuted: fc.option(fc.boolean(), { nil: undefined }) }),
  fc.record({ state: fc.constant('output-available'), input: json, output: json, preliminary: fc.option(fc.boolean(), { nil: undefined }) }),
  fc.record({ state: fc.constant('output-error'), input: fc.option(json, { nil: undefined }), errorText: text }),
  fc.record({
    state: fc.constant('output-denied'),
    input: json,
    approval: fc.record({ id, approved: fc.constant(false), reason: fc.option(text, { nil: undefined }) }),
  }),
);
const staticTool = fc.tuple(name, id, toolPart).map(([tool, callId, p]) => ({ type: `tool-${tool}`, toolCallId: callId, ...p }));
const dynamicTool = fc.tuple(name, id, toolPart).map(([tool, callId, p]) => ({ type: 'dynamic-tool', toolName: tool, toolCallId: callId, ...p }));
const part = fc.oneof(textPart, filePart, sourcePart, dataPart, staticTool, dynamicTool, fc.constant({ type: 'step-start' }));

/** A message; the SDK's validation wants at least one part, storage does not. */
const messageOf = (minParts: number) =>
  fc
    .record({
      id: fc.oneof(id, fc.constant('')),
      role: fc.constantFrom('system', 'user', 'assistant'),
      metadata: fc.option(jsonObject, { nil: undefined }),
      parts: fc.array(part, { minLength: minParts, maxLength: 5 }),
    })
    .map((m) => m as UIMessage);
const message = messageOf(0);

/** Successive versions of one chat: each keeps a prefix of the one before and adds messages (a regenerate, an append). */
const versions = fc.array(fc.tuple(fc.nat(), fc.array(message, { maxLength: 3 })), { minLength: 1, maxLength: 4 }).map((steps) => {
  const out: UIMessage[][] = [];
  let current: UIMessage[] = [];
  for (const [keep, added] of steps) {
    current = [...current.slice(0, keep % (current.length + 1)), ...added];
    out.push(current);
  }
  return out;
});

describe('a chat saved and loaded', () => {
  it('reads back every version exactly as saved (property)', async () => {
    await fc.assert(
      fc.asyncProperty(versions, async (chat) => {
        const provider = createInMemoryProvider();
        const chats = createChatStore({ provider, scope: ['user', 'u'] });
        for (const messages of chat) {
          await chats.saveChat({ chatId: 'chat', messages });
          // Stored as JSON: a field set to `undefined` reads back absent.
          expect(await chats.loadChat('chat')).toStrictEqual(JSON.parse(JSON.stringify(messages)));
        }
        await provider.close();
      }),
      { numRuns: 150 },
    );
  });

  it.each(SDKS)('loads messages that pass validateUIMessages of $name (property)', async (sdk) => {
    await fc.assert(
      fc.asyncProperty(fc.array(messageOf(1), { minLength: 1, maxLength: 4 }), async (messages) => {
        const provider = createInMemoryProvider();
        const chats = createChatStore({ provider });
        await chats.saveChat({ chatId: 'chat', messages });
        const loaded = await chats.loadChat('chat');
        await expect(sdk.ai.validateUIMessages({ messages: loaded })).resolves.toHaveLength(messages.length);
        await provider.close();
      }),
      { numRuns: 60 },
    );
  });

  it('reads a chat whose tool results sit in turns of their own, as other clients write them, as the chat (property)', async () => {
    const callIds = (messages: UIMessage[]) => messages.flatMap((m) => m.parts.flatMap((p) => ('toolCallId' in p ? [p.toolCallId] : [])));
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 4 }), async (messages) => {
        // One call per id: a call id used twice is ambiguous once its result is apart from it.
        fc.pre(new Set(callIds(messages)).size === callIds(messages).length);
        const provider = createInMemoryProvider();
        await provider.sessions.create({ id: 'chat' });
        const split = messages.flatMap((m, i) => {
          const turn = toTurnInput(m, i);
          const results = turn.parts!.filter((p) => p.type === 'tool-result');
          const rest = { ...turn, parts: turn.parts!.filter((p) => p.type !== 'tool-result') };
          return results.length === 0 ? [turn] : [rest, { role: 'tool' as const, parts: results }];
        });
        if (split.length > 0) await provider.sessions.appendTurns('chat', split);
        expect(await createChatStore({ provider }).loadChat('chat')).toStrictEqual(JSON.parse(JSON.stringify(messages)));
        await provider.close();
      }),
      { numRuns: 60 },
    );
  });
});
