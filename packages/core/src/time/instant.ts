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

/** The later of two instants (canonical instants order as text). */
export function laterInstant(a: Instant, b: Instant): Instant {
  return a >= b ? a : b;
}

/** Unix milliseconds of an instant. */
export function instantToMs(instant: Instant): number {
  return Date.parse(instant);
}

/** The two-digit number at `at` of a string the pattern matched. */
const twoDigits = (value: string, at: number): number => (value.charCodeAt(at) - 48) * 10 + value.charCodeAt(at + 1) - 48;

/**
 * True when `value` is already in the canonical fixed-width form: the pattern,
 * and fields in range (what a round trip through `Date` would keep as is),
 * checked without building a `Date`, since decoding a snapshot checks every
 * instant of every record.
 */
export function isCanonicalInstant(value: string): boolean {
  if (!INSTANT_PATTERN.test(value)) return false;
  const year = Number(value.slice(0, 4));
  const month = twoDigits(value, 5);
  const day = twoDigits(value, 8);
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    twoDigits(value, 11) <= 23 &&
    twoDigits(value, 14) <= 59 &&
    twoDigits(value, 17) <= 59
  );
}

/** The largest Unix ms an instant can hold: the last millisecond of year 9999. */
export const MAX_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An ISO-8601 date, optionally with a time and then a zone: `2026-11-29`,
 * `2026-11-29T17:54:02+01:00`, `2026-11-29 16:54:02.1234Z`.
 */
const ISO_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2})))?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** Days of a month (1–12) in the proleptic Gregorian calendar. */
function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/**
 * Normalises an ISO-8601 date (taken as UTC midnight) or date-time with a
 * zone to the canonical form. Returns `undefined` for anything else: other
 * formats, a time without a zone (its meaning would depend on the machine),
 * a date or time that does not exist (`2026-02-30`, `24:00`, `10:60`), or an
 * instant outside years 0–9999.
 */
export function normalizeInstant(value: string): Instant | undefined {
  const m = ISO_PATTERN.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', , sign, zh = '00', zm = '00'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59 || Number(zh) > 23 || Number(zm) > 59) return undefined;
  const zone = sign === undefined ? 'Z' : `${sign}${zh}:${zm}`;
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}.${fraction.padEnd(3, '0').slice(0, 3)}${zone}`);
  if (!Number.isFinite(ms)) return undefined;
  const out = formatInstant(ms);
  return INSTANT_PATTERN.test(out) ? out : undefined;
}
