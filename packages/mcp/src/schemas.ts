/**
 * The zod pieces tool inputs and outputs are built from. Field rules (size
 * limits, NUL characters, enums) are core's own input schemas, so a bad
 * argument is refused by the SDK with the field named, before any store is
 * called; outputs are core's record schemas.
 */
import { z } from 'zod';
import {
  LIMITS,
  RECALL_MODES,
  RECALL_ORDERS,
  SKILL_SEARCH_ORDERS,
  appendTurnInputSchema,
  createSessionInputSchema,
  memoryItemSchema,
  recallOptionsSchema,
  scopeInputSchema,
  sessionSchema,
  skillSchema,
  turnSchema,
  upsertSkillInputSchema,
  writeMemoryInputSchema,
} from '@agentstate/core';

const NUL = '\u0000';

/** A required key (an id or a slug). */
export const keyArg = z
  .string()
  .min(1, 'must not be empty')
  .max(LIMITS.slug, `at most ${LIMITS.slug} characters`)
  .refine((s) => !s.includes(NUL), 'must not contain NUL characters');

/** The optional scope argument of every scoped tool. */
export const scopeArg = scopeInputSchema
  .optional()
  .describe(
    "Scope to act in. Levels left out are the server's own, so { workspace: 'api' } means that workspace under the server's project. " +
      'Omit to use the scope the server is bound to; anything outside it is refused.',
  );

/** Whether a read includes the parent scopes. */
export const includeParentsArg = z
  .boolean()
  .optional()
  .describe("Also read the scope's parents, up to the global scope, most specific first. Defaults to what the server's operator allowed.");

/** A page size. */
export const limitArg = z.number().int().min(1).max(LIMITS.pageSize);

/** Where a page resumes: the `nextCursor` of the previous answer to the same call. */
export const cursorArg = z
  .string()
  .optional()
  .describe('The nextCursor of the previous answer, to read the next page of the same call (same other arguments).');

/** The cursor of the next page, in an answer. */
const nextCursorOutput = z.string().optional().describe('Pass as cursor, with the same arguments, for the next page; absent when nothing more matched.');

const memory = writeMemoryInputSchema.shape;
const recall = recallOptionsSchema.shape;
const skill = upsertSkillInputSchema.shape;
const session = createSessionInputSchema.shape;
const turn = appendTurnInputSchema.shape;

/** Inputs of the memory tools. */
export const memoryInputs = {
  remember: {
    content: memory.content.describe('The fact to keep, in plain language.'),
    kind: memory.kind.describe("What sort of fact: 'preference', 'fact', 'decision'…"),
    source: memory.source.describe('Where the fact came from. Defaults to the MCP client.'),
    id: memory.id.describe('Optional caller-chosen id: a retry with the same id is refused as a conflict instead of writing a duplicate.'),
    scope: scopeArg,
  },
  recall: {
    query: recall.query.describe('Words to look for; prefixes match, case and accents are folded. Omit to list the newest items.'),
    kinds: recall.kinds.describe('Only items of these kinds.'),
    limit: limitArg.optional().describe('Most hits to return (default 20).'),
    mode: z.enum(RECALL_MODES).optional().describe('lexical, semantic or hybrid (default: hybrid when the server has an embedder, else lexical).'),
    order: z
      .enum(RECALL_ORDERS)
      .optional()
      .describe('relevance (best score first; the default for a semantic or hybrid recall with a query) or recent (newest first; the default otherwise).'),
    minScore: recall.minScore.describe('Drop hits scoring below this, in [0, 1].'),
    cursor: cursorArg,
    match: recall.match.describe("Lexical matching: 'all' query words must match (default for lexical) or 'any' (ranked by BM25)."),
    scope: scopeArg,
    includeParentScopes: includeParentsArg,
  },
  forget: {
    id: keyArg.describe('Id of the memory item to forget. It becomes a tombstone: hidden from reads, kept in the history.'),
  },
} as const;

/** Inputs of the skill tools. */
export const skillInputs = {
  search: {
    query: z
      .string()
      .max(LIMITS.query)
      .refine((s) => !s.includes(NUL), 'must not contain NUL characters')
      .optional()
      .describe('Words to look for in slug, name, body and tags. Omit to list every skill.'),
    limit: limitArg.optional().describe('Most skills to return (default 20).'),
    order: z.enum(SKILL_SEARCH_ORDERS).optional().describe('slug (default), relevance, or winRate (most successful first).'),
    cursor: cursorArg,
    scope: scopeArg,
    includeParentScopes: includeParentsArg,
  },
  get: {
    skill: keyArg.describe('Id or slug of the skill.'),
    scope: scopeArg,
    includeParentScopes: includeParentsArg,
  },
  save: {
    slug: skill.slug.describe("The skill's key within its scope, e.g. 'deploy-staging'. Saving an existing slug updates that skill."),
    name: skill.name.describe('Human-readable name.'),
    body: skill.body.describe('The procedure itself.'),
    tags: skill.tags.describe('Tags to find it by.'),
    check: skill.check.describe('Optional shell command that re-verifies the skill still works.'),
    expectedSyncVersion: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'The syncVersion you last read. The save is refused with a conflict if the skill changed since, or does not exist. Omit to save unconditionally.',
      ),
    scope: scopeArg,
  },
  recordOutcome: {
    skill: keyArg.describe('Id or slug of the skill that was used.'),
    success: z.boolean().describe('Whether using it succeeded.'),
    scope: scopeArg,
  },
  delete: {
    skill: keyArg.describe('Id or slug of the skill to delete. It becomes a tombstone: hidden from reads, kept in the history.'),
    scope: scopeArg,
  },
} as const;

/** The order of a session listing. */
export const SESSION_LIST_ORDERS = ['newest', 'oldest'] as const;

/** Inputs of the session tools. */
export const sessionInputs = {
  create: {
    title: session.title.describe('What the conversation is about.'),
    model: session.model.describe('The model taking part, if any.'),
    scope: scopeArg,
  },
  appendTurn: {
    sessionId: turn.sessionId.describe('The session to append to.'),
    role: turn.role.describe('Who spoke: user, assistant, tool or system.'),
    content: turn.content.describe('What was said.'),
  },
  read: {
    sessionId: keyArg.describe('The session to read.'),
    afterSeq: z.number().int().nonnegative().optional().describe('Only turns after this seq (to page or catch up).'),
    limit: limitArg.optional().describe('Most turns to return (default: all).'),
    cursor: cursorArg,
  },
  list: {
    order: z.enum(SESSION_LIST_ORDERS).optional().describe('newest (default) or oldest first.'),
    limit: limitArg.optional().describe('Most sessions to return (default 20).'),
    offset: z.number().int().nonnegative().optional().describe('Sessions to skip.'),
    scope: scopeArg,
  },
  delete: {
    sessionId: keyArg.describe('The session to delete. It becomes a tombstone with its transcript: hidden from reads, kept in the history.'),
  },
} as const;

/** A recalled memory item and its score. */
export const recallHitSchema = memoryItemSchema.extend({ score: z.number().min(0).max(1) });

/** Outputs of every tool. */
export const outputs = {
  item: { item: memoryItemSchema },
  hits: { hits: z.array(recallHitSchema), nextCursor: nextCursorOutput },
  skill: { skill: skillSchema },
  skills: { skills: z.array(skillSchema), nextCursor: nextCursorOutput },
  session: { session: sessionSchema },
  turn: { turn: turnSchema },
  transcript: { session: sessionSchema, turns: z.array(turnSchema), nextCursor: nextCursorOutput },
  sessions: { sessions: z.array(sessionSchema) },
} as const;
