/**
 * Input schemas of every store method. Validation happens here, before
 * anything is stamped, so a refused call writes nothing (docs/contract.md §4).
 * Every object is strict: an unknown key is a mistake (a misspelt or retired
 * option), refused rather than dropped, except where the contract says otherwise.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { TOKEN_MATCHES } from '../matching/lexical.js';
import { normalizeInstant } from '../time/instant.js';
import {
  checkField,
  countField,
  idField,
  isPlainText,
  longTextField,
  shortTextField,
  slugInputField,
  tagsField,
  textField,
  WINS_WITHIN_USES,
  winsWithinUses,
} from './fields.js';
import { metadataField } from './json.js';
import { LIMITS } from './limits.js';
import { partsField } from './parts.js';
import { memoryKeySchema, scopeSchema, TURN_ROLES } from './records.js';
import { toScope } from './scope.js';
import { whereInputSchema } from './where.js';

/** The option of every write that makes it idempotent. */
const idempotent = {
  /** Makes the write idempotent: a retry with this id and the same input returns the first result (docs/contract.md §4). */
  operationId: idField.optional(),
};

/** An ISO-8601 date, or date-time with a zone, of a day that exists; normalised to the canonical instant. */
const instantInput = z.string().transform((value, ctx) => {
  const instant = normalizeInstant(value);
  if (instant === undefined) {
    ctx.addIssue({ code: 'custom', message: 'expected an existing ISO-8601 date-time with a zone, such as 2026-11-29T16:54:02.123Z' });
    return z.NEVER;
  }
  return instant;
});

/** A scope as callers write it: a path of labels; it comes out as a checked, copied path. */
export const scopeInputSchema = z
  .array(z.string())
  .readonly()
  .transform((input) => toScope(input))
  .pipe(scopeSchema);

/** `sessions.create` input. */
export const createSessionInputSchema = z.strictObject({
  ...idempotent,
  id: idField.optional(),
  title: shortTextField.optional(),
  model: shortTextField.optional(),
  metadata: metadataField.optional(),
  /** Where the session lives (default: global). */
  scope: scopeInputSchema.optional(),
  createdAt: instantInput.optional(),
});

/** `sessions.create` input. */
export type CreateSessionInput = z.input<typeof createSessionInputSchema>;

/**
 * `sessions.update` changes: omitted fields keep their stored values;
 * `metadata` replaces the whole object; `scope` moves the session.
 */
export const updateSessionInputSchema = z.strictObject({
  ...idempotent,
  title: shortTextField.optional(),
  metadata: metadataField.optional(),
  scope: scopeInputSchema.optional(),
  /** Optimistic concurrency: when non-zero, must equal the stored `syncVersion`. */
  syncVersion: countField.optional(),
});

/** `sessions.update` changes. */
export type UpdateSessionInput = z.input<typeof updateSessionInputSchema>;

/**
 * `sessions.compact` input (docs/contract.md §4, "Compaction"): the summary and the live turn it covers the
 * transcript through, by id or by its current seq (the summary records the id).
 */
export const compactSessionInputSchema = z.strictObject({
  ...idempotent,
  through: z.union([idField, z.int().positive()]),
  summary: textField(LIMITS.summary).min(1, 'must not be empty'),
  /** Who wrote the summary, e.g. the model that summarised. */
  model: shortTextField.optional(),
  /** The summary's token count, as its writer counted it. */
  tokens: countField.optional(),
});

/** `sessions.compact` input. */
export type CompactSessionInput = z.input<typeof compactSessionInputSchema>;

/** A turn as callers write it: `content`, `parts` or both (docs/contract.md §2, the content rendering rule). */
const turnInputShape = {
  role: z.enum(TURN_ROLES),
  content: longTextField.optional(),
  parts: partsField.optional(),
  metadata: metadataField.optional(),
  id: idField.optional(),
  createdAt: instantInput.optional(),
};

/** Refuses a turn with neither `content` nor `parts`. */
const HAS_CONTENT_OR_PARTS = {
  check: (t: { content?: string | undefined; parts?: unknown }) => t.content !== undefined || t.parts !== undefined,
  issue: { message: 'give content, parts or both', path: ['content'] },
};

