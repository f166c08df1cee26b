/**
 * Input schemas of every store method. Validation happens here, before
 * anything is stamped, so a refused call writes nothing (docs/contract.md §4).
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { normalizeInstant } from '../time/instant.js';
import { checkField, countField, idField, longTextField, shortTextField, slugField, tagsField, textField, WINS_WITHIN_USES, winsWithinUses } from './fields.js';
import { LIMITS } from './limits.js';
import { TURN_ROLES } from './records.js';

/** An ISO-8601 date, or date-time with a zone, of a day that exists; normalised to the canonical instant. */
const instantInput = z.string().transform((value, ctx) => {
  const instant = normalizeInstant(value);
  if (instant === undefined) {
    ctx.addIssue({ code: 'custom', message: 'expected an existing ISO-8601 date-time with a zone, such as 2026-11-29T16:54:02.123Z' });
    return z.NEVER;
  }
  return instant;
});

/** A partial scope as callers write it. */
export const scopeInputSchema = z.object({
  instance: shortTextField.optional(),
  project: shortTextField.optional(),
  workspace: shortTextField.optional(),
});

/** `sessions.create` input. */
export const createSessionInputSchema = z.object({
  id: idField.optional(),
  title: shortTextField.optional(),
  model: shortTextField.optional(),
  createdAt: instantInput.optional(),
});

/** `sessions.create` input. */
export type CreateSessionInput = z.input<typeof createSessionInputSchema>;

/** `sessions.appendTurn` input. */
export const appendTurnInputSchema = z.object({
  sessionId: idField,
  role: z.enum(TURN_ROLES),
  content: longTextField,
  id: idField.optional(),
  createdAt: instantInput.optional(),
});

/** `sessions.appendTurn` input. */
export type AppendTurnInput = z.input<typeof appendTurnInputSchema>;

/**
 * `skills.upsert` input. A whole stored skill is accepted too (its envelope
 * fields other than `syncVersion` are ignored), so a read-modify-write is just
 * "change the record and upsert it".
 */
export const upsertSkillInputSchema = z
  .object({
    slug: slugField,
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
export const recordOutcomeInputSchema = z.object({
  success: z.boolean(),
  scope: scopeInputSchema.optional(),
});

/** `skills.recordOutcome` input. */
export type RecordOutcomeInput = z.input<typeof recordOutcomeInputSchema>;

/** `memory.write` input. */
export const writeMemoryInputSchema = z.object({
  content: longTextField.min(1, 'must not be empty'),
  kind: shortTextField.optional(),
  scope: scopeInputSchema.optional(),
  source: shortTextField.optional(),
  id: idField.optional(),
  createdAt: instantInput.optional(),
});

/** `memory.write` input. */
export type WriteMemoryInput = z.input<typeof writeMemoryInputSchema>;

const limitInput = z.int().min(0).max(LIMITS.pageSize);

/** A cursor from an earlier page (docs/contract.md §4, "Pages"); decoded and bound to its query by the store. */
const cursorInput = z.string();

/** `sessions.list` options. */
export const listSessionsOptionsSchema = z.object({
  limit: limitInput.optional(),
  offset: countField.optional(),
  cursor: cursorInput.optional(),
});

/** `sessions.list` options: `limit` 0 or absent means no cap; `offset` skips on the first page only; `cursor` resumes a page. */
export type ListSessionsOptions = z.input<typeof listSessionsOptionsSchema>;

/** `sessions.turns` options. */
export const turnsOptionsSchema = z.object({
  afterSeq: countField.optional(),
  limit: limitInput.optional(),
  cursor: cursorInput.optional(),
});

/** `sessions.turns` options: `limit` 0 or absent means no cap; `cursor` resumes a page. */
export type TurnsOptions = z.input<typeof turnsOptionsSchema>;

/** `skills.list` options. */
export const listSkillsOptionsSchema = z.object({
  limit: limitInput.optional(),
  cursor: cursorInput.optional(),
});

/** `skills.list` options: `limit` 0 or absent means no cap; `cursor` resumes a page. */
export type ListSkillsOptions = z.input<typeof listSkillsOptionsSchema>;

/** How skill search results are ordered. */
export const SKILL_SEARCH_ORDERS = ['slug', 'relevance', 'winRate'] as const;

/** `skills.search` options. */
export const searchSkillsOptionsSchema = z.object({
  limit: limitInput.optional(),
  scope: scopeInputSchema.optional(),
  includeParentScopes: z.boolean().optional(),
  order: z.enum(SKILL_SEARCH_ORDERS).optional(),
  cursor: cursorInput.optional(),
});

/**
 * `skills.search` options. `limit` 0 or absent means no cap; `scope` narrows
 * to that exact scope (with `includeParentScopes`, to its parent chain);
 * `order` is `slug` (default: slug, then id), `relevance` (lexical score) or
 * `winRate` (wins/uses, smoothed); `cursor` resumes a page.
 */
export type SearchSkillsOptions = z.input<typeof searchSkillsOptionsSchema>;

/** Recall modes. */
export const RECALL_MODES = ['lexical', 'semantic', 'hybrid'] as const;
/** Recall orders. */
export const RECALL_ORDERS = ['recent', 'relevance'] as const;

/** `memory.recall` options. */
export const recallOptionsSchema = z.object({
  query: textField(LIMITS.query).optional(),
  scope: scopeInputSchema.optional(),
  includeParentScopes: z.boolean().optional(),
  kinds: z.array(shortTextField).optional(),
  limit: z.int().min(1).max(LIMITS.pageSize).optional(),
  mode: z.enum(RECALL_MODES).optional(),
  order: z.enum(RECALL_ORDERS).optional(),
  minScore: z.number().min(0).max(1).optional(),
  match: z.enum(['all', 'any']).optional(),
  cursor: cursorInput.optional(),
});

/**
 * `memory.recall` options. `scope` absent spans every scope; given, exactly
 * that scope (with `includeParentScopes`, its parent chain, most specific
 * first). `limit` defaults to {@link DEFAULT_RECALL_LIMIT}. `match` is how
 * lexical recall treats query tokens: `all` must match (docs/contract.md §5, the default
 * in lexical mode) or `any` may, ranked by BM25 (natural-language questions).
 * `cursor` resumes a page.
 */
export type RecallOptions = z.input<typeof recallOptionsSchema>;

/** The number of hits `recall` returns when no `limit` is given. */
export const DEFAULT_RECALL_LIMIT = 20;

/**
 * Parses `value` with `schema`, turning the first zod issue into a
 * {@link ValidationError} that names the offending field.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') ?? '';
  throw new ValidationError(field, issue?.message ?? 'malformed input');
}
