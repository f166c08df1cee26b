/**
 * Working memory (docs/contract.md §4, "Working memory"): a pinned document
 * per scope, kept as the memory item of that scope holding the reserved key
 * {@link WORKING_MEMORY}. Versions, history, time travel, export, purge, sync
 * and retention are those of memory items; this adds the replace and patch
 * rules, the token limit and the version check, decided inside the write.
 */
import { z } from 'zod';
import { ConflictError, NotFoundError, TokenLimitError, ValidationError } from '../errors.js';
import { EventTypes } from '../log/events.js';
import { copyMemoryItem } from '../records/copy.js';
import { idField, longTextField } from '../records/fields.js';
import { LIMITS } from '../records/limits.js';
import { parseInput, scopeInputSchema, scopeOptionsSchema, type ScopeOptions } from '../records/inputs.js';
import type { MemoryItem } from '../records/records.js';
import { toScope } from '../records/scope.js';
import { memoryId } from '../ids/key-id.js';
import { isExpired } from '../write/stamper.js';
import type { Engine } from './engine.js';
import { type OperationSpec, operationCall, storeOperations } from './operations.js';
import { counterFor, tokenCounterSchema } from './tokens.js';
import type { RetentionJudge } from './retention-policies.js';
import type { MemoryStore } from './types.js';

/** The key and the kind of a scope's working memory item: recall leaves that kind out unless `kinds` names it. */
export const WORKING_MEMORY = 'working-memory';

/** The token limit of a working memory document when a write names none. */
export const DEFAULT_WORKING_MEMORY_TOKENS = 2000;

const OPERATIONS = storeOperations('workingMemory', {
  replace: [EventTypes.MemoryWritten, EventTypes.MemoryUpdated],
  patch: [EventTypes.MemoryWritten, EventTypes.MemoryUpdated],
});

/** What every working memory write takes beside its text. */
const writeFields = {
  scope: scopeInputSchema.optional(),
  /** The document's `syncVersion` the write expects; 0: that the scope has none yet. */
  expectedVersion: z.int().min(0).optional(),
  maxTokens: z.int().min(1).optional(),
  counter: tokenCounterSchema.optional(),
  operationId: idField.optional(),
};

const replaceSchema = z.strictObject({ ...writeFields, text: longTextField.min(1, 'must not be empty') });

const patchSchema = z
  .strictObject({
    ...writeFields,
    append: longTextField.min(1, 'must not be empty').optional(),
    find: longTextField.min(1, 'must not be empty').optional(),
    replace: longTextField.optional(),
  })
  .refine((p) => (p.append === undefined ? p.find !== undefined && p.replace !== undefined : p.find === undefined && p.replace === undefined), {
    message: 'give either append, or find and replace',
  });

/** `workingMemory.replace` input. */
export type ReplaceWorkingMemoryInput = z.input<typeof replaceSchema>;

/** `workingMemory.patch` input: `append` a text, or `find` a text the document holds exactly once and `replace` it. */
export type PatchWorkingMemoryInput = z.input<typeof patchSchema>;

/** A scope's pinned document (docs/contract.md §4, "Working memory"). */
export interface WorkingMemoryStore {
  /** The working memory of exactly `options.scope` (default: global): its memory item, or `null` when there is none. */
  get(options?: ScopeOptions): Promise<MemoryItem | null>;
  /** Replaces the document with `text` (creating it); over the token limit, a `TokenLimitError` and nothing written. */
  replace(input: ReplaceWorkingMemoryInput): Promise<MemoryItem>;
  /** Appends to the document (creating it), or replaces the one occurrence of `find` in it. */
  patch(input: PatchWorkingMemoryInput): Promise<MemoryItem>;
}

/** The text after `patch`: appended on a line of its own, or its one occurrence of `find` replaced. */
export function patchedText(current: string, patch: { append?: string | undefined; find?: string | undefined; replace?: string | undefined }): string {
  if (patch.append !== undefined) return current === '' || current.endsWith('\n') ? current + patch.append : `${current}\n${patch.append}`;
  const find = patch.find!;
  const at = current.indexOf(find);
  if (at < 0) throw new ValidationError('find', 'the working memory does not hold this text');
  if (current.indexOf(find, at + 1) >= 0) throw new ValidationError('find', 'the working memory holds this text more than once: give more of it');
  return current.slice(0, at) + patch.replace! + current.slice(at + find.length);
}

/** The working memory store over the memory store's reads and the engine's writes. */
export function createWorkingMemoryStore(
  engine: Engine,
  memory: Pick<MemoryStore, 'getByKey'>,
  judge: () => Promise<Pick<RetentionJudge, 'memory'>>,
): WorkingMemoryStore {
  const write = async (spec: OperationSpec, draft: z.output<typeof replaceSchema> | z.output<typeof patchSchema>, next: (current: string) => string) => {
    const counter = await counterFor(draft.counter);
    const maxTokens = draft.maxTokens ?? DEFAULT_WORKING_MEMORY_TOKENS;
    const scope = toScope(draft.scope);
    const { counter: _counter, ...hashed } = draft;
    const retention = await judge();
    const change = await engine.mutate(
      async (tx) => {
        const found = await tx.memoryWithKey(scope, WORKING_MEMORY);
        // A document expiry or a retention policy hides reads as none, and a write starts afresh from it.
        const holder = found && !isExpired(found, engine.stamper.now()) && !retention.memory(found) ? found : undefined;
        const version = holder?.syncVersion ?? 0;
        if (draft.expectedVersion !== undefined && draft.expectedVersion !== version)
          throw new ConflictError(`working memory is at version ${version}, not ${draft.expectedVersion}`);
        const text = next(holder?.content ?? '');
        // A patch can empty the document or grow it past what a memory item holds: refused like any bad content.
        if (text === '') throw new ValidationError('replace', 'would leave the working memory empty');
        if (text.length > LIMITS.longText) throw new ValidationError('append', `would make the working memory longer than ${LIMITS.longText} characters`);
        const tokens = counter.count(text);
        if (tokens > maxTokens) throw new TokenLimitError('text', tokens, maxTokens);
        const deleted = found ? undefined : await tx.memoryItem(memoryId(scope, WORKING_MEMORY));
        return engine.stamper.writeMemory({ content: text, scope, key: WORKING_MEMORY, kind: WORKING_MEMORY }, deleted, found);
      },
      operationCall(spec, hashed),
    );
    return copyMemoryItem(change.payload.item);
  };
  return {
    async get(options = {}) {
      const { scope } = parseInput(scopeOptionsSchema, options);
      try {
        return await memory.getByKey(WORKING_MEMORY, { scope: toScope(scope) });
      } catch (error) {
        if (error instanceof NotFoundError) return null;
        throw error;
      }
    },
    async replace(input) {
      const draft = parseInput(replaceSchema, input);
      return write(OPERATIONS.replace, draft, () => draft.text);
    },
    async patch(input) {
      const draft = parseInput(patchSchema, input);
      return write(OPERATIONS.patch, draft, (current) => patchedText(current, draft));
    },
  };
}
