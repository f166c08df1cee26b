/**
 * Instants are ISO-8601 UTC strings with exactly three fractional digits, so
 * their text order is their time order (docs/contract.md §2).
 */

/** An ISO-8601 UTC instant such as `2026-11-29T16:54:02.123Z`. */
export type Instant = string;

const INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let lastMs = Number.NaN;
let lastInstant = '';

/** Formats Unix milliseconds as a fixed-width instant. */
export function formatInstant(ms: number): Instant {
  // Writes come in bursts within one millisecond; formatting dominates otherwise.
  if (ms !== lastMs) {
    lastInstant = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastInstant;
}

/** Unix milliseconds of an instant. */
export function instantToMs(instant: Instant): number {
  return Date.parse(instant);
}

/** True when `value` is already in the canonical fixed-width form. */
export function isCanonicalInstant(value: string): boolean {
  return INSTANT_PATTERN.test(value) && formatInstant(Date.parse(value)) === value;
}

/**
 * Normalises any ISO-8601 date-time with a zone to the canonical form, or
 * returns `undefined` when it cannot be parsed or falls outside years 0–9999.
 */
export function normalizeInstant(value: string): Instant | undefined {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return undefined;
  const out = formatInstant(ms);
  return INSTANT_PATTERN.test(out) ? out : undefined;
}
