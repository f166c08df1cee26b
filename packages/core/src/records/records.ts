/**
 * The record shapes of docs/contract.md §2, defined once as zod schemas. Every backend,
 * event payload and snapshot uses these; the TypeScript types are inferred
 * from them so the two cannot drift.
 */
import { z } from 'zod';
import {
  checkField,
  countField,
  hlcCounterField,
  hlcWallField,
  idField,
  instantField,
  labelField,
  longTextField,
  serialField,
  shortTextField,
  slugField,
  tagsField,
  textField,
  WINS_WITHIN_USES,
  winsWithinUses,
} from './fields.js';
import { metadataField } from './json.js';
import { partsField } from './parts.js';
import { LIMITS } from './limits.js';
import type { Hlc } from '../time/hlc.js';

/** A hybrid logical timestamp. */
export const hlcSchema = z.strictObject({
  wall: hlcWallField,
  counter: hlcCounterField,
});

/**
 * Where a session, skill or memory item lives: a path of labels, outermost
 * first. `[]` is the global scope; a scope's parents are its prefixes.
 */
export const scopeSchema = z.array(labelField).max(LIMITS.scopeDepth, `at most ${LIMITS.scopeDepth} labels`);

/** The clock and writer of one write: what orders two writes of a part of a record made on stores apart (docs/contract.md §12). */
export const writeClockSchema = z.strictObject({ updatedHlc: hlcSchema, lastWriterId: idField });

/** A {@link writeClockSchema}. */
export type WriteClock = z.infer<typeof writeClockSchema>;

/** A scope path. `[]` is the global scope. */
export type Scope = z.infer<typeof scopeSchema>;

/** The sync envelope without its tombstone flag: what a checkpoint, which has no tombstones, carries. */
export const versionShape = { syncVersion: serialField, originInstanceId: idField, updatedHlc: hlcSchema, lastWriterId: idField } as const;

/** The sync envelope flattened into every stored record. */
export const envelopeShape = { ...versionShape, deleted: z.boolean() } as const;

/** The envelope fields alone. */
export const envelopeSchema = z.strictObject(envelopeShape);

/** The sync envelope: write counter, origin, clock, last writer, tombstone. */
export type Envelope = z.infer<typeof envelopeSchema>;

/**
 * A session's compaction summary (docs/contract.md §4, "Compaction"): text that stands in, in a context
 * window, for the session's turns up to and including the turn `through` (an id: seqs move when appends
 * written apart merge, §12). Its own clock and writer order two summaries written apart.
 */
export const sessionSummarySchema = z.strictObject({
  text: textField(LIMITS.summary).min(1, 'must not be empty'),
  through: idField,
  /** Who wrote it, e.g. the model that summarised. */
  model: shortTextField.optional(),
  /** Its token count, as its writer counted it. */
  tokens: countField.optional(),
  createdAt: instantField,
  updatedHlc: hlcSchema,
  lastWriterId: idField,
  /** A purge erased a turn it covers since it was written: `context` no longer uses it. */
  stale: z.literal(true).optional(),
});

/** A session's compaction summary. */
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

/** A resumable conversation; `summary` once it was compacted. */
export const sessionSchema = z.strictObject({
  id: idField,
  title: shortTextField,
  model: shortTextField,
  metadata: metadataField,
  scope: scopeSchema,
  createdAt: instantField,
  updatedAt: instantField,
  summary: sessionSummarySchema.optional(),
  /**
   * The clock and writer of its latest field write (`sessions.update`, `delete`) after its creation; absent while its
   * fields are those it was created with. Of two field writes made apart, the later by these stands (docs/contract.md §12).
   */
  fieldsClock: writeClockSchema.optional(),
  ...envelopeShape,
});

/** A resumable conversation. */
export type Session = z.infer<typeof sessionSchema>;

/** The roles a turn may have. */
export const TURN_ROLES = ['user', 'assistant', 'tool', 'system'] as const;

/** Who spoke a turn. */
export type TurnRole = (typeof TURN_ROLES)[number];

/**
 * One entry of a session's transcript: its structured `parts`, and `content`,
 * the text rendering that recall indexes. A tombstone (`deleted`) is a turn
 * removed from the transcript; its seq is never used again.
 */
export const turnSchema = z.strictObject({
  id: idField,
  sessionId: idField,
  seq: serialField,
  role: z.enum(TURN_ROLES),
  content: longTextField,
  parts: partsField,
  metadata: metadataField,
  createdAt: instantField,
  /**
   * On a tombstone (a removal's, a purge's): the clock of the turn's append, which its `updatedHlc` no longer is.
   * With its origin and id it ranks the turn among its session's turns (docs/contract.md §12, "Merge"); absent on a
   * live turn, whose `updatedHlc` is that clock, and on a tombstone written before tombstones kept it.
   */
  appendedHlc: hlcSchema.optional(),
  ...envelopeShape,
});

/** One entry of a session's transcript. */
export type Turn = z.infer<typeof turnSchema>;

/** The clock of a turn's append (live: its own; a tombstone: `appendedHlc`), undefined on a tombstone that lacks it. */
export function appendClock(turn: Turn): Hlc | undefined {
  return turn.deleted ? turn.appendedHlc : turn.updatedHlc;
}

/** `turn` about to take a later version (a removal, a purge), keeping the clock of its append where it is known. */
export function keepingAppendClock(turn: Turn): Turn {
  const appendedHlc = appendClock(turn);
  return appendedHlc === undefined ? turn : { ...turn, appendedHlc };
}

/** A reusable, versioned procedure. */
export const skillSchema = z
  .strictObject({
    id: idField,
    slug: slugField,
    name: shortTextField,
    body: longTextField,
    tags: tagsField,
    scope: scopeSchema,
    uses: countField,
    wins: countField,
    check: checkField,
    version: serialField,
    createdAt: instantField,
    updatedAt: instantField,
    /**
     * The clock and writer of its latest content write (its creation, `upsert`, `delete`), once an outcome was
     * recorded after it; absent while that write is its latest version. Of two content writes made apart, the
     * later by these stands (docs/contract.md §12).
     */
    contentClock: writeClockSchema.optional(),
    /** What the outcomes it holds added to `uses` and `wins`, each once; absent while none was recorded (docs/contract.md §12). */
    outcomes: z.strictObject({ uses: countField, wins: countField }).refine(winsWithinUses, WINS_WITHIN_USES).optional(),
    ...envelopeShape,
  })
  .refine(winsWithinUses, WINS_WITHIN_USES);

/** A reusable, versioned procedure with outcome evidence. */
export type Skill = z.infer<typeof skillSchema>;

/** A memory item's key: non-empty short text, unique among the live items of a scope. */
export const memoryKeySchema = textField(LIMITS.shortText).min(1, 'must not be empty');

/** A durable fact with provenance. */
export const memoryItemSchema = z.strictObject({
  id: idField,
  kind: shortTextField,
  content: longTextField.min(1, 'must not be empty'),
  scope: scopeSchema,
  source: shortTextField,
  /** The slot this item holds in its scope, or `null`. */
  key: memoryKeySchema.nullable(),
  metadata: metadataField,
  /** From this instant on the item is invisible to reads; `null`: never. */
  expiresAt: instantField.nullable(),
  createdAt: instantField,
  /** The last write's instant; never moves back. */
  updatedAt: instantField,
  ...envelopeShape,
});

/** A durable fact with provenance. */
export type MemoryItem = z.infer<typeof memoryItemSchema>;
