/**
 * The transcript read (`sessions.turns`, `turns({ last })`) decodes rows of
 * a few columns in the driver's raw mode and shares the strings turns
 * repeat: what it returns must equal the full-row decoding turn by turn,
 * whoever wrote each turn, and no returned turn may share a mutable object
 * with another read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ManualClock, seededEntropy } from '@agentstate/core';
import { rowCodec } from '@agentstate/core/backend';
import { openSqlite } from '../src/index.js';

/** The full row of a transcript row, as `SELECT *` reads it. */
const fullRow = (sessionId: string, r: rowCodec.TranscriptRow): rowCodec.TurnRow => ({
  session_id: sessionId,
  seq: r[0],
  id: r[1],
  role: r[2],
  content: r[3],
  parts: r[4],
  metadata: r[5],
  created_at: r[6],
  sync_version: r[7],
  origin_instance_id: r[8],
  hlc_wall: r[9],
  hlc_counter: r[10],
  last_writer_id: r[11],
  appended_hlc: null,
  deleted: 0,
});

describe('transcript read', () => {
  it('decodes rows as the full-row decoding does, as instance ids change from row to row', () => {
    const t = '2026-01-01T00:00:00.000Z';
    const rows: rowCodec.TranscriptRow[] = [
      [1, 'a', 'user', 'hello', '', '{}', t, 1, 'i1', 10, 0, 'i1'],
      [
        2,
        'b',
        'assistant',
        '',
        '[{"type":"text","text":"x"},{"type":"data","name":"d","data":{"k":[1,2]}}]',
        '{"tag":"x","n":{"m":1}}',
        t,
        1,
        'i1',
        11,
        0,
        'i2',
      ],
      [3, 'c', 'tool', 'out', '', '{}', t, 2, 'i2', 12, 3, 'i2'],
      [4, 'd', 'system', '', '', '{"__proto__":{"polluted":true}}', t, 1, 'i2', 13, 0, 'i1'],
      [5, 'e', 'user', 'again', '', '{}', t, 1, 'i1', 14, 0, 'i1'],
    ];
    const turns = rowCodec.transcriptFromRows('s', rows);
    expect(turns).toEqual(rows.map((r) => rowCodec.turnFromRow(fullRow('s', r))));
    expect(turns.map((x) => [x.originInstanceId, x.lastWriterId])).toEqual([
      ['i1', 'i1'],
      ['i1', 'i2'],
      ['i2', 'i2'],
      ['i2', 'i1'],
      ['i1', 'i1'],
    ]);
    expect(Object.hasOwn(turns[3]!.metadata, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(rowCodec.transcriptFromRows('s', [])).toEqual([]);
  });

  it('returns what SELECT * gives, with a page, a cursor and the last turns', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-transcript-'));
    const path = join(dir, 'state.db');
    const a = await openSqlite(path, { clock, entropy: seededEntropy(1), instanceId: 'writer-a' });
    const session = await a.sessions.create({ title: 't' });
    for (let i = 0; i < 12; i += 1) {
      clock.advance(1);
      await a.sessions.appendTurn({
        sessionId: session.id,
        role: i % 3 === 0 ? 'user' : i % 3 === 1 ? 'assistant' : 'tool',
        content: i % 4 === 0 ? '' : `turn ${i}`,
        ...(i % 4 === 0 ? { parts: [{ type: 'text', text: `part ${i}` }] } : {}),
        ...(i % 2 === 0 ? { metadata: { i, nested: { even: true } } } : {}),
      });
    }
    await a.sessions.removeLastTurn(session.id);
    const all = await a.sessions.turns(session.id);
    expect(all).toHaveLength(11);
    const direct = new Database(path, { readonly: true });
    const rows = direct.prepare('SELECT * FROM turns WHERE session_id = ? AND deleted = 0 ORDER BY seq').all(session.id) as rowCodec.TurnRow[];
    direct.close();
    expect(all).toEqual(rows.map(rowCodec.turnFromRow));

    const first = await a.sessions.turns(session.id, { limit: 5 });
    const rest = await a.sessions.turns(session.id, { limit: 10, cursor: first.nextCursor });
    expect([...first, ...rest]).toEqual(all);
    expect(await a.sessions.turns(session.id, { last: 4 })).toEqual(all.slice(-4));

    // A returned turn is the caller's: changing it changes no later read.
    all[1]!.metadata.changed = true;
    all[0]!.parts.push({ type: 'text', text: 'added' });
    all[0]!.updatedHlc.wall = 0;
    expect(await a.sessions.turns(session.id)).toEqual(rows.map(rowCodec.turnFromRow));
    await a.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
