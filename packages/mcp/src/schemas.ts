/**
 * The zod pieces tool inputs and outputs are built from. Field rules (size
 * limits, NUL characters, enums) are core's own input schemas, so a bad
 * argument is refused by the SDK with the field named, before any store is
 * called; outputs are core's record schemas.
 */
import { z } from 'zod';
import {
  LIMITS,
  SESSION_PAGE_ORDERS,
  SKILL_SEARCH_ORDERS,
  appendTurnInputSchema,
  compactSessionInputSchema,
  createSessionInputSchema,
  memoryItemSchema,
  namespacesOptionsSchema,
  recallOptionsSchema,
  replaceSuffixInputSchema,
  searchSessionsOptionsSchema,
  sessionSchema,
  sessionSummarySchema,
  skillSchema,
  turnSchema,
  upsertSkillInputSchema,
  writeMemoryInputSchema,
} from '@agentstate/core';

import { operationIdArg } from './operation.js';

const NUL = '\u0000';

/** A required key (an id or a slug). */
export const keyArg = z
  .string()
  .min(1, 'must not be empty')
  .max(LIMITS.slug, `at most ${LIMITS.slug} characters`)
  .refine((s) => !s.includes(NUL), 'must not contain NUL characters');

/** The optional scope argument of every scoped tool. */
export const scopeArg = z
  .array(z.string())
  .max(LIMITS.scopeDepth)
  .optional()
  .describe(
    'Scope to act in: a path of labels relative to the server\'s scope, so ["api"] on a server bound to web means web/api. ' +
      'Omit (or pass []) to use the scope the server is bound to; a server refuses scopes under it unless its operator allowed subscopes.',
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

/** Whether a tool answers with whole records; see views.ts for what a lean one keeps. */
export const fullArg = z
  .boolean()
  .optional()
  .describe(
    "Answer with whole records, sync envelope included (originInstanceId, updatedHlc, lastWriterId, deleted; a memory item's source; a turn's parts even when they are only its content). Default: the fields an agent needs.",
  );

/** The cursor of the next page, in an answer. */
const nextCursorOutput = z.string().optional().describe('Pass as cursor, with the same arguments, for the next page; absent when nothing more matched.');

const memory = writeMemoryInputSchema.shape;
const recall = recallOptionsSchema.shape;
const skill = upsertSkillInputSchema.shape;
const session = createSessionInputSchema.shape;
const turn = appendTurnInputSchema.shape;
const suffix = replaceSuffixInputSchema.shape;
const compact = compactSessionInputSchema.shape;
const search = searchSessionsOptionsSchema.shape;

/** The `syncVersion` a change expects: the `what` is refused with a conflict if the `record` changed since (`or` more). */
const expectedSyncVersionArg = (what: string, record: string, or = '') =>
  z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`The syncVersion you last read. The ${what} is refused with a conflict if the ${record} changed since${or}. Omit to ${what} unconditionally.`);

/** How a recall's or a search's query words match. */
const matchArg = recall.match.describe("Lexical matching: 'all' query words must match (default for lexical) or 'any' (ranked by BM25).");

/** How a recall or a search matches. */
const modeArg = recall.mode.describe('lexical, semantic or hybrid (default: hybrid when the server has an embedder, else lexical).');

/** The order of the hits of a `search` (a recall or a search). */
const orderArg = (search: string) =>
  recall.order.describe(
    `relevance (best score first; the default for a semantic or hybrid ${search} with a query) or recent (newest first; the default otherwise).`,
  );

/** Whether a read includes the scopes under the target. */
const includeDescendantsArg = z.boolean().optional().describe('Also read the scopes under it (needs a server whose operator allowed subscopes).');

/**
 * A JSON object (metadata, a filter) as tools take and answer it. Core checks it when the store is
 * called; a JSON Schema of that check (a transform) cannot be generated.
 */
const jsonObject = z.record(z.string(), z.unknown());

/** An instant, normalised and checked by core when the store is called. */
const instantArg = z.string().max(64);

