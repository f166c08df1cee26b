/**
 * A forged `erasedBy` (docs/contract.md §7, "Purge"): an event marked as
 * erased by a purge that did not erase it. Every import reads an export
 * through `ExportReader`, and every backend's `verify` replays through
 * `checkReplay`: both refuse the mark, so history can never show a version
 * as erased beside its intact text. A log a purge really rewrote passes both.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '@agentstate/core';
import { ExportFormatError, ManualClock, STATE_STREAM, createInMemoryProvider, decodeStateEvent, seededEntropy } from '@agentstate/core';
import type { ReplaySource } from '@agentstate/core/backend';
import { ExportReader, InMemoryState, checkReplay, exportLine } from '@agentstate/core/backend';

/** m1 ('intact secret') and m2 written, then m2 purged (seq 3): m2's event is marked erasedBy 3. */
async function purgedLog(purge: 'm1' | 'm2' = 'm2'): Promise<LogEvent[]> {
  const p = createInMemoryProvider({ clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(3), instanceId: 'live' });
  await p.memory.write({ id: 'm1', content: 'intact secret' });
  await p.memory.write({ id: 'm2', content: 'other fact' });
  await p.purge({ id: purge, reason: 'request' });
  return p.log.read({ stream: STATE_STREAM });
}

/** `events` with the first one's payload changed by `edit`. */
function forgeFirst(events: readonly LogEvent[], edit: (payload: Record<string, unknown>) => void): LogEvent[] {
  const payload = structuredClone(events[0]!.payload) as Record<string, unknown>;
  edit(payload);
  return [{ ...events[0]!, payload }, ...events.slice(1)];
}

/** Reads `events` as an export with a trailer that matches them (a forger recomputes it). */
function importLines(events: readonly LogEvent[]): void {
  const lines = events.map(exportLine);
  const sha256 = createHash('sha256')
    .update(lines.map((l) => `${l}\n`).join(''))
    .digest('hex');
  const reader = new ExportReader();
  for (const line of [...lines, JSON.stringify({ trailer: { events: lines.length, sha256 } })]) reader.read(line);
  reader.finish();
}

/** What verify's replay reports for `events` as a stored log. */
async function verifyProblems(events: readonly LogEvent[]): Promise<string[]> {
  const source: ReplaySource = {
    head: async () => events.length,
    read: async ({ afterSeq = 0, limit = events.length }) => events.slice(afterSeq, afterSeq + limit),
    latestSnapshot: async () => undefined,
    identity: async () => 'log',
  };
  const state = new InMemoryState();
  for (const event of events) state.apply(decodeStateEvent(event), event.seq);
  const result = await checkReplay(source, { tables: state.capture() });
  return result.problems.map((p) => p.message);
}

describe('a forged erasedBy', () => {
  it('passes import and verify when a purge made it', async () => {
    const events = await purgedLog();
    expect((events[1]!.payload as { erasedBy?: number }).erasedBy).toBe(3);
    expect(() => importLines(events)).not.toThrow();
    expect(await verifyProblems(events)).toEqual([]);
  });

  const cases: Array<[string, (events: LogEvent[]) => LogEvent[], RegExp, number]> = [
    [
      'pointing past the end of the log',
      (e) => forgeFirst(e, (p) => (p.erasedBy = 999999)),
      /event 1 is marked erased by 999999, but the log ends at seq 3/,
      1,
    ],
    [
      'pointing at a purge of another record',
      (e) => forgeFirst(e, (p) => (p.erasedBy = 3)),
      /event 1 is marked erased by 3, which purged none of its records/,
      3,
    ],
    [
      'pointing at an event that is no purge',
      (e) => forgeFirst(e, (p) => (p.erasedBy = 2)),
      /event 1 is marked erased by 2, which is a memory\.written, not a records\.purged/,
      2,
    ],
    ['pointing at its own event', (e) => forgeFirst(e, (p) => (p.erasedBy = 1)), /event 1 is marked erased by 1, which is not a later event/, 1],
  ];
  for (const [what, forge, message, line] of cases) {
    it(`is refused by import and reported by verify when ${what}`, async () => {
      const forged = forge(await purgedLog());
      let error: unknown;
      try {
        importLines(forged);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ExportFormatError);
      expect((error as ExportFormatError).line).toBe(line);
      expect((error as Error).message).toMatch(message);
      expect(await verifyProblems(forged)).toEqual([expect.stringMatching(message)]);
    });
  }

  it('is refused by import and reported by verify beside the text the purge erased', async () => {
    const genuine = await purgedLog('m1');
    const original = (await purgedLog('m2'))[0]!;
    // The first event as written, with the mark of the purge that erased it: the text is back.
    const forged = forgeFirst(genuine, (p) => Object.assign(p, structuredClone(original.payload), { erasedBy: 3 }));
    const message = /event 1 is marked erased by 3 but holds "m1", which that purge erased, intact/;
    expect(() => importLines(forged)).toThrow(message);
    expect(await verifyProblems(forged)).toEqual(expect.arrayContaining([expect.stringMatching(message)]));
  });
});
