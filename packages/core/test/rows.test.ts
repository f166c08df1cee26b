/**
 * The row codec of the SQL backends: every record reads back from its row
 * as it was written, whichever column a row leaves empty (parts the content
 * gives, a last writer that is the origin) and whichever way a driver hands
 * back `deleted` (0 and 1, or a boolean).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '@agentstate/core';
import { partsFromContent } from '@agentstate/core';
import { rowCodec } from '@agentstate/core/backend';
import { arbHlc, arbId, arbJsonValue, arbMemoryItem, arbSession, arbSkill, arbTurn } from '@agentstate/testing/arbitraries';

/** The row a driver returns for `values` of `columns`, `deleted` as 0/1 or as a boolean. */
function rowOf<R>(columns: string, values: readonly rowCodec.RowValue[], booleans: boolean): R {
  const names = columns.split(',').map((c) => c.trim());
  expect(values).toHaveLength(names.length);
  const row: Record<string, unknown> = Object.fromEntries(names.map((name, i) => [name, values[i]]));
  if (booleans && 'deleted' in row) row.deleted = row.deleted === 1;
  return row as R;
}

/** An envelope written by its origin half the time: the row then leaves the writer out. */
const byOrigin = <T extends Envelope>(arb: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.tuple(arb, fc.boolean()).map(([record, own]) => (own ? { ...record, lastWriterId: record.originInstanceId } : record));

describe('the SQL row codec', () => {
  it('reads every session, skill and memory item back from its row', () => {
    fc.assert(
      fc.property(byOrigin(arbSession()), byOrigin(arbSkill()), byOrigin(arbMemoryItem()), fc.boolean(), (session, skill, item, booleans) => {
        expect(rowCodec.sessionFromRow(rowOf(rowCodec.SESSION_COLUMNS, rowCodec.sessionValues(session), booleans))).toEqual(session);
        expect(rowCodec.skillFromRow(rowOf(rowCodec.SKILL_COLUMNS, rowCodec.skillValues(skill), booleans))).toEqual(skill);
        expect(rowCodec.memoryFromRow(rowOf(rowCodec.MEMORY_COLUMNS, rowCodec.memoryValues(item), booleans))).toEqual(item);
      }),
    );
  });

  it('reads every turn back from its row and from its transcript row, parts the content gives left out', () => {
    fc.assert(
      fc.property(byOrigin(arbTurn()), fc.boolean(), fc.boolean(), (written, plain, booleans) => {
        const turn = plain ? { ...written, parts: partsFromContent(written.content) } : written;
        const row = rowOf<Record<string, unknown>>(rowCodec.TURN_COLUMNS, rowCodec.turnValues(turn), booleans);
        expect(rowCodec.turnFromRow(row as never)).toEqual(turn);
        if (plain) expect(row.parts).toBe('');
        if (turn.lastWriterId === turn.originInstanceId) expect(row.last_writer_id).toBe('');
        const transcript = rowCodec.TRANSCRIPT_COLUMNS.split(',').map((c) => row[c.trim()]) as rowCodec.TranscriptRow;
        expect(rowCodec.transcriptFromRows(turn.sessionId, [transcript])).toEqual([{ ...turn, deleted: false }]);
      }),
    );
  });

  it('reads a row that holds the parts and the last writer itself the same, and a tombstone the clock of its append', () => {
    fc.assert(
      fc.property(arbTurn(), fc.option(arbHlc(), { nil: undefined }), fc.boolean(), (written, appendedHlc, booleans) => {
        const turn = appendedHlc === undefined ? written : { ...written, deleted: true, appendedHlc };
        const row = rowOf<Record<string, unknown>>(rowCodec.TURN_COLUMNS, rowCodec.turnValues(turn), booleans);
        const full = { ...row, parts: JSON.stringify(turn.parts), last_writer_id: turn.lastWriterId };
        expect(rowCodec.turnFromRow(full as never)).toEqual(turn);
      }),
    );
  });

  it('reads every operation entry and checkpoint write back from its row', () => {
    const entries = fc.record(
      { id: arbId(), seq: fc.nat(), inputHash: fc.option(fc.stringMatching(/^[0-9a-f]{1,64}$/), { nil: undefined }) },
      { requiredKeys: ['id', 'seq'] },
    );
    const writes = fc.record({
      threadId: arbId(),
      namespace: fc.constantFrom('', 'inner'),
      checkpointId: arbId(),
      taskId: arbId(),
      idx: fc.integer({ min: -4, max: 100 }),
      taskPath: fc.constantFrom('', 'a|b'),
      channel: fc.constantFrom('messages', '__error__'),
      value: arbJsonValue(),
    });
    fc.assert(
      fc.property(entries, writes, (entry, write) => {
        expect(rowCodec.operationFromRow(rowOf('id, seq, input_hash', rowCodec.operationValues(entry), false))).toEqual(entry);
        expect(rowCodec.checkpointWriteFromRow(rowOf(rowCodec.CHECKPOINT_WRITE_COLUMNS, rowCodec.checkpointWriteValues(write), false))).toEqual(write);
      }),
    );
  });
});
