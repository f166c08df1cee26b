/**
 * Damaging a database file behind the library's back, the way a failing
 * disk, a bad copy or a careless tool would: finding the pages of a table
 * or index (SQLite's `dbstat`), flipping bytes, overwriting pages,
 * truncating. Always on a checkpointed file no connection has open.
 */
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { readFileSync, writeFileSync } from 'node:fs';
import { rowCodec, foldForIndex, skillSearchText } from '@agentstate/core/backend';
import type { SqliteProvider } from '../src/index.js';

/** A page of the file and the table or index it belongs to. */
export interface Page {
  name: string;
  pageno: number;
  pagetype: string;
}

/** Moves every WAL frame into the file and empties the WAL, so the file alone holds the database. */
export function checkpoint(path: string): void {
  const db = new Database(path);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** Every page of the file with its owner (after a checkpoint), and the page size. */
export function pages(path: string): { pages: Page[]; pageSize: number } {
  checkpoint(path);
  const db = new Database(path, { readonly: true });
  try {
    return {
      pages: db.prepare('SELECT name, pageno, pagetype FROM dbstat ORDER BY pageno').all() as Page[],
      pageSize: db.pragma('page_size', { simple: true }) as number,
    };
  } finally {
    db.close();
  }
}

/** XORs one byte of the file. */
export function flipByte(path: string, offset: number, mask = 0x55): void {
  const bytes = readFileSync(path);
  bytes[offset]! ^= mask;
  writeFileSync(path, bytes);
}

/** Runs SQL on the file through a second connection, as a tamperer would. */
export function tamper(path: string, sql: string, ...params: unknown[]): void {
  const db = new Database(path);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

/**
 * Takes the live row of `table` with the smallest `n` out of its full-text
 * index, by FTS5's 'delete' command with the text it indexed (the indexes
 * are contentless: a plain DELETE is refused).
 */
export function unindexFirst(path: string, table: 'memory' | 'skills'): void {
  const db = new Database(path);
  try {
    const row = db.prepare(`SELECT * FROM ${table} WHERE deleted = 0 ORDER BY n LIMIT 1`).get() as rowCodec.SkillRow & { content: string };
    const text = foldForIndex(table === 'memory' ? row.content : skillSearchText(rowCodec.skillFromRow(row)));
    db.prepare(`INSERT INTO ${table}_fts (${table}_fts, rowid, text) VALUES ('delete', ?, ?)`).run(row.n, text);
  } finally {
    db.close();
  }
}

/** Runs `edit` on the file with sqlite-vec loaded, so it can change the vector tables. */
export function tamperVectors(path: string, edit: (db: Database.Database) => void): void {
  const db = new Database(path);
  try {
    sqliteVec.load(db);
    edit(db);
  } finally {
    db.close();
  }
}

/** A small deterministic PRNG (mulberry32): the fault tests print their seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes a realistic mix: a session with turns, skills with updates and a delete, memory with deletes. */
export async function populate(p: SqliteProvider, n = 60): Promise<void> {
  const s = await p.sessions.create({ title: 'chat about deploys' });
  for (let i = 0; i < n; i += 1) {
    await p.sessions.appendTurn({ sessionId: s.id, role: i % 2 ? 'assistant' : 'user', content: `turn ${i} about the staging deploy ${'·'.repeat(i % 9)}` });
    const m = await p.memory.write({
      content: `fact ${i}: the staging database lives in region ${i % 4} ${'x'.repeat(i * 3)}`,
      scope: i % 2 ? ['project:a'] : [],
    });
    if (i % 7 === 0) await p.memory.delete(m.id);
    if (i % 10 === 0) await p.skills.upsert({ slug: `skill-${i % 3}`, name: `Skill ${i}`, body: `how to deploy step ${i}`, tags: ['ops', `t${i}`] });
  }
  await p.skills.delete('skill-1');
}
