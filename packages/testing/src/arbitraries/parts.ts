/**
 * Structured-turn arbitraries: JSON values and metadata objects that survive core's JSON checks
 * unchanged, and turn parts of every type. What they generate reads back equal (no `-0`, no
 * prototype keys, well-formed text).
 */
import type { JsonObject, JsonValue, Part } from '@agentstate/core';
import fc from 'fast-check';
import { arbText, arbUnicodeText, arbWord } from './text.js';

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** An object key: a word or short Unicode text, never a prototype key. */
function arbKey(): fc.Arbitrary<string> {
  return fc.oneof(arbWord(), arbUnicodeText({ maxLength: 8 })).filter((k) => !PROTOTYPE_KEYS.has(k));
}

/** A finite number as JSON keeps it (`-0` is `0`). */
function arbJsonNumber(): fc.Arbitrary<number> {
  return fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map((n) => (n === 0 ? 0 : n));
}

/** A JSON value nested at most `maxDepth` levels. */
export function arbJsonValue(maxDepth = 3): fc.Arbitrary<JsonValue> {
  const { value } = fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth },
      fc.constant(null),
      fc.boolean(),
      arbJsonNumber(),
      arbUnicodeText(),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(arbKey(), tie('value'), { maxKeys: 4 }),
    ),
  }));
  return value;
}

/** A JSON object of random keys and values, as session, turn and part metadata may hold. */
export function arbJsonObject(): fc.Arbitrary<JsonObject> {
  return fc.dictionary(arbKey(), arbJsonValue(2), { maxKeys: 4 });
}

/** A provider's tool call id. */
function arbCallId(): fc.Arbitrary<string> {
  return fc.stringMatching(/^call_[A-Za-z0-9]{1,24}$/);
}

/** Standard base64 of a few random bytes. */
function arbBase64(): fc.Arbitrary<string> {
  return fc.uint8Array({ maxLength: 48 }).map((bytes) => Buffer.from(bytes).toString('base64'));
}

/** A part's optional provider metadata: usually absent. */
function withMetadata<P extends Part>(part: fc.Arbitrary<P>): fc.Arbitrary<P> {
  return fc.tuple(part, fc.option(arbJsonObject(), { freq: 3 })).map(([p, metadata]) => (metadata === null ? p : { ...p, metadata }));
}

/** One part of any type. */
export function arbPart(): fc.Arbitrary<Part> {
  const text = fc.oneof(arbText(), arbUnicodeText());
  const name = arbWord();
  const file = fc
    .record({ mediaType: fc.constantFrom('image/png', 'application/pdf', 'text/plain'), filename: arbWord() }, { requiredKeys: ['mediaType'] })
    .chain((base) =>
      fc.oneof(
        fc.webUrl().map((url) => ({ type: 'file' as const, ...base, url })),
        arbBase64().map((data) => ({ type: 'file' as const, ...base, data })),
      ),
    );
  return withMetadata<Part>(
    fc.oneof(
      text.map((t) => ({ type: 'text' as const, text: t })),
      text.map((t) => ({ type: 'reasoning' as const, text: t })),
      fc.record({ callId: arbCallId(), toolName: name, input: arbJsonValue() }).map((p) => ({ type: 'tool-call' as const, ...p })),
      fc.record({ callId: arbCallId(), toolName: name, output: arbJsonValue(), isError: fc.boolean() }).map((p) => ({ type: 'tool-result' as const, ...p })),
      file,
      fc.record({ name, data: arbJsonValue() }).map((p) => ({ type: 'data' as const, ...p })),
    ),
  );
}

/** A turn's parts. */
export function arbParts(maxLength = 5): fc.Arbitrary<Part[]> {
  return fc.array(arbPart(), { maxLength });
}