/** One turn of `sessions.replaceSuffix`. */
export const turnInputSchema = z.strictObject(turnInputShape).refine(HAS_CONTENT_OR_PARTS.check, HAS_CONTENT_OR_PARTS.issue);

/** One turn of `sessions.replaceSuffix`: `appendTurn` input without the session. */
export type TurnInput = z.input<typeof turnInputSchema>;

/** `sessions.appendTurn` input. */
export const appendTurnInputSchema = z
  .strictObject({
    ...idempotent,
    sessionId: idField,
    ...turnInputShape,
  })
  .refine(HAS_CONTENT_OR_PARTS.check, HAS_CONTENT_OR_PARTS.issue);

/** `sessions.appendTurn` input. */
export type AppendTurnInput = z.input<typeof appendTurnInputSchema>;

const TURN_ROLE_SET: ReadonlySet<unknown> = new Set(TURN_ROLES);

/**
 * {@link parseInput} with {@link appendTurnInputSchema}, for the write that
 * runs most: the usual input (a plain object holding only a valid
 * `sessionId`, `role` and `content`) is checked here, by the same rules as
 * the schema's, without the schema's allocations. Any other input, valid or
 * not, goes through the schema, so every refusal is the schema's.
 */
export function parseAppendTurnInput(value: unknown): z.output<typeof appendTurnInputSchema> {
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    const input = value as Record<string, unknown>;
    const { sessionId, role, content } = input;
    // Three valid keys and no other: nothing optional, nothing unknown.
    if (
      Object.keys(input).length === 3 &&
      isPlainText(sessionId, LIMITS.id) &&
      sessionId.length > 0 &&
      TURN_ROLE_SET.has(role) &&
      isPlainText(content, LIMITS.longText)
    ) {
      return { sessionId, role: role as (typeof TURN_ROLES)[number], content };
    }
  }
  return parseInput(appendTurnInputSchema, value);
}

/** `sessions.replaceSuffix` input. */
export const replaceSuffixInputSchema = z.strictObject({
  ...idempotent,
  /** The ids the live transcript must end with, oldest first; `[]` appends. */
  expected: z.array(idField).max(LIMITS.pageSize, `at most ${LIMITS.pageSize} turns`),
  turns: z.array(turnInputSchema).max(LIMITS.pageSize, `at most ${LIMITS.pageSize} turns`),
});

/** `sessions.replaceSuffix` input. */
export type ReplaceSuffixInput = z.input<typeof replaceSuffixInputSchema>;

/**
 * `skills.upsert` input. A whole stored skill is accepted too (its envelope
 * fields other than `syncVersion`, and unknown keys, are ignored), so a
 * read-modify-write is just "change the record and upsert it": the one input
 * that is not strict (docs/contract.md §4, "Skills").
 */
export const upsertSkillInputSchema = z
  .object({
    ...idempotent,
    slug: slugInputField,
    name: shortTextField.optional(),
    body: longTextField.optional(),
    tags: tagsField.optional(),
    scope: scopeInputSchema.optional(),
    check: checkField.optional(),
    uses: countField.optional(),
    wins: countField.optional(),
    /** Optimistic concurrency: when non-zero, must equal the stored `syncVersion`. */
    syncVersion: countField.optional(),
    id: idField.optional(),
    createdAt: instantInput.optional(),
  })
  .refine(winsWithinUses, WINS_WITHIN_USES);

/** `skills.upsert` input. */
export type UpsertSkillInput = z.input<typeof upsertSkillInputSchema>;

/** `skills.recordOutcome` input. */
export const recordOutcomeInputSchema = z.strictObject({
  ...idempotent,
  success: z.boolean(),
  scope: scopeInputSchema.optional(),
});

/** `skills.recordOutcome` input. */
export type RecordOutcomeInput = z.input<typeof recordOutcomeInputSchema>;

/**
 * `memory.write` input. With a `key` that a live item of the scope holds,
 * the write updates that item (docs/contract.md, memory keys).
 */
export const writeMemoryInputSchema = z.strictObject({
  ...idempotent,
  content: longTextField.min(1, 'must not be empty'),
  kind: shortTextField.optional(),
  scope: scopeInputSchema.optional(),
  source: shortTextField.optional(),
  key: memoryKeySchema.nullable().optional(),
  metadata: metadataField.optional(),
  expiresAt: instantInput.nullable().optional(),
  id: idField.optional(),
  createdAt: instantInput.optional(),
});

