/**
 * Retention policies (docs/contract.md §11): which records expire after how
 * long. A policy covers one record kind in a namespace and its descendants,
 * optionally only memory of one kind; a covered record is expired once its
 * age (from `updatedAt`, a turn's from `createdAt`) reaches `maxAgeMs`.
 */
import { z } from 'zod';
import { RetentionEventTypes } from '../log/events.js';
import { countField, idField, instantField, shortTextField } from './fields.js';
import { scopeInputSchema } from './inputs.js';
import { hlcSchema, scopeSchema } from './records.js';

/** The record kinds a policy can cover. */
export const RETENTION_RECORDS = ['session', 'turn', 'memory', 'skill'] as const;

/** A record kind a policy covers. */
export type RetentionRecord = (typeof RETENTION_RECORDS)[number];

/**
 * What a sweep does with an expired record: `tombstone` deletes it as the
 * stores do (history keeps it); `purge` erases it from storage.
 */
export const RETENTION_ACTIONS = ['tombstone', 'purge'] as const;

/** A stored retention policy. */
export const retentionPolicySchema = z.strictObject({
  /** Names the policy; setting a policy with a taken id replaces it. */
  id: idField,
  /** The namespace it covers, with its descendants; `[]` covers everything. */
  scope: scopeSchema,
  record: z.enum(RETENTION_RECORDS),
  /** Only memory items of this kind (only with `record: 'memory'`); `null`: every kind. */
  memoryKind: shortTextField.nullable(),
  /** The age at which a covered record expires, in milliseconds (at least 1). */
  maxAgeMs: countField.min(1, 'must be at least 1'),
  action: z.enum(RETENTION_ACTIONS),
  /** When the policy was set. */
  setAt: instantField,
});

/** A stored retention policy. */
export type RetentionPolicy = z.infer<typeof retentionPolicySchema>;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 365 * 86_400_000 };

/** An age: milliseconds, or text like `90d`, `12h`, `30m`, `1y` (units ms, s, m, h, d, w, y; a year is 365 days). */
const durationField = z.union([
  countField.min(1, 'must be at least 1'),
  z
    .string()
    .regex(/^[1-9]\d{0,9}(ms|s|m|h|d|w|y)$/, 'must be a whole number and a unit (ms, s, m, h, d, w, y), like 90d')
    .transform((text) => {
      const [, n, unit] = /^(\d+)(\w+)$/.exec(text)!;
      return Number(n) * UNIT_MS[unit!]!;
    }),
]);

/** `retention.set` input. */
export const setRetentionInputSchema = z
  .strictObject({
    id: idField.optional(),
    scope: scopeInputSchema.optional(),
    record: z.enum(RETENTION_RECORDS),
    memoryKind: shortTextField.optional(),
    maxAge: durationField,
    action: z.enum(RETENTION_ACTIONS).optional(),
  })
  .refine((input) => input.memoryKind === undefined || input.record === 'memory', { message: 'only with record "memory"', path: ['memoryKind'] });

/** `retention.set` input: `maxAge` in milliseconds or as text like `90d`. */
export type SetRetentionInput = z.input<typeof setRetentionInputSchema>;

/**
 * Where a policy change stands among concurrent ones (docs/contract.md §12): the HLC of the
 * provider that made it, and the replica id of the store it was made on. A store's own changes
 * carry no `origin`; changes written before policies synced carry neither.
 */
const changeStamp = { hlc: hlcSchema.optional(), origin: idField.optional() };

/** The payload schema of each event type of the `retention` stream: a policy set, or the id of one removed. */
const retentionPayloadSchemas = {
  [RetentionEventTypes.PolicySet]: z.strictObject({ policy: retentionPolicySchema, ...changeStamp }),
  [RetentionEventTypes.PolicyRemoved]: z.strictObject({ id: idField, ...changeStamp }),
} as const;

/** A change of one retention policy as stores exchange it (docs/contract.md §12): a `retention` event, always stamped. */
export const policyChangeSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal(RetentionEventTypes.PolicySet),
    payload: retentionPayloadSchemas[RetentionEventTypes.PolicySet].required({ hlc: true, origin: true }),
  }),
  z.strictObject({
    type: z.literal(RetentionEventTypes.PolicyRemoved),
    payload: retentionPayloadSchemas[RetentionEventTypes.PolicyRemoved].required({ hlc: true, origin: true }),
  }),
]);

/** A change of one retention policy, set or removed, with the HLC and replica id it was made with. */
export type PolicyChange = z.infer<typeof policyChangeSchema>;

/** The payload schema of a `retention` event of `type`, or undefined for a type the stream does not have. */
export function retentionPayloadSchema(type: string) {
  return Object.hasOwn(retentionPayloadSchemas, type) ? retentionPayloadSchemas[type as keyof typeof retentionPayloadSchemas] : undefined;
}
