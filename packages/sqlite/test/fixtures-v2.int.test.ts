/**
 * An export written at payload schema version 2 (core's `test/fixtures/v2`:
 * each `session.turn_appended` carrying its session, every turn whole)
 * imports into a SQLite file whose tables equal the state the writing
 * library folded (its tombstones given the clock of their turn's append); a rebuild from the log gives them again, and new writes
 * continue the stream at the current version.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventTypes, STATE_SCHEMA_VERSION, STATE_STREAM } from '@agentstate/core';
import { importSqlite, openSqlite } from '../src/index.js';
import { tempDir } from './helpers.js';
import { givenAppendClocks } from '../../../tools/append-clocks.js';

const FIXTURES = fileURLToPath(new URL('../../core/test/fixtures/v2/', import.meta.url));
const lines = readFileSync(`${FIXTURES}export.jsonl`, 'utf8').split('\n').filter(Boolean);
/** What the writing library folded, but that today's fold gives each tombstone the clock of its turn's append. */
const expected = givenAppendClocks(
  JSON.parse(readFileSync(`${FIXTURES}snapshot.json`, 'utf8')) as {
    seq: number;
    sessions: { id: string; deleted: boolean }[];
    turns: { id: string; deleted: boolean }[];
  },
  lines.flatMap((line) => (JSON.parse(line) as { payload?: unknown }).payload ?? []),
);

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

describe('an export written at payload schema version 2', () => {
  it('imports, rebuilds and continues to the same tables', async () => {
    const file = tmp.file();
    await importSqlite(file, lines);
    const p = await openSqlite(file);
    try {
      expect(await p.snapshot()).toEqual(expected);
      await p.rebuild({ fromScratch: true });
      expect(await p.snapshot()).toEqual(expected);
      const live = expected.sessions.find((s) => !s.deleted)!;
      await p.sessions.appendTurn({ sessionId: live.id, role: 'user', content: 'later' });
      const [last] = await p.log.read({ stream: STATE_STREAM, afterSeq: expected.seq });
      expect(last).toMatchObject({ type: EventTypes.TurnAppended, schemaVersion: STATE_SCHEMA_VERSION });
      const before = await p.snapshot();
      await p.rebuild({ fromScratch: true });
      expect(await p.snapshot()).toEqual(before);
      expect((await p.verify()).ok).toBe(true);
    } finally {
      await p.close();
    }
  });
});