/** `memory.write` input. */
export type WriteMemoryInput = z.input<typeof writeMemoryInputSchema>;

/** Options of a write that takes no input object (`delete`). */
export const writeOptionsSchema = z.strictObject(idempotent);

/** Options of a write that takes no input object (`delete`). */
export type WriteOptions = z.input<typeof writeOptionsSchema>;

/**
 * `memory.update` changes: omitted fields keep their stored values; `key`
 * and `expiresAt` are cleared with `null`; `metadata` replaces the whole object.
 */
export const updateMemoryInputSchema = z.strictObject({
  ...idempotent,
  content: longTextField.min(1, 'must not be empty').optional(),
  kind: shortTextField.optional(),
  source: shortTextField.optional(),
  key: memoryKeySchema.nullable().optional(),
  metadata: metadataField.optional(),
  expiresAt: instantInput.nullable().optional(),
  /** Optimistic concurrency: when non-zero, must equal the stored `syncVersion`. */
  syncVersion: countField.optional(),
});

/** `memory.update` changes. */
export type UpdateMemoryInput = z.input<typeof updateMemoryInputSchema>;

const limitInput = z.int().min(0).max(LIMITS.pageSize);

/** A cursor from an earlier page (docs/contract.md §4, "Pages"); decoded and bound to its query by the store. */
const cursorInput = z.string();

/** `sessions.list` options. */
export const listSessionsOptionsSchema = z.strictObject({
  limit: limitInput.optional(),
  offset: countField.optional(),
  scope: scopeInputSchema.optional(),
  includeDescendants: z.boolean().optional(),
  cursor: cursorInput.optional(),
});

/** `sessions.list` options (docs/contract.md §4, "Sessions" and "Pages"). */
export type ListSessionsOptions = z.input<typeof listSessionsOptionsSchema>;

/** The orders of a session list a face assembles itself: `oldest` first (as `sessions.list`) or `newest` first. */
export const SESSION_PAGE_ORDERS = ['oldest', 'newest'] as const;

/** `pageSessions` options. */
export const sessionPageOptionsSchema = z.strictObject({
  order: z.enum(SESSION_PAGE_ORDERS).optional(),
  limit: limitInput.optional(),
  offset: countField.optional(),
  cursor: cursorInput.optional(),
});

/** `pageSessions` options: `order` (default `oldest`), then as `sessions.list`. */
export type SessionPageOptions = z.input<typeof sessionPageOptionsSchema>;

/** `sessions.turns` options. */
export const turnsOptionsSchema = z
  .strictObject({
    afterSeq: countField.optional(),
    limit: limitInput.optional(),
    last: z.int().min(1).max(LIMITS.pageSize).optional(),
    cursor: cursorInput.optional(),
  })
  .refine((o) => o.last === undefined || (o.afterSeq === undefined && o.limit === undefined), {
    message: 'cannot be combined with afterSeq or limit',
    path: ['last'],
  });

/** `sessions.turns` options: after `afterSeq`, or the newest `last` live turns (docs/contract.md §4, "Sessions"). */
export type TurnsOptions = z.input<typeof turnsOptionsSchema>;

/** How skill search results are ordered. */
export const SKILL_SEARCH_ORDERS = ['slug', 'relevance', 'winRate'] as const;

/** How a lexical query's tokens must match (docs/contract.md §5): every one, or any one. */
const matchInput = z.enum(TOKEN_MATCHES);

/** `skills.search` options. */
export const searchSkillsOptionsSchema = z.strictObject({
  limit: limitInput.optional(),
  scope: scopeInputSchema.optional(),
  includeParentScopes: z.boolean().optional(),
  includeDescendants: z.boolean().optional(),
  order: z.enum(SKILL_SEARCH_ORDERS).optional(),
  match: matchInput.optional(),
  cursor: cursorInput.optional(),
});

/** `skills.search` options (docs/contract.md §4, "Skills"). */
export type SearchSkillsOptions = z.input<typeof searchSkillsOptionsSchema>;

/** `skills.list` options. */
export const listSkillsOptionsSchema = z.strictObject({
  scope: scopeInputSchema.optional(),
  includeDescendants: z.boolean().optional(),
  limit: limitInput.optional(),
  cursor: cursorInput.optional(),
});

