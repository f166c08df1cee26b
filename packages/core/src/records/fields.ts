/**
 * Field rules shared by the input schemas and the record schemas that decode
 * events, defined once so that the decoder refuses exactly what the live API
 * could not have written (docs/contract.md §4, §7). One exception: the slug
 * alphabet binds new writes only, so older slugs outside it still decode.
 */
import { z } from 'zod';
import { HLC_MAX_COUNTER } from '../time/hlc.js';
import { isCanonicalInstant, MAX_INSTANT_MS } from '../time/instant.js';
import { LIMITS } from './limits.js';

const NUL = '\u0000';
/** A UTF-16 surrogate without its pair: not Unicode text, and no UTF-8 store can keep it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** NUL or any surrogate: text without one (nearly all of it) needs no closer look, which keeps folds fast. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters this pattern exists to find.
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

/** Why `text` cannot be stored (it holds NUL or a lone surrogate), or undefined when it can. */
export function textProblem(text: string): string | undefined {
  if (!SUSPECT.test(text)) return undefined;
  if (text.includes(NUL)) return 'must not contain NUL characters';
  return LONE_SURROGATE.test(text) ? 'must be well-formed Unicode (no lone surrogates)' : undefined;
}

/** Text of at most `max` characters, without NUL and without lone surrogates. */
export function textField(max: number) {
  return z
    .string()
    .max(max, `at most ${max} characters`)
    .superRefine((s, ctx) => {
      const problem = textProblem(s);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    });
}

/**
 * True when `value` is text {@link textField}(`max`) accepts at a glance: a
 * string of at most `max` characters with no NUL and no surrogate at all.
 * False says nothing (text with an emoji is valid): ask the schema.
 */
export function isPlainText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length <= max && !SUSPECT.test(value);
}

/** A record id: caller-chosen or generated, never empty. */
export const idField = textField(LIMITS.id).min(1, 'must not be empty');

/**
 * A stored skill's slug, as the decoder reads it: any non-empty text. Slugs
 * written before {@link SLUG_PATTERN} existed keep decoding, folding and
 * importing, so the alphabet is checked only where a slug enters.
 */
export const slugField = textField(LIMITS.slug).min(1, 'must not be empty');

/**
 * The slug alphabet (docs/contract.md §4): lowercase ASCII letters and
 * digits, with single `-`, `_` or `.` between them, so a slug starts and
 * ends with a letter or digit. It keeps slugs safe in paths, URIs and shells
 * (no `../..`, no spaces).
 */
export const SLUG_PATTERN = /^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/;

/** The slug rule in words, as a refused slug's `ValidationError` states it. */
export const SLUG_RULE = `lowercase ASCII letters and digits with single "-", "_" or "." between them (1–${LIMITS.slug} characters)`;

/** Whether `slug` is one that `skills.upsert` accepts: {@link SLUG_PATTERN}, at most `LIMITS.slug` characters. */
export function isSlug(slug: string): boolean {
  return slug.length <= LIMITS.slug && SLUG_PATTERN.test(slug);
}

/** The slug of a skill being written: {@link slugField} within the slug alphabet. */
export const slugInputField = slugField.regex(SLUG_PATTERN, `must be ${SLUG_RULE}`);

/** Titles, models, names, kinds, sources, scope labels, tags. */
export const shortTextField = textField(LIMITS.shortText);

/** One label of a scope path: non-empty short text. */
export const labelField = shortTextField.min(1, 'must not be empty');

/** Turn content, skill bodies, memory content. */
export const longTextField = textField(LIMITS.longText);

/** A skill's `check` command. */
export const checkField = textField(LIMITS.check);

/** A skill's tags. */
export const tagsField = z.array(shortTextField).max(LIMITS.tags, `at most ${LIMITS.tags} tags`);

/**
 * A count that starts at 0 (`uses`, `wins`). zod's integers are safe
 * integers, so a count past `Number.MAX_SAFE_INTEGER` is refused.
 */
export const countField = z.int('must be a safe integer').nonnegative();

/** A counter that starts at 1 (`syncVersion`, `version`, a turn's `seq`). */
export const serialField = z.int('must be a safe integer').positive();

/** An ISO-8601 UTC instant with exactly three fractional digits, of a date that exists. */
export const instantField = z.string().refine(isCanonicalInstant, 'expected an instant like 2026-11-29T16:54:02.123Z');

/** The HLC's wall: Unix ms that an instant can represent. */
export const hlcWallField = z.int().nonnegative().max(MAX_INSTANT_MS, 'must not lie beyond year 9999');

/** The HLC's counter within one millisecond. */
export const hlcCounterField = z.int().min(0).max(HLC_MAX_COUNTER);

/** Refuses `wins` above `uses`: an outcome cannot succeed without being used. */
export function winsWithinUses(value: { uses?: number | undefined; wins?: number | undefined }): boolean {
  return value.uses === undefined || value.wins === undefined || value.wins <= value.uses;
}

/** The message and path of a {@link winsWithinUses} failure. */
export const WINS_WITHIN_USES = { message: 'must not exceed uses', path: ['wins'] };