/** Inputs of the memory tools. */
export const memoryInputs = {
  remember: {
    content: memory.content.describe('The fact to keep, in plain language.'),
    kind: memory.kind.describe("What sort of fact: 'preference', 'fact', 'decision'…"),
    source: memory.source.describe('Where the fact came from. Defaults to the MCP client.'),
    id: memory.id.describe('Optional caller-chosen id: a retry with the same id is refused as a conflict instead of writing a duplicate.'),
    key: memory.key.describe(
      "Optional slot name within the scope, e.g. 'user.theme'. Remembering a key that an item already holds updates that item instead of adding another.",
    ),
    metadata: jsonObject.optional().describe('Optional JSON object of structured data to filter recall by (see recall.where).'),
    expiresAt: instantArg.nullable().optional().describe('Optional ISO-8601 date-time from which the item is no longer recalled (e.g. 2026-12-31T00:00:00Z).'),
    scope: scopeArg,
    operationId: operationIdArg,
  },
  update: {
    id: keyArg.describe('Id of the memory item to change.'),
    content: memory.content.optional().describe('The new content.'),
    kind: memory.kind.describe('The new kind.'),
    source: memory.source.describe('The new source.'),
    key: memory.key.describe('The new key (null clears it); refused as a conflict when another item of the scope holds it.'),
    metadata: jsonObject.optional().describe('The new metadata; replaces the old object as a whole.'),
    expiresAt: instantArg.nullable().optional().describe('The new expiry (null: never).'),
    expectedSyncVersion: expectedSyncVersionArg('update', 'item'),
  },
  recall: {
    query: recall.query.describe('Words to look for; prefixes match, case and accents are folded. Omit to list the newest items.'),
    kinds: recall.kinds.describe('Only items of these kinds.'),
    limit: limitArg.optional().describe('Most hits to return (default 20).'),
    mode: modeArg,
    order: orderArg('recall'),
    minScore: recall.minScore.describe(
      'Drop hits scoring below this, in [0, 1]; default 0. Only items that match are hits (a lexical match, or a semantic similarity above 0), so none scores 0.',
    ),
    cursor: cursorArg,
    match: matchArg,
    where: jsonObject
      .optional()
      .describe(
        "Metadata filter: dotted paths to a value (equality) or operators, all must hold, e.g. { 'user.plan': 'pro', tag: { $in: ['a', 'b'] }, n: { $gt: 2 }, x: { $exists: false } }. Operators: $eq $ne $gt $gte $lt $lte $in $nin $exists; numbers compare with numbers, strings with strings.",
      ),
    scope: scopeArg,
    includeParentScopes: includeParentsArg,
  },
  forget: {
    id: keyArg.describe('Id of the memory item to forget. It becomes a tombstone: hidden from reads, kept in the history.'),
    operationId: operationIdArg,
  },
  workingGet: {
    scope: scopeArg,
  },
  workingUpdate: {
    text: memory.content.optional().describe('The whole new document: replaces what was there. Give this, or append, or find and replace.'),
    append: memory.content.optional().describe('Text to add at the end of the document, on a line of its own.'),
    find: memory.content.optional().describe('Text the document holds exactly once (quote enough of it to be unique); it becomes `replace`.'),
    replace: z.string().optional().describe('What `find` becomes.'),
    expectedSyncVersion: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The syncVersion you last read (0: there was no document). The update is refused with a conflict if it changed since.'),
    scope: scopeArg,
    operationId: operationIdArg,
  },
} as const;

/** Inputs of the skill tools. */
export const skillInputs = {
  search: {
    query: recall.query.describe('Words to look for in slug, name, body and tags. Omit to list every skill.'),
    limit: limitArg.optional().describe('Most skills to return (default 20).'),
    order: z.enum(SKILL_SEARCH_ORDERS).optional().describe('slug (default), relevance, or winRate (most successful first).'),
    match: matchArg,
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
    expectedSyncVersion: expectedSyncVersionArg('save', 'skill', ', or does not exist'),
    scope: scopeArg,
    operationId: operationIdArg,
  },
  recordOutcome: {
    skill: keyArg.describe('Id or slug of the skill that was used.'),
    success: z.boolean().describe('Whether using it succeeded.'),
    scope: scopeArg,
    operationId: operationIdArg,
  },
  delete: {
    skill: keyArg.describe('Id or slug of the skill to delete. It becomes a tombstone: hidden from reads, kept in the history.'),
    scope: scopeArg,
  },
} as const;

