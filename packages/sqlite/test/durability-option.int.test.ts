/**
 * The `durability` option: each level opens the file with the synchronous
 * level the README promises, and a contradiction with `synchronous` is
 * refused (`@agentstate/open` reads the programs' choice from
 * AGENTSTATE_DURABILITY).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '@agentstate/core';
import { openSqlite } from '../src/index.js';
import { openConnection } from '../src/open.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
afterAll(() => dir.cleanup());

/** `PRAGMA synchronous` of a connection opened with `options`: 1 is NORMAL, 2 FULL. */
function synchronousOf(options: Parameters<typeof openConnection>[1]): unknown {
  const conn = openConnection(dir.file(), options);
  try {
    return conn.db.pragma('synchronous', { simple: true });
  } finally {
    conn.db.close();
  }
}

describe('durability', () => {
  it("maps 'power-loss' (the default) to FULL and 'process-crash' to NORMAL", () => {
    expect(synchronousOf({})).toBe(2);
    expect(synchronousOf({ durability: 'power-loss' })).toBe(2);
    expect(synchronousOf({ durability: 'process-crash' })).toBe(1);
    expect(synchronousOf({ durability: 'process-crash', synchronous: 'normal' })).toBe(1);
  });

  it('refuses an unknown level and one that contradicts synchronous, before opening the file', async () => {
    const file = dir.file();
    await expect(openSqlite(file, { durability: 'fsync' as never })).rejects.toThrow(ValidationError);
    await expect(openSqlite(file, { durability: 'process-crash', synchronous: 'full' })).rejects.toThrow(/contradicts synchronous 'full'/);
  });
});
