/**
 * What each derived structure of a SQLite store costs: bytes on disk per
 * record and WAL pages per write, by table and index, read from SQLite's own
 * `dbstat` table and from the page numbers in the WAL's frame headers (each
 * frame names the page it carries; `dbstat` names the b-tree that page
 * belongs to). The store holds a realistic mix: sessions with turns, keyed
 * memory with metadata, skills with outcomes, vectors from the offline
 * embedder, and a stored snapshot. Prints a table per write kind; the
 * architecture's table of derived structures quotes it.
 *
 * `npm run derived -w @agentstate/bench` (after `npm run build`).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import Database from 'better-sqlite3';
import { createStaticEmbedder } from '@agentstate/embeddings';
import { openSqlite } from '@agentstate/sqlite';
import { fmt, printTable } from './table.js';
import { freshFiles, turnTexts } from './turn-text.js';

const SESSIONS = 20;
const TURNS_PER_SESSION = 100;
const MEMORY = 1_000;
const SKILLS = 50;
const WRITES = 40;
const sentence = turnTexts(7);
const { freshFile } = freshFiles('agentstate-bench-derived-');

/** The structure a b-tree belongs to: its table, with FTS5 and sqlite-vec shadow tables folded into their virtual table. */
function structureOf(table: string): string {
  return table.replace(/^(\w+_fts)_\w+$/, '$1').replace(/^(\w+_vec)_\d+(_\w+)?$/, '$1 (vec0)');
}

/** Bytes and pages of every structure in the file: each table with its indexes. */
function btrees(path: string): Map<string, { bytes: number; pages: Set<number> }> {
  const db = new Database(path, { readonly: true });
  try {
    const tables = new Map(
      (db.prepare('SELECT name, tbl_name FROM sqlite_schema').all() as { name: string; tbl_name: string }[]).map((r) => [r.name, r.tbl_name]),
    );
    tables.set('sqlite_schema', 'sqlite_schema');
    const rows = db.prepare('SELECT name, pageno, pgsize FROM dbstat').all() as { name: string; pageno: number; pgsize: number }[];
    const out = new Map<string, { bytes: number; pages: Set<number> }>();
    for (const { name: btree, pageno, pgsize } of rows) {
      const name = structureOf(tables.get(btree) ?? btree);
      const entry = out.get(name) ?? { bytes: 0, pages: new Set<number>() };
      entry.bytes += pgsize;
      entry.pages.add(pageno);
      out.set(name, entry);
    }
    return out;
  } finally {
    db.close();
  }
}

/** The page number of every frame in the WAL, in order (a page written twice counts twice: each is a frame written). */
function walFrames(path: string, pageSize: number): number[] {
  const wal = `${path}-wal`;
  const size = statSync(wal).size;
  const fd = openSync(wal, 'r');
  const header = Buffer.alloc(24);
  const pages: number[] = [];
  try {
    for (let offset = 32; offset + 24 + pageSize <= size; offset += 24 + pageSize) {
      readSync(fd, header, 0, 24, offset);
      pages.push(header.readUInt32BE(0));
    }
  } finally {
    closeSync(fd);
  }
  return pages;
}

/** WAL frames per write, by b-tree, over `WRITES` calls of `write` into an emptied WAL. */
async function framesPerWrite(path: string, write: (i: number) => Promise<unknown>): Promise<Map<string, number>> {
  const other = new Database(path);
  other.pragma('wal_checkpoint(TRUNCATE)');
  const pageSize = other.pragma('page_size', { simple: true }) as number;
  other.close();
  for (let i = 0; i < WRITES; i += 1) await write(i);
  const owner = new Map<number, string>();
  for (const [name, { pages }] of btrees(path)) for (const page of pages) owner.set(page, name);
  const out = new Map<string, number>();
  for (const page of walFrames(path, pageSize)) {
    const name = owner.get(page) ?? (page === 1 ? 'file header' : 'free pages');
    out.set(name, (out.get(name) ?? 0) + 1 / WRITES);
  }
  return out;
}

async function main(): Promise<void> {
  const path = freshFile();
  const state = await openSqlite(path, { embedder: createStaticEmbedder(), durability: 'process-crash' });
  try {
    const sessions = [];
    for (let s = 0; s < SESSIONS; s += 1) sessions.push(await state.sessions.create({ title: `session ${s}` }));
    for (let t = 0; t < TURNS_PER_SESSION; t += 1) {
      for (const session of sessions) await state.sessions.appendTurn({ sessionId: session.id, role: t % 2 === 0 ? 'user' : 'assistant', content: sentence() });
    }
    for (let m = 0; m < MEMORY; m += 1) {
      await state.memory.write({ key: `fact-${m}`, content: sentence(), metadata: { topic: `t${m % 10}`, rank: m } });
    }
    for (let k = 0; k < SKILLS; k += 1) {
      const skill = await state.skills.upsert({ slug: `skill-${k}`, name: `Skill ${k}`, body: sentence() });
      await state.skills.recordOutcome(skill.id, { success: k % 3 !== 0 });
    }
    await state.memory.recall({ query: 'warm the vectors', mode: 'hybrid' });
    await state.sessions.search({ query: 'warm the vectors', mode: 'hybrid' });
    await state.saveSnapshot();

    const records: Record<string, number> = { turns: SESSIONS * TURNS_PER_SESSION, memory: MEMORY, sessions: SESSIONS, skills: SKILLS };
    const sizes = [...btrees(path)].sort(([, a], [, b]) => b.bytes - a.bytes);
    printTable(
      `Bytes by table (with its indexes): ${SESSIONS} sessions × ${TURNS_PER_SESSION} turns, ${MEMORY} memory items, ${SKILLS} skills, one snapshot; load average ${loadavg()[0]!.toFixed(1)}`,
      ['table', 'bytes', 'bytes per turn', 'bytes per memory item'],
      sizes.map(([name, { bytes }]) => [name, fmt(bytes), fmt(bytes / records.turns!), fmt(bytes / records.memory!)]),
    );

    const session = sessions[0]!;
    const turnFrames = await framesPerWrite(path, (i) => state.sessions.appendTurn({ sessionId: session.id, role: 'user', content: sentence() + i }));
    const plain = await openSqlite(path, { durability: 'process-crash' });
    const plainFrames = await framesPerWrite(path, (i) => plain.sessions.appendTurn({ sessionId: session.id, role: 'user', content: sentence() + i })).finally(
      () => plain.close(),
    );
    const memoryFrames = await framesPerWrite(path, (i) => state.memory.write({ key: `fact-${i}`, content: sentence(), metadata: { topic: 'new', rank: i } }));
    const names = [...new Set([...plainFrames.keys(), ...turnFrames.keys(), ...memoryFrames.keys()])].sort(
      (a, b) => (turnFrames.get(b) ?? 0) - (turnFrames.get(a) ?? 0),
    );
    const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    printTable(
      `WAL pages per write (NORMAL, ${WRITES} writes into an emptied WAL each)`,
      ['table', 'appendTurn, no embedder', 'appendTurn, offline embedder', 'memory.write (new version of a key)'],
      [
        ...names.map((name) => [name, fmt(plainFrames.get(name) ?? 0, 2), fmt(turnFrames.get(name) ?? 0, 2), fmt(memoryFrames.get(name) ?? 0, 2)]),
        ['all', fmt(total(plainFrames), 1), fmt(total(turnFrames), 1), fmt(total(memoryFrames), 1)],
      ],
    );
  } finally {
    await state.close();
  }
}

await main();
