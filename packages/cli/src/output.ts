/**
 * What the command prints: human-readable tables by default, JSON with
 * `--json`. Output goes to stdout; progress and errors go to stderr.
 */

/** A column of a table: its header and how to read a row's cell. */
export interface Column<T> {
  header: string;
  cell: (row: T) => string | number;
  /** Cells wider than this are cut with an ellipsis. */
  max?: number;
  /** Numbers read best right-aligned. */
  align?: 'left' | 'right';
}

/** Writes text to stdout, adding a final newline when missing. */
export function print(text = ''): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Writes a value as pretty JSON to stdout. */
export function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2));
}

/** Text on one line: newlines and tabs become spaces. */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ');
}

/** Cuts `text` to `max` characters, ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** An instant as `2026-11-29 16:54:02`, in UTC. */
export function shortTime(instant: string): string {
  return instant.slice(0, 19).replace('T', ' ');
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
  const widths = columns.map((c, i) => Math.max(width(c.header), ...cells.map((r) => width(r[i]!))));
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
  const w = Math.max(...fields.map(([label]) => width(label)));
  print(fields.map(([label, value]) => `${pad(`${label}:`, w + 1, 'right')} ${value}`).join('\n'));
}

function width(text: string): number {
  return [...text].length;
}

function pad(text: string, to: number, side: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, to - width(text)));
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
  if (json) process.stderr.write(`${line}\n`);
  else print(line);
}
