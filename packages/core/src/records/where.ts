/**
 * Metadata filters (`where`, docs/contract.md §5): their input shape and the
 * normal form every backend evaluates. A filter maps dotted paths into an
 * item's `metadata` to a scalar (equality) or to operators; every condition
 * must hold. Parsing turns it into a flat list of {@link WhereCondition}s,
 * so the core matcher and a backend's compiled query read the same thing.
 */
import { z } from 'zod';
import { textField } from './fields.js';
import { LIMITS } from './limits.js';

/** A scalar a filter compares with. */
export type WhereScalar = string | number | boolean | null;

/** The operators of a metadata filter. */
export const WHERE_OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists'] as const;

/** Operators that order values: their operand is a number or a string. */
export const ORDERING_OPERATORS = ['$gt', '$gte', '$lt', '$lte'] as const;

/** One condition of a parsed filter: the path's segments, an operator and its operand. */
export type WhereCondition =
  | { path: string[]; op: '$eq' | '$ne'; value: WhereScalar }
  | { path: string[]; op: (typeof ORDERING_OPERATORS)[number]; value: number | string }
  | { path: string[]; op: '$in' | '$nin'; value: WhereScalar[] }
  | { path: string[]; op: '$exists'; value: boolean };

/** Conditions of one filter; all must hold. */
export type WhereFilter = WhereCondition[];

const scalar = z.union([z.string(), z.number().finite(), z.boolean(), z.null()]);
const ordered = z.union([z.string(), z.number().finite()]);

const operatorsSchema = z
  .strictObject({
    $eq: scalar.optional(),
    $ne: scalar.optional(),
    $gt: ordered.optional(),
    $gte: ordered.optional(),
    $lt: ordered.optional(),
    $lte: ordered.optional(),
    $in: z.array(scalar).max(LIMITS.whereValues).optional(),
    $nin: z.array(scalar).max(LIMITS.whereValues).optional(),
    $exists: z.boolean().optional(),
  })
  .refine((ops) => Object.values(ops).some((v) => v !== undefined), 'an operator object needs at least one operator');

const pathSchema = textField(LIMITS.shortText).refine(
  (path) => path.split('.').every((segment) => segment !== ''),
  'a path is dot-separated non-empty keys, such as "a.b"',
);

/** A metadata filter as callers write it: `{ 'a.b': 1, tag: { $in: ['x'] } }`. */
export const whereInputSchema = z
  .record(pathSchema, z.union([scalar, operatorsSchema]))
  .refine((where) => Object.keys(where).length <= LIMITS.whereConditions, `at most ${LIMITS.whereConditions} paths`)
  .transform((where): WhereFilter => {
    const conditions: WhereFilter = [];
    for (const [path, spec] of Object.entries(where)) {
      const segments = path.split('.');
      if (spec === null || typeof spec !== 'object') {
        conditions.push({ path: segments, op: '$eq', value: spec });
        continue;
      }
      for (const op of WHERE_OPERATORS) {
        const value = spec[op];
        if (value !== undefined) conditions.push({ path: segments, op, value } as WhereCondition);
      }
    }
    return conditions;
  });

/** A metadata filter as callers write it. */
export type WhereInput = z.input<typeof whereInputSchema>;
