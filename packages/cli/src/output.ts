/**
 * What the command prints: human-readable tables by default, JSON with
 * `--json`. Output goes to stdout; progress and errors go to stderr.
 * Tables are laid out in terminal columns (a CJK character or an emoji
 * takes two), and every time printed says its zone.
 */
import stringWidth from 'string-width';
import { io, runState } from './io.js';

/** A column of a table: its header and how to read a row's cell. */
export interface Column<T> {
  header: string;
  cell: (row: T) => string | number;
  /** Cells wider than this are cut with an ellipsis. */
  max?: number;
  /** Numbers read best right-aligned. */
  align?: 'left' | 'right';
}

/** Writes text to the run's stdout, adding a final newline when missing. */
export function print(text = ''): void {
  io().stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Writes a value as pretty JSON to stdout. */
export function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2));
}

/** Text on one line: newlines and tabs become spaces. */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ');
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Cuts `text` to at most `max` terminal columns, ending with an ellipsis
 * when cut. It cuts between graphemes, so never inside a character, an
 * emoji sequence or a letter with its accents; a wide character that would
 * straddle the limit is left out whole.
 */
export function truncate(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = displayWidth(segment);
    if (used + w > max - 1) break;
    kept += segment;
    used += w;
  }
  return `${kept}…`;
}

/** How times are printed: in UTC (the default) or in the local zone (`--local-time`, which honours `TZ`). */
export type TimeDisplay = 'utc' | 'local';

const two = (n: number): string => String(n).padStart(2, '0');

/**
 * An instant to the second, labelled with its zone so it cannot be misread:
 * `2026-11-29 16:54:02Z` in UTC, or `2026-11-29 17:54:02+01:00` in local time.
 * Every instant the CLI prints outside JSON goes through here, so there is
 * one time format in every table, field list and message.
 */
export function shortTime(instant: string, display: TimeDisplay = runState().localTime ? 'local' : 'utc'): string {
  const t = new Date(instant);
  // Text that is no instant (a damaged record, the empty time of seq 0) prints as it is.
  if (Number.isNaN(t.getTime())) return instant;
  if (display === 'utc') return `${t.toISOString().slice(0, 19).replace('T', ' ')}Z`;
  const east = -t.getTimezoneOffset();
  const offset = `${east < 0 ? '-' : '+'}${two(Math.floor(Math.abs(east) / 60))}:${two(Math.abs(east) % 60)}`;
  return `${t.getFullYear()}-${two(t.getMonth() + 1)}-${two(t.getDate())} ${two(t.getHours())}:${two(t.getMinutes())}:${two(t.getSeconds())}${offset}`;
}

/** 1234567 → `1,234,567`. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** A size in bytes for people: `512 B`, `1.4 KiB`, `3.2 MiB`. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Renders rows as an aligned plain-text table (no colours, no borders). */
export function renderTable<T>(columns: readonly Column<T>[], rows: readonly T[]): string {
  const cells = rows.map((row) =>
    columns.map((c) => {
      const text = oneLine(String(c.cell(row)));
      return c.max ? truncate(text, c.max) : text;
    }),
  );
  const widths = columns.map((c, i) => Math.max(displayWidth(c.header), ...cells.map((r) => displayWidth(r[i]!))));
  const line = (values: readonly string[]): string =>
    values
      .map((v, i) => (columns[i]!.align === 'right' ? pad(v, widths[i]!, 'left') : i === values.length - 1 ? v : pad(v, widths[i]!, 'right')))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join('\n');
}

/** Prints a table, or `empty` when there are no rows. */
export function printTable<T>(columns: readonly Column<T>[], rows: readonly T[], empty: string): void {
  print(rows.length === 0 ? empty : renderTable(columns, rows));
}

/** Prints `label: value` pairs with the values aligned. */
export function printFields(fields: ReadonlyArray<readonly [string, string | number]>): void {
  const w = Math.max(...fields.map(([label]) => displayWidth(label)));
  print(fields.map(([label, value]) => `${pad(`${label}:`, w + 1, 'right')} ${value}`).join('\n'));
}

/** The columns `text` takes in a terminal: two for a CJK character or an emoji, none for a combining mark. */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

function pad(text: string, to: number, side: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, to - displayWidth(text)));
  return side === 'left' ? fill + text : text + fill;
}

/**
 * Tells where the next page starts, when there is one: after a table, a
 * line naming the `--cursor` to pass; with `--json`, the same line on
 * stderr, so stdout stays the JSON array it always was.
 */
export function printNextCursor(nextCursor: string | undefined, json: boolean): void {
  if (nextCursor === undefined) return;
  const line = `next page: --cursor ${nextCursor}`;
  if (json) io().stderr.write(`${line}\n`);
  else print(line);
}
