/**
 * The record shapes of docs/contract.md §2, defined once as zod schemas. Every backend,
 * event payload and snapshot uses these; the TypeScript types are inferred
 * from them so the two cannot drift.
 */
import { z } from 'zod';

/** An ISO-8601 UTC instant with exactly three fractional digits. */
export const instantSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'expected an instant like 2026-11-29T16:54:02.123Z');

/** A hybrid logical timestamp. */
export const hlcSchema = z.strictObject({
  wall: z.int().nonnegative(),
  counter: z.int().min(0).max(0xffff),
});

/** Where a skill or memory item lives; `''` when a level is unset. */
export const scopeSchema = z.strictObject({
  instance: z.string(),
  project: z.string(),
  workspace: z.string(),
});

/** A scope. The all-empty scope is the global scope. */
export type Scope = z.infer<typeof scopeSchema>;

/** The sync envelope flattened into every stored record. */
export const envelopeShape = {
  syncVersion: z.int().positive(),
  originInstanceId: z.string().min(1),
  updatedHlc: hlcSchema,
  lastWriterId: z.string().min(1),
  deleted: z.boolean(),
} as const;

/** The envelope fields alone. */
export const envelopeSchema = z.strictObject(envelopeShape);

/** The sync envelope: write counter, origin, clock, last writer, tombstone. */
export type Envelope = z.infer<typeof envelopeSchema>;

/** A resumable conversation. */
export const sessionSchema = z.strictObject({
  id: z.string().min(1),
  title: z.string(),
  model: z.string(),
  createdAt: instantSchema,
  updatedAt: instantSchema,
  ...envelopeShape,
});

/** A resumable conversation. */
export type Session = z.infer<typeof sessionSchema>;

/** The roles a turn may have. */
export const TURN_ROLES = ['user', 'assistant', 'tool', 'system'] as const;

/** Who spoke a turn. */
export type TurnRole = (typeof TURN_ROLES)[number];

/** One entry of a session's transcript. */
export const turnSchema = z.strictObject({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  seq: z.int().positive(),
  role: z.enum(TURN_ROLES),
  content: z.string(),
  createdAt: instantSchema,
  ...envelopeShape,
});

/** One entry of a session's transcript. */
export type Turn = z.infer<typeof turnSchema>;

/** A reusable, versioned procedure. */
export const skillSchema = z.strictObject({
  id: z.string().min(1),
  slug: z.string().min(1),
  name: z.string(),
  body: z.string(),
  tags: z.array(z.string()),
  scope: scopeSchema,
  uses: z.int().nonnegative(),
  wins: z.int().nonnegative(),
  check: z.string(),
  version: z.int().positive(),
  createdAt: instantSchema,
  updatedAt: instantSchema,
  ...envelopeShape,
});

/** A reusable, versioned procedure with outcome evidence. */
export type Skill = z.infer<typeof skillSchema>;

/** A durable fact with provenance. */
export const memoryItemSchema = z.strictObject({
  id: z.string().min(1),
  kind: z.string(),
  content: z.string(),
  scope: scopeSchema,
  source: z.string(),
  createdAt: instantSchema,
  ...envelopeShape,
});

/** A durable fact with provenance. */
export type MemoryItem = z.infer<typeof memoryItemSchema>;
