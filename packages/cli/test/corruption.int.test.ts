import Sqlite from 'better-sqlite3';
import { beforeEach, afterAll, describe, expect, it } from 'vitest';
import { eventChecksum } from '@agentstate/sqlite';
import { tempDir } from './helpers.js';
import { cli, fails, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

let n = 0;

/** A fresh demo database, and a way to change its file behind the library's back. */
function demo(): { db: string; sql: (statement: string, ...params: unknown[]) => void } {
  n += 1;
  const db = tmp.path(`state-${n}.db`);
  ok(['demo', '--db', db]);
  return {
    db,
    sql: (statement, ...params) => {
      const handle = new Sqlite(db);
      try {
        handle.prepare(statement).run(...params);
      } finally {
        handle.close();
      }
    },
  };
}

describe('a damaged database', () => {
  let d: ReturnType<typeof demo>;
  beforeEach(() => {
    d = demo();
  });

  it('fails verification with exit 2 when a table differs from the log; rebuild repairs it', () => {
    d.sql("UPDATE sessions SET title = 'tampered'");
    const r = cli(['verify', '--json', '--db', d.db]);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(false);
    expect(report.differences).toEqual([expect.stringMatching(/^sessions: 1 differ from the log \(/)]);
    expect(r.stderr).toMatch(/^agentstate: verification failed: sessions: 1 differ from the log/);
    expect(fails(2, ['verify', '--db', d.db])).toContain('verification failed');
    ok(['rebuild', '--db', d.db]);
    expect(okJson(['verify', '--db', d.db]).ok).toBe(true);
  });

  it('exits 2 on a malformed event payload, naming its seq', () => {
    d.sql(`UPDATE events SET payload = '{"session":{"id":"x"}}' WHERE stream = 'state' AND seq = 2`);
    expect(fails(2, ['verify', '--db', d.db])).toMatch(
      /^agentstate: verification failed: the log cannot be replayed: corrupt state#2: .*restore the file from a backup/,
    );
    expect(fails(2, ['rebuild', '--db', d.db])).toContain('state#2');
  });

  it('exits 2 on a payload that is not JSON, also when reading the log', () => {
    d.sql(`UPDATE events SET payload = 'not json' WHERE stream = 'state' AND seq = 3`);
    expect(fails(2, ['log', 'tail', '--db', d.db])).toContain('state#3');
    expect(fails(2, ['export', '--db', d.db])).toContain('state#3');
    expect(fails(2, ['verify', '--db', d.db])).toContain('state#3');
  });

  it('exits 2 on a gap in the log', () => {
    d.sql(`DELETE FROM events WHERE stream = 'state' AND seq = 5`);
    expect(fails(2, ['verify', '--db', d.db])).toMatch(/state#6: expected seq 5/);
  });

  it('exits 2 when a stored snapshot was edited', () => {
    ok(['snapshot', '--db', d.db]);
    d.sql(`UPDATE snapshots SET data = replace(data, 'Deploy is failing on staging', 'Something else') WHERE stream LIKE 'state%'`);
    const r = cli(['verify', '--json', '--db', d.db]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      differences: [],
      storedSnapshot: null,
      skippedSnapshots: [{ seq: 18, damaged: true, reason: expect.stringContaining('does not match its SHA-256 digest') }],
    });
    expect(r.stderr).toContain('the stored snapshot at seq 18 is damaged');
  });
});

describe('a log that breaks a fold rule, forged with a valid checksum', () => {
  it('is refused by verify and rebuild alike: exit 2, naming the same seq', () => {
    const d = demo();
    // The second turn of a session, renumbered as its first: a repeated turn seq.
    const handle = new Sqlite(d.db);
    const turns = handle.prepare("SELECT seq, type, schema_version, payload FROM events WHERE type = 'session.turn_appended' ORDER BY seq").all() as {
      seq: number;
      type: string;
      schema_version: number;
      payload: string;
    }[];
    const second = turns.find((row) => (JSON.parse(row.payload) as { turn: { seq: number } }).turn.seq === 2)!;
    const payload = JSON.parse(second.payload) as { turn: { seq: number } };
    payload.turn.seq = 1;
    const text = JSON.stringify(payload);
    handle.prepare('UPDATE events SET payload = ?, checksum = ? WHERE seq = ?').run(text, eventChecksum(second.type, second.schema_version, text), second.seq);
    handle.close();
    const refusal = `corrupt state#${second.seq}: session\\.turn_appended: turn seq 1 of session ".*", expected 2`;
    expect(fails(2, ['verify', '--db', d.db])).toMatch(new RegExp(`^agentstate: verification failed: the log cannot be replayed: ${refusal}`));
    expect(fails(2, ['rebuild', '--db', d.db])).toMatch(new RegExp(`^agentstate: ${refusal}`));
  });
});
