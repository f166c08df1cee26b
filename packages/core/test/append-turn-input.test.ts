import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendTurnInputSchema, LIMITS, ValidationError } from '../src/index.js';
import { parseAppendTurnInput, parseInput } from '../src/records/inputs.js';

/** What a parse gave: the draft, or the field and message of its `ValidationError`. */
function outcome(parse: () => unknown): unknown {
  try {
    return { ok: parse() };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { field: error.field, message: error.message };
  }
}

const text = fc.oneof(
  fc.constantFrom('', 's', 'hello world', 'a\u0000b', 'a\uD800b', '\uDC00', 'emoji 🙂', 'x'.repeat(LIMITS.id), 'x'.repeat(LIMITS.id + 1)),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
);
const value = fc.oneof(text, fc.constantFrom(undefined, null, 42, true, [], {}, ['a']));
const role = fc.oneof(fc.constantFrom('user', 'assistant', 'tool', 'system', 'robot', 'User', ''), value);
const input = fc.record(
  {
    sessionId: value,
    role,
    content: value,
    id: value,
    operationId: value,
    metadata: fc.constantFrom(undefined, {}, { a: 1 }, 'x'),
    createdAt: fc.constantFrom(undefined, '2026-01-01T00:00:00.000Z', 'soon'),
    parts: fc.constantFrom(undefined, [], [{ type: 'text', text: 'p' }], 'x'),
    extra: value,
  },
  { requiredKeys: [] },
);

describe('parseAppendTurnInput', () => {
  it('gives what the schema gives, draft or refusal, for any input', () => {
    fc.assert(
      fc.property(fc.oneof(input, value, fc.constant(Object.create(null) as unknown)), (raw) => {
        expect(outcome(() => parseAppendTurnInput(raw))).toEqual(outcome(() => parseInput(appendTurnInputSchema, raw)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('gives the schema’s answer for the usual shape at the length limits', () => {
    for (const raw of [
      { sessionId: 'x'.repeat(LIMITS.id), role: 'user', content: 'c'.repeat(LIMITS.longText) },
      { sessionId: 'x'.repeat(LIMITS.id), role: 'user', content: 'c'.repeat(LIMITS.longText + 1) },
      { sessionId: '', role: 'tool', content: '' },
      new (class {
        sessionId = 's';
        role = 'user';
        content = 'from a class';
      })(),
    ]) {
      expect(outcome(() => parseAppendTurnInput(raw))).toEqual(outcome(() => parseInput(appendTurnInputSchema, raw)));
    }
  });
});
