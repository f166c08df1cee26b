/** Input arbitraries: what callers hand to the stores. Every value is valid (it passes core's input schemas), unless the name says otherwise. */
import type {
  AppendTurnInput,
  CreateSessionInput,
  RecallOptions,
  UpdateMemoryInput,
  UpdateSessionInput,
  UpsertSkillInput,
  WriteMemoryInput,
} from '@agentstate/core';
import { LIMITS, TURN_ROLES } from '@agentstate/core';
import fc from 'fast-check';
import { arbInstant, arbScope, arbSlug } from './records.js';
import { arbQuery, arbText, arbUnicodeText, arbWord } from './text.js';
import { arbMetadata } from './metadata.js';

/** `sessions.create` input (no caller ids, so any number of them can be created). */
export function arbCreateSessionInput(): fc.Arbitrary<CreateSessionInput> {
  return fc.record(
    { title: arbUnicodeText(), model: fc.constantFrom('model-a', 'model-b', ''), scope: arbScope(), createdAt: arbInstant() },
    { requiredKeys: [] },
  );
}

/** `sessions.update` changes: any of title, metadata and scope, and a `syncVersion` that may be stale. */
export function arbUpdateSessionInput(): fc.Arbitrary<UpdateSessionInput> {
  return fc.record({ title: arbUnicodeText(), metadata: arbMetadata(), scope: arbScope(), syncVersion: fc.nat(3) }, { requiredKeys: [] });
}

/** `sessions.appendTurn` input for the given session id(s). */
export function arbAppendTurnInput(sessionId: string | fc.Arbitrary<string>): fc.Arbitrary<AppendTurnInput> {
  return fc.record({
    sessionId: typeof sessionId === 'string' ? fc.constant(sessionId) : sessionId,
    role: fc.constantFrom(...TURN_ROLES),
    content: fc.oneof(arbText(), arbUnicodeText()),
  });
}

/** `skills.upsert` input: slugs and scopes from small pools so that upserts update each other; `syncVersion` is usually absent. */
export function arbUpsertSkillInput(): fc.Arbitrary<UpsertSkillInput> {
  const fields = fc.record(
    {
      slug: arbSlug(),
      name: arbWord(),
      body: arbText(),
      tags: fc.array(arbWord(), { maxLength: 4 }),
      scope: arbScope(),
      check: fc.constantFrom('', 'npm test'),
      uses: fc.nat(20),
      wins: fc.nat(20),
    },
    { requiredKeys: ['slug'] },
  );
  // Optimistic concurrency is opt-in: a syncVersion (which may well be stale) in one upsert of five.
  const syncVersion = fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.nat(3), weight: 1 });
  return fc.tuple(fields, syncVersion).map(([input, v]) => {
    // wins never exceed uses within one input (against the stored uses, a store may still refuse them).
    const counted = input.uses !== undefined && input.wins !== undefined && input.wins > input.uses ? { ...input, wins: input.uses } : input;
    return v === undefined ? counted : { ...counted, syncVersion: v };
  });
}

/** The fields `memory.write` and `memory.update` share, but the scope (which only a write sets). */
const memoryFields = () => ({
  content: arbText(),
  kind: fc.constantFrom('fact', 'preference', 'note'),
  source: fc.constantFrom('', 'chat', 'tool'),
  key: fc.constantFrom('k1', 'k2', null),
  metadata: arbMetadata(),
  expiresAt: fc.option(arbInstant(), { nil: null }),
});

/** `memory.write` input. */
export function arbWriteMemoryInput(): fc.Arbitrary<WriteMemoryInput> {
  return fc.record({ ...memoryFields(), scope: arbScope() }, { requiredKeys: ['content'] });
}

/** `memory.update` changes; `syncVersion` is usually absent. */
export function arbUpdateMemoryInput(): fc.Arbitrary<UpdateMemoryInput> {
  return fc.record({ ...memoryFields(), syncVersion: fc.nat(3) }, { requiredKeys: [] });
}

/** Lexical `memory.recall` options. */
export function arbRecallOptions(): fc.Arbitrary<RecallOptions> {
  return fc.record(
    {
      query: arbQuery(),
      scope: arbScope(),
      kinds: fc.array(fc.constantFrom('fact', 'preference', 'note'), { minLength: 1, maxLength: 2 }),
      limit: fc.integer({ min: 1, max: 50 }),
    },
    { requiredKeys: [] },
  );
}

/** A string no store accepts as text: it holds NUL, or it is over the given limit. */
export function arbInvalidText(limit: number = LIMITS.shortText): fc.Arbitrary<string> {
  return fc.oneof(
    fc.tuple(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })).map(([a, b]) => `${a}\u0000${b}`),
    fc.integer({ min: 1, max: 3 }).map((extra) => 'x'.repeat(limit + extra)),
  );
}
