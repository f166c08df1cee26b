/**
 * History on a SQLite file reads a record's events through the history index
 * in one range read (`recordEvents`): the versions equal the in-memory
 * provider's for the same writes, and an index row naming an event the log
 * lacks, or an event row changed since it was written, is a `CorruptionError`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import type { Provider } from '@agentstate/core';
import { CorruptionError, createInMemoryProvider, ManualClock, seededEntropy } from '@agentstate/core';
import { openSqlite } from '../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A session with turns interleaved with other writes, and a memory item rewritten: records whose events are not in one run. */
async function populate(p: Provider): Promise<{ session: string; item: string }> {
  const session = await p.sessions.create({ title: 'long' });
  const item = await p.memory.write({ key: 'plan', content: 'Ship on Friday' });
  for (let i = 0; i < 20; i += 1) {
    await p.sessions.appendTurn({ sessionId: session.id, role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` });
    await p.skills.upsert({ slug: `skill-${i % 3}`, body: `body ${i}` });
    if (i % 4 === 0) await p.memory.write({ key: 'plan', content: `Ship in ${i} days` });
  }
  return { session: session.id, item: item.id };
}

function file(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentstate-history-read-'));
  dirs.push(dir);
  return join(dir, 'state.db');
}

describe('history on a SQLite file', () => {
  it('reads every version as the in-memory provider does', async () => {
    const path = file();
    const sqlite = openSqlite(path, { clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(9), instanceId: 'a' });
    const memory = createInMemoryProvider({ clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(9), instanceId: 'a' });
    const ids = await populate(sqlite);
    await populate(memory);
    for (const id of [ids.session, ids.item]) {
      const versions = await sqlite.history(id);
      expect(versions.length).toBeGreaterThan(5);
      expect(versions).toEqual(await memory.history(id));
    }
    await sqlite.close();
  });

  it('refuses an index row naming an event the log lacks, and an event row changed since', async () => {
    const path = file();
    const p = openSqlite(path);
    const { item } = await populate(p);
    await p.close();
    const db = new Database(path);
    db.prepare('INSERT INTO record_events (record_id, seq) VALUES (?, ?)').run(item, 10_000);
    db.close();
    let reopened = openSqlite(path);
    await expect(reopened.history(item)).rejects.toThrow(CorruptionError);
    await expect(reopened.history(item)).rejects.toThrow(/log has no such event/);
    await reopened.close();

    const fix = new Database(path);
    fix.prepare('DELETE FROM record_events WHERE seq = 10000').run();
    const [seq] = (fix.prepare('SELECT seq FROM record_events WHERE record_id = ? ORDER BY seq LIMIT 1').all(item) as { seq: number }[]).map((r) => r.seq);
    fix.prepare("UPDATE events SET payload = replace(payload, 'Friday', 'Sunday') WHERE stream = 'state' AND seq = ?").run(seq);
    fix.close();
    reopened = openSqlite(path);
    await expect(reopened.history(item)).rejects.toThrow(CorruptionError);
    await reopened.close();
  });
});
