/**
 * The full-text indexes are contentless secure-delete tables: every delete
 * names the text the row indexed, and a wrong text would corrupt the index
 * silently. After random writes, updates, deletes and purges of memory,
 * skills and turns, each index must answer every token (and prefix) query
 * exactly like an index built afresh from the live rows, and pass FTS5's
 * own integrity check.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { foldForIndex, skillSearchText, rowCodec } from '@agentstate/core/backend';
import { openSqlite } from '../src/index.js';
import { FTS_OPTIONS } from '../src/schema/derived.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const WORDS = ['Alpha', 'alphabet', 'beta', 'Bétà', 'gamma', 'gam', 'delta', 'ÉPSILON', 'zeta-9', 'eta', 'théta', 'io'];
const QUERIES = [...new Set(WORDS.flatMap((w) => foldForIndex(w).split(' ')).flatMap((t) => [t, t.slice(0, 1), t.slice(0, 2), t.slice(0, 3)]))];
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }).map((ws) => ws.join(' '));

type Op =
  | { op: 'write'; text: string }
  | { op: 'update'; pick: number; text: string }
  | { op: 'delete'; pick: number }
  | { op: 'purge'; pick: number }
  | { op: 'skill'; slug: number; text: string }
  | { op: 'deleteSkill'; slug: number }
  | { op: 'turn'; text: string }
  | { op: 'removeTurn' }
  | { op: 'purgeSession' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('write' as const), text }),
  fc.record({ op: fc.constant('update' as const), pick: fc.nat(), text }),
  fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('purge' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('skill' as const), slug: fc.nat(3), text }),
  fc.record({ op: fc.constant('deleteSkill' as const), slug: fc.nat(3) }),
  fc.record({ op: fc.constant('turn' as const), text }),
  fc.constant({ op: 'removeTurn' as const }),
  fc.constant({ op: 'purgeSession' as const }),
);

/** The rowids each query matches in `table`, and in a fresh index of `expected`. */
function answers(db: Database.Database, table: string, expected: { n: number; text: string }[]): { actual: number[][]; fresh: number[][] } {
  db.exec(`CREATE VIRTUAL TABLE temp.fresh USING fts5(text, ${FTS_OPTIONS})`);
  const insert = db.prepare('INSERT INTO temp.fresh (rowid, text) VALUES (?, ?)');
  for (const row of expected) insert.run(row.n, row.text);
  const ask = (t: string, q: string) => (db.prepare(`SELECT rowid AS n FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid`).all(q) as { n: number }[]).map((r) => r.n);
  const queries = QUERIES.map((q) => `"${q}"*`);
  const out = { actual: queries.map((q) => ask(table, q)), fresh: queries.map((q) => ask('fresh', q)) };
  db.exec('DROP TABLE temp.fresh');
  return out;
}

describe('full-text indexes with secure-delete', () => {
  it('answer every token query like a fresh rebuild after random writes, updates, deletes and purges', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const dir = mkdtempSync(join(tmpdir(), 'agentstate-fts-model-'));
        dirs.push(dir);
        const path = join(dir, 'state.db');
        const state = await openSqlite(path);
        const items: string[] = [];
        let session = (await state.sessions.create({ title: 'chat' })).id;
        let turns = 0;
        const live = async (pick: number) => {
          for (let i = 0; i < items.length; i++) {
            const id = items[(pick + i) % items.length]!;
            if (!(await state.memory.getAny(id)).deleted) return id;
          }
          return undefined;
        };
        for (const o of ops) {
          if (o.op === 'write') items.push((await state.memory.write({ content: o.text })).id);
          else if (o.op === 'update' || o.op === 'delete' || o.op === 'purge') {
            const id = o.op === 'purge' && items.length > 0 ? items[o.pick % items.length] : await live(o.pick);
            if (id === undefined) continue;
            if (o.op === 'update') await state.memory.update(id, { content: o.text });
            else if (o.op === 'delete') await state.memory.delete(id);
            else await state.purge({ id, reason: 'model' });
          } else if (o.op === 'skill') await state.skills.upsert({ slug: `s${o.slug}`, name: o.text, body: o.text.split(' ').reverse().join(' ') });
          else if (o.op === 'deleteSkill') {
            const skills = await state.skills.list();
            const skill = skills.find((s) => s.slug === `s${o.slug}`);
            if (skill) await state.skills.delete(skill.id);
          } else if (o.op === 'turn') {
            await state.sessions.appendTurn({ sessionId: session, role: 'user', content: o.text });
            turns++;
          } else if (o.op === 'removeTurn') {
            if (turns > 0) {
              await state.sessions.removeLastTurn(session);
              turns--;
            }
          } else {
            await state.purge({ id: session, reason: 'model' });
            session = (await state.sessions.create({ title: 'chat' })).id;
            turns = 0;
          }
        }
        expect((await state.verify()).problems).toEqual([]);
        await state.close();
        const db = new Database(path);
        try {
          const rows = (sql: string, fold: (r: never) => string) =>
            (db.prepare(sql).all() as never[]).map((r) => ({ n: (r as { n: number }).n, text: fold(r) }));
          const expected = {
            memory_fts: rows('SELECT n, content FROM memory WHERE deleted = 0', (r: { content: string }) => foldForIndex(r.content)),
            turns_fts: rows('SELECT n, content FROM turns WHERE deleted = 0', (r: { content: string }) => foldForIndex(r.content)),
            skills_fts: rows('SELECT * FROM skills WHERE deleted = 0', (r: rowCodec.SkillRow) => foldForIndex(skillSearchText(rowCodec.skillFromRow(r)))),
          };
          for (const [table, live] of Object.entries(expected)) {
            const { actual, fresh } = answers(db, table, live);
            expect(actual, table).toEqual(fresh);
            db.exec(`INSERT INTO ${table} (${table}) VALUES ('integrity-check')`);
          }
        } finally {
          db.close();
        }
      }),
      { numRuns: 30 },
    );
  });
});
