/** Record arbitraries: scopes, instants, HLCs, envelopes and the four stored record shapes. Every value passes core's record schemas. */
import { type Envelope, formatInstant, type Hlc, type MemoryItem, type Scope, type Session, type Skill, type Turn, TURN_ROLES } from '@agentstate/core';
import fc from 'fast-check';
import { arbJsonObject, arbParts } from './parts.js';
import { arbMetadata } from './metadata.js';
import { arbText, arbUnicodeText, arbWord } from './text.js';

const MIN_MS = Date.UTC(2000, 0, 1);
const MAX_MS = Date.UTC(2100, 0, 1);

/** A canonical instant (fixed-width ISO-8601 UTC with milliseconds) between 2000 and 2100. */
export function arbInstant(): fc.Arbitrary<string> {
  return fc.integer({ min: MIN_MS, max: MAX_MS }).map(formatInstant);
}

/** `createdAt` and `updatedAt` from two instants, the earlier first. */
function stamps(times: [string, string]): { createdAt: string; updatedAt: string } {
  const [createdAt, updatedAt] = times.sort();
  return { createdAt, updatedAt };
}

/** A hybrid logical timestamp with a non-zero wall. */
export function arbHlc(): fc.Arbitrary<Hlc> {
  return fc.record({ wall: fc.integer({ min: 1, max: MAX_MS }), counter: fc.integer({ min: 0, max: 0xffff }) });
}

/** A record id: a UUIDv7, or a short caller-chosen id. */
export function arbId(): fc.Arbitrary<string> {
  return fc.oneof(fc.uuid({ version: 7 }), fc.stringMatching(/^[a-z][a-z0-9-]{0,31}$/));
}

/** The labels scope paths are drawn from: few, so that paths collide, nest and share prefixes. */
export const SCOPE_LABELS = ['a', 'b', 'a/b', 'a",', 'project:alpha', 'é'] as const;

/** A scope path of up to three labels from {@link SCOPE_LABELS}; the global scope is frequent. */
export function arbScope(): fc.Arbitrary<Scope> {
  return fc.array(fc.constantFrom(...SCOPE_LABELS), { maxLength: 3 });
}

/** A sync envelope. */
export function arbEnvelope(): fc.Arbitrary<Envelope> {
  return fc.record({
    syncVersion: fc.integer({ min: 1, max: 1000 }),
    originInstanceId: arbId(),
    updatedHlc: arbHlc(),
    lastWriterId: arbId(),
    deleted: fc.boolean(),
  });
}

/** A stored session; `updatedAt` is never before `createdAt`. */
export function arbSession(): fc.Arbitrary<Session> {
  return fc
    .record({
      id: arbId(),
      title: arbUnicodeText(),
      model: fc.constantFrom('', 'model-a', 'model-b'),
      metadata: arbJsonObject(),
      scope: arbScope(),
      times: fc.tuple(arbInstant(), arbInstant()),
      envelope: arbEnvelope(),
    })
    .map(({ times, envelope, ...rest }) => ({ ...rest, ...stamps(times), ...envelope }));
}

/** A stored turn, optionally of a given session. */
export function arbTurn(sessionId?: string): fc.Arbitrary<Turn> {
  return fc
    .record({
      id: arbId(),
      sessionId: sessionId === undefined ? arbId() : fc.constant(sessionId),
      seq: fc.integer({ min: 1, max: 10_000 }),
      role: fc.constantFrom(...TURN_ROLES),
      content: fc.oneof(arbText(), arbUnicodeText()),
      parts: arbParts(),
      metadata: arbJsonObject(),
      createdAt: arbInstant(),
      envelope: arbEnvelope(),
    })
    .map(({ envelope, ...rest }) => ({ ...rest, ...envelope }));
}

/** A slug from a small pool (so upserts collide), or a random word-like slug, always within the slug alphabet. */
export function arbSlug(): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom('deploy', 'lint', 'test', 'rollback'), weight: 3 },
    { arbitrary: fc.stringMatching(/^[a-z][a-z0-9]{0,7}(?:[-_.][a-z0-9]{1,7})?$/), weight: 1 },
  );
}

/** A stored skill; `wins` never exceeds `uses`. */
export function arbSkill(): fc.Arbitrary<Skill> {
  return fc
    .record({
      id: arbId(),
      slug: arbSlug(),
      name: fc.oneof(arbWord(), fc.constant('')),
      body: arbText(),
      tags: fc.array(arbWord(), { maxLength: 4 }),
      scope: arbScope(),
      counts: fc.tuple(fc.nat(1000), fc.nat(1000)),
      check: fc.constantFrom('', 'npm test', 'make check'),
      version: fc.integer({ min: 1, max: 100 }),
      times: fc.tuple(arbInstant(), arbInstant()),
      envelope: arbEnvelope(),
    })
    .map(({ counts, times, envelope, ...rest }) => ({ ...rest, uses: Math.max(...counts), wins: Math.min(...counts), ...stamps(times), ...envelope }));
}

/** A stored memory item. */
export function arbMemoryItem(): fc.Arbitrary<MemoryItem> {
  return fc
    .record({
      id: arbId(),
      kind: fc.constantFrom('fact', 'preference', 'note'),
      content: arbText(),
      scope: arbScope(),
      source: fc.constantFrom('', 'chat', 'tool'),
      key: fc.option(fc.constantFrom('k1', 'k2', 'user.theme'), { nil: null }),
      metadata: arbMetadata(),
      expiresAt: fc.option(arbInstant(), { nil: null }),
      times: fc.tuple(arbInstant(), arbInstant()),
      envelope: arbEnvelope(),
    })
    .map(({ envelope, times, ...rest }) => ({ ...rest, ...stamps(times), ...envelope }));
}
