/**
 * Loading the shipped word-vector table: read it, check its SHA-256 against
 * the one the embedder id was built from, and decode it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { TableFormatError } from '../errors.js';
import { decodeTable, type WordTable } from './format.js';
import { TABLE_INFO } from './table-info.js';

/** Where the shipped table lives: `data/` beside `dist/` (and `src/`). */
export const SHIPPED_TABLE_URL = new URL(`../../data/${TABLE_INFO.file}`, import.meta.url);

function checked(bytes: Uint8Array): WordTable {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== TABLE_INFO.sha256) {
    throw new TableFormatError(`${TABLE_INFO.file} has SHA-256 ${sha256}, expected ${TABLE_INFO.sha256}`);
  }
  return decodeTable(bytes);
}

/** Loads the shipped table, reading the file without blocking. */
export async function loadShippedTable(): Promise<WordTable> {
  return checked(await readFile(SHIPPED_TABLE_URL));
}

/** Loads the shipped table synchronously. */
export function loadShippedTableSync(): WordTable {
  return checked(readFileSync(SHIPPED_TABLE_URL));
}
