/**
 * The table printer lays rows out in terminal columns: a CJK character or an
 * emoji takes two, so a table mixing them with ASCII still lines up, and a
 * cut never splits a character.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import type { Column } from '../src/output.js';
import { displayWidth, renderTable, shortTime, truncate } from '../src/output.js';

interface Row {
  name: string;
  note: string;
  n: number;
}

const columns: Column<Row>[] = [
  { header: 'name', cell: (r) => r.name, max: 10 },
  { header: 'note', cell: (r) => r.note },
  { header: 'n', cell: (r) => r.n, align: 'right' },
  { header: 'end', cell: () => '|' },
];

const rows: Row[] = [
  { name: 'deploy', note: 'ascii', n: 1 },
  { name: '部署', note: '中文の説明', n: 22 },
  { name: 'デプロイ手順の説明書です', note: '🚀 ship', n: 333 },
  { name: '👨‍👩‍👧 family', note: 'e\u0301te\u0301', n: 4 },
  { name: '🇯🇵x', note: '', n: 5 },
];

/** The display column at which each cell of a line starts, found by its text. */
function starts(line: string, cells: readonly string[]): number[] {
  let from = 0;
  return cells.map((cell) => {
    const at = line.indexOf(cell, from);
    from = at + cell.length;
    return stringWidth(line.slice(0, at));
  });
}

describe('renderTable', () => {
  it('lines up every column by display width when rows mix CJK, emoji and ASCII', () => {
    const lines = renderTable(columns, rows).split('\n');
    const header = starts(lines[0]!, ['NAME', 'NOTE', 'N', 'END']);
    const lastColumn = (line: string): number => stringWidth(line.slice(0, line === lines[0] ? line.indexOf('END') : line.lastIndexOf('|')));
    // Every row's last column (a plain bar) starts at the same display column as its header.
    for (const line of lines) expect(lastColumn(line)).toBe(header[3]);
    // The second column starts at the same display column on every row.
    const notes = ['NOTE', 'ascii', '中文の説明', '🚀 ship', 'e\u0301te\u0301'];
    for (const [i, note] of notes.entries()) expect(starts(lines[i]!, [note])[0]).toBe(header[1]);
    // Right-aligned numbers end right before the last column's gap, so at the same display column.
    for (const line of lines) expect(line.slice(0, line === lines[0] ? line.indexOf('END') : line.lastIndexOf('|')).trimEnd()).toMatch(/(N|\d)$/);
  });

  it('cuts a wide cell to its maximum display width', () => {
    const line = renderTable(columns, [rows[2]!]).split('\n')[1]!;
    expect(line.startsWith('デプロイ… ')).toBe(true);
  });
});

describe('truncate', () => {
  it('counts wide characters twice and never cuts inside a character', () => {
    expect(truncate('中文中文中文', 6)).toBe('中文…');
    expect(displayWidth(truncate('中文中文中文', 6))).toBe(5);
    // A wide character that would straddle the limit is left out whole.
    expect(truncate('a中文中文', 5)).toBe('a中…');
    expect(truncate('👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', 4)).toBe('👨‍👩‍👧…');
    expect(truncate('🇯🇵🇯🇵🇯🇵', 4)).toBe('🇯🇵…');
    expect(truncate('e\u0301e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301…');
    expect(truncate('short', 5)).toBe('short');
    expect(truncate('中文', 4)).toBe('中文');
  });
});

describe('shortTime', () => {
  it('labels UTC times with Z', () => {
    expect(shortTime('2026-11-29T16:54:02.123Z')).toBe('2026-11-29 16:54:02Z');
  });

  it('prints local times with their offset', () => {
    const instant = '2026-11-29T16:54:02.123Z';
    const local = shortTime(instant, 'local');
    expect(local).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    // Read back as an ISO instant with that offset, it is the same moment.
    expect(Date.parse(local.replace(' ', 'T'))).toBe(Date.parse('2026-11-29T16:54:02Z'));
  });
});