/** Inputs of the session tools. */
export const sessionInputs = {
  create: {
    title: session.title.describe('What the conversation is about.'),
    model: session.model.describe('The model taking part, if any.'),
    metadata: session.metadata.describe('A JSON object to keep with the session (app data, ids of other systems).'),
    scope: scopeArg,
    operationId: operationIdArg,
  },
  appendTurn: {
    sessionId: turn.sessionId.describe('The session to append to.'),
    role: turn.role.describe('Who spoke: user, assistant, tool or system.'),
    content: turn.content.describe('What was said, as text. Give content, parts or both.'),
    parts: turn.parts.describe(
      'The structured turn: text, reasoning, tool-call { callId, toolName, input }, tool-result { callId, toolName, output, isError }, ' +
        'file { mediaType, url or base64 data, filename? } and data { name, data } parts. Without content, the text parts joined by newlines become the content.',
    ),
    metadata: turn.metadata.describe('A JSON object to keep with the turn (token usage, model, finish reason).'),
    operationId: operationIdArg,
  },
  read: {
    sessionId: keyArg.describe('The session to read.'),
    afterSeq: z.number().int().nonnegative().optional().describe('Only turns after this seq (to page or catch up).'),
    limit: limitArg.optional().describe('Most turns to return (default: all).'),
    last: limitArg.optional().describe('Only the newest this many turns, oldest first (not with afterSeq or limit).'),
    cursor: cursorArg,
  },
  update: {
    sessionId: keyArg.describe('The session to change.'),
    title: session.title.describe('The new title.'),
    metadata: session.metadata.describe('The new metadata; replaces the old object as a whole.'),
    scope: scopeArg,
    expectedSyncVersion: expectedSyncVersionArg('update', 'session'),
    operationId: operationIdArg,
  },
  removeLastTurn: {
    sessionId: keyArg.describe('The session whose newest turn to remove. It becomes a tombstone: hidden from reads, kept in the history.'),
    operationId: operationIdArg,
  },
  replaceSuffix: {
    sessionId: keyArg.describe('The session to edit.'),
    expected: suffix.expected.describe(
      'Ids of the turns the transcript must end with, oldest first; they are replaced. Empty: append. If the transcript ends otherwise, nothing changes.',
    ),
    turns: suffix.turns.describe('The new turns, oldest first, each { role, content?, parts?, metadata? }.'),
    operationId: operationIdArg,
  },
  list: {
    order: z.enum(SESSION_PAGE_ORDERS).optional().describe('oldest (default, the order of every session list) or newest first.'),
    limit: limitArg.optional().describe('Most sessions to return (default 20).'),
    offset: z.number().int().nonnegative().optional().describe('Sessions to skip (first page only: a cursor already stands past them).'),
    scope: scopeArg,
    includeDescendants: includeDescendantsArg,
    cursor: cursorArg,
  },
  search: {
    query: search.query.describe('Words to look for in turns; prefixes match, case and accents are folded. Omit to list the newest turns.'),
    mode: modeArg,
    order: orderArg('search'),
    match: matchArg,
    roles: search.roles.describe('Only turns of these roles (user, assistant, tool, system).'),
    sessionId: keyArg.optional().describe('Only turns of this session.'),
    context: search.context.describe('Neighbouring turns each hit carries: a number for both sides, or { before, after } (default 1 each).'),
    limit: limitArg.optional().describe('Most hits to return (default 20).'),
    cursor: cursorArg,
    scope: scopeArg,
    includeDescendants: includeDescendantsArg,
  },
  delete: {
    sessionId: keyArg.describe('The session to delete. It becomes a tombstone with its transcript: hidden from reads, kept in the history.'),
    operationId: operationIdArg,
  },
  context: {
    sessionId: keyArg.describe('The session to assemble the context of.'),
    maxTokens: z.number().int().min(1).describe('The token budget (o200k_base tokens): the entries never sum above it.'),
    recall: limitArg.optional().describe("First, up to this many memories of the session's scope recalled for its last user turn. Omit for none."),
    working: z.boolean().optional().describe("Whether the working memory of the session's scope comes first (default true)."),
  },
  compact: {
    sessionId: keyArg.describe('The session to compact. Its transcript stays whole; the summary replaces any earlier one.'),
    through: compact.through.describe('The turn the summary covers the transcript through (itself included): its id, or its seq.'),
    summary: compact.summary.describe('The summary, sent in place of the turns it covers in the context for the next model call.'),
    model: compact.model.describe('Who wrote the summary, e.g. the model that summarised.'),
    tokens: compact.tokens.describe("The summary's token count, as its writer counted it."),
    operationId: operationIdArg,
  },
} as const;

/** What a lean record leaves out (views.ts); present only in whole records (`full: true`). */
export const WHOLE_ONLY = { originInstanceId: true, updatedHlc: true, lastWriterId: true, deleted: true } as const;

/**
 * A memory item as tools return it: core's schema with `metadata` as a plain
 * JSON object, since core's checked JSON field is a transform, which JSON
 * Schema cannot describe (the record was checked when it was stored).
 */
