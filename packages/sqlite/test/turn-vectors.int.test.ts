/**
 * Turn vectors follow their session: deleting a session drops the vectors
 * of its turns (the turns stay live rows), so a nearest-neighbour search
 * never spends its k on them; a rebuild derives none for them and verify
 * agrees with both.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../src/index.js';
import type { SqliteProvider } from '../src/index.js';
import { bagOfWordsEmbedder, tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let path: string;
beforeEach(() => {
  tmp = tempDir();
  path = tmp.file();
});
afterEach(() => tmp.cleanup());

/** How many turn vectors the file holds for the turns of `sessionId`, listing and sqlite-vec table alike. */
function storedVectors(sessionId: string): { listed: number; live: number } {
  const db = new Database(path, { readonly: true });
  try {
    const listed = db.prepare('SELECT count(*) AS n FROM turn_vectors v JOIN turns t ON t.n = v.turn_n WHERE t.session_id = ?').get(sessionId) as { n: number };
    const live = db.prepare('SELECT count(*) AS n FROM turns WHERE session_id = ? AND deleted = 0').get(sessionId) as { n: number };
    return { listed: listed.n, live: live.n };
  } finally {
    db.close();
  }
}

async function twoSessions(p: SqliteProvider): Promise<{ gone: string; kept: string }> {
  const gone = await p.sessions.create({ title: 'to delete' });
  const kept = await p.sessions.create({ title: 'to keep' });
  for (let i = 0; i < 6; i += 1) await p.sessions.appendTurn({ sessionId: gone.id, role: 'user', content: `the staging deploy failed again ${i}` });
  await p.sessions.appendTurn({ sessionId: kept.id, role: 'user', content: 'the staging deploy failed once' });
  return { gone: gone.id, kept: kept.id };
}

describe('turn vectors of a deleted session', () => {
  it('are dropped with the session, and rebuild and verify agree', async () => {
    const p = await openSqlite(path, { embedder: bagOfWordsEmbedder() });
    const { gone, kept } = await twoSessions(p);
    expect(storedVectors(gone)).toEqual({ listed: 6, live: 6 });
    await p.sessions.delete(gone);
    // The turns stay live rows of a tombstoned session: only their vectors go.
    expect(storedVectors(gone)).toEqual({ listed: 0, live: 6 });
    expect(storedVectors(kept)).toEqual({ listed: 1, live: 1 });
    const hits = await p.sessions.search({ query: 'staging deploy failed', mode: 'semantic' });
    expect(hits.map((h) => h.session.id)).toEqual([kept]);
    expect(await p.verify()).toMatchObject({ ok: true, problems: [] });
    await p.rebuild();
    expect(storedVectors(gone)).toEqual({ listed: 0, live: 6 });
    expect(storedVectors(kept)).toEqual({ listed: 1, live: 1 });
    expect(await p.verify()).toMatchObject({ ok: true, problems: [] });
    await p.close();
  });
});