/** `skills.list` options (docs/contract.md §4, "Skills"). */
export type ListSkillsOptions = z.input<typeof listSkillsOptionsSchema>;

/** Where `skills.get`, `skills.getAny` and `memory.getByKey` look: `scope` (see each method). */
export const scopeOptionsSchema = z.strictObject({
  scope: scopeInputSchema.optional(),
});

/** Where a look-up by key or slug looks: `scope` (see each method). */
export type ScopeOptions = z.input<typeof scopeOptionsSchema>;

/** `skills.delete` options: where the slug is resolved, and the operation id that makes the write idempotent. */
export const deleteSkillOptionsSchema = scopeOptionsSchema.extend(idempotent);

/** `skills.delete` options: where the slug is resolved, and the operation id that makes the write idempotent. */
export type DeleteSkillOptions = z.input<typeof deleteSkillOptionsSchema>;

/** `provider.namespaces` options. */
export const namespacesOptionsSchema = z.strictObject({
  prefix: scopeInputSchema.optional(),
  maxDepth: z.int().min(0).max(LIMITS.scopeDepth).optional(),
  limit: limitInput.optional(),
  cursor: cursorInput.optional(),
});

/** `provider.namespaces` options (docs/contract.md §4, "Namespaces"). */
export type NamespacesOptions = z.input<typeof namespacesOptionsSchema>;

/** Recall modes. */
export const RECALL_MODES = ['lexical', 'semantic', 'hybrid'] as const;
/** Recall orders. */
export const RECALL_ORDERS = ['recent', 'relevance'] as const;

/** The options of a ranked search that `memory.recall` and `sessions.search` share (docs/contract.md §4, §6). */
const rankedSearchShape = {
  query: textField(LIMITS.query).optional(),
  scope: scopeInputSchema.optional(),
  includeDescendants: z.boolean().optional(),
  limit: z.int().min(1).max(LIMITS.pageSize).optional(),
  mode: z.enum(RECALL_MODES).optional(),
  order: z.enum(RECALL_ORDERS).optional(),
  minScore: z.number().min(0).max(1).optional(),
  match: matchInput.optional(),
  cursor: cursorInput.optional(),
};

/** `memory.recall` options. */
export const recallOptionsSchema = z.strictObject({
  ...rankedSearchShape,
  includeParentScopes: z.boolean().optional(),
  kinds: z.array(shortTextField).optional(),
  where: whereInputSchema.optional(),
});

/** `memory.recall` options (docs/contract.md §4, "Memory"; `limit` defaults to {@link DEFAULT_RECALL_LIMIT}). */
export type RecallOptions = z.input<typeof recallOptionsSchema>;

/** The most neighbouring turns a search hit carries on either side. */
export const MAX_SEARCH_CONTEXT = 50;

const contextCount = z.int().min(0).max(MAX_SEARCH_CONTEXT);

/** `sessions.search` options. */
export const searchSessionsOptionsSchema = z.strictObject({
  ...rankedSearchShape,
  sessionId: idField.optional(),
  roles: z.array(z.enum(TURN_ROLES)).optional(),
  context: z.union([contextCount, z.strictObject({ before: contextCount.optional(), after: contextCount.optional() })]).optional(),
});

/** `sessions.search` options, as `memory.recall`'s where they share a name (docs/contract.md §4, "Transcript search"). */
export type SearchSessionsOptions = z.input<typeof searchSessionsOptionsSchema>;

/** The neighbouring turns a search hit carries when no `context` is given. */
export const DEFAULT_SEARCH_CONTEXT = Object.freeze({ before: 1, after: 1 });

/** The number of hits `recall` returns when no `limit` is given. */
export const DEFAULT_RECALL_LIMIT = 20;

/**
 * Parses `value` with `schema`, turning the first zod issue into a
 * {@link ValidationError} that names the offending field (an unknown key
 * names itself), under `at` (the path of `value` in a larger input, such as
 * `['turns', '3']`).
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, at: readonly string[] = []): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === 'unrecognized_keys') throw new ValidationError([...at, ...issue.path.map(String), issue.keys[0]].join('.'), 'unknown key');
  throw new ValidationError([...at, ...(issue?.path.map(String) ?? [])].join('.'), issue?.message ?? 'malformed input');
}