export const memoryItemOutputSchema = memoryItemSchema.extend({ metadata: jsonObject }).partial({ ...WHOLE_ONLY, source: true });

/** A recalled memory item and its score. */
export const recallHitSchema = memoryItemOutputSchema.extend({ score: z.number().min(0).max(1) });

/** A part of a turn, as outputs describe it: its `type` and the fields of that type. */
const partOut = z.looseObject({ type: z.enum(['text', 'reasoning', 'tool-call', 'tool-result', 'file', 'data']) });

/** A session as tools return it. */
const sessionOut = sessionSchema.extend({ metadata: jsonObject }).partial({ ...WHOLE_ONLY, syncVersion: true });

/** A turn as tools return it; a lean one has no `parts` when they are only its content. */
const turnOut = turnSchema.extend({ parts: z.array(partOut), metadata: jsonObject }).partial({ ...WHOLE_ONLY, syncVersion: true, parts: true });

/** A skill as tools return it. */
const skillOut = z.strictObject(skillSchema.shape).partial(WHOLE_ONLY);

/** A transcript search hit: the turn, its session, its score and its neighbouring turns. */
const turnHitOut = z.object({ turn: turnOut, session: sessionOut, score: z.number().min(0).max(1), before: z.array(turnOut), after: z.array(turnOut) });

/** Inputs of the namespaces tool. */
export const namespaceInputs = {
  prefix: scopeArg.describe("Only scopes under this path, relative to the server's scope (itself included). Omit for the server's scope."),
  maxDepth: namespacesOptionsSchema.shape.maxDepth.describe(
    "Cut each scope to this many labels below the server's scope (0: the server's scope itself); omit for whole paths.",
  ),
  limit: limitArg.optional().describe('Most scopes to return (default 100).'),
  cursor: cursorArg,
} as const;

/** A point of the log: a seq, or an ISO-8601 instant. */
const pointArg = z.union([z.number().int().min(0), z.string().max(64)]);

/** Inputs of the state_diff tool. */
export const diffInputs = {
  from: pointArg.describe('A seq of the log (0: the empty state; a number or its digits, "1"), or an ISO-8601 instant such as 2026-11-29T16:54:02Z.'),
  to: pointArg.optional().describe('A seq or an instant; omit for now.'),
} as const;

/** What changed of one kind of record. */
const recordDiffOut = <T extends z.ZodType>(record: T) =>
  z.object({ created: z.array(record), changed: z.array(z.object({ before: record, after: record })), deleted: z.array(record) });

/** A resolved point: its seq and the instant it reads at. */
const pointOut = z.object({ seq: z.number().int(), time: z.string() });

/** Outputs of every tool. */
export const outputs = {
  item: { item: memoryItemOutputSchema },
  working: { item: memoryItemOutputSchema.nullable() },
  hits: { hits: z.array(recallHitSchema), nextCursor: nextCursorOutput },
  skill: { skill: skillOut },
  skills: { skills: z.array(skillOut), nextCursor: nextCursorOutput },
  session: { session: sessionOut },
  turn: { turn: turnOut },
  turns: { turns: z.array(turnOut) },
  transcript: { session: sessionOut, turns: z.array(turnOut), nextCursor: nextCursorOutput },
  sessions: { sessions: z.array(sessionOut), nextCursor: nextCursorOutput },
  turnHits: { hits: z.array(turnHitOut), nextCursor: nextCursorOutput },
  context: {
    sessionId: z.string(),
    entries: z.array(
      z.union([
        z.object({ kind: z.literal('working'), tokens: z.number().int(), memory: memoryItemOutputSchema }),
        z.object({ kind: z.literal('memory'), tokens: z.number().int(), memory: recallHitSchema }),
        z.object({ kind: z.literal('summary'), tokens: z.number().int(), summary: sessionSummarySchema }),
        z.object({ kind: z.literal('turn'), tokens: z.number().int(), turn: turnOut }),
      ]),
    ),
    tokens: z.number().int(),
    maxTokens: z.number().int(),
    counter: z.string(),
  },
  diff: {
    from: pointOut,
    to: pointOut,
    sessions: recordDiffOut(sessionOut),
    turns: recordDiffOut(turnOut),
    skills: recordDiffOut(skillOut),
    memory: recordDiffOut(memoryItemOutputSchema),
  },
  namespaces: {
    scopes: z.array(z.array(z.string())).describe("Paths relative to the server's scope ([] is the server's scope itself)."),
    nextCursor: nextCursorOutput,
  },
} as const;
