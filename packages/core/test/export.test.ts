/**
 * The export format, backend-neutral: `exportLog` writes canonical lines and
 * a trailer that `ExportReader` accepts, folding to the same state as a
 * replay; any cut, edit, malformed line or fold violation is an
 * `ExportFormatError` naming the line.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { LogEvent } from '@agentstate/core';
import { ExportFormatError, ManualClock, STATE_STREAM, createInMemoryProvider, encodeSnapshot, exportLog, replay, seededEntropy } from '@agentstate/core';
import { ExportReader, exportLine } from '@agentstate/core/backend';
import { readTrailer } from '../src/export/trailer.js';

type Op =
  | { kind: 'session' }
  | { kind: 'turn'; text: string }
  | { kind: 'memory'; text: string }
  | { kind: 'skill'; slug: string }
  | { kind: 'forget' }
  | { kind: 'purge' };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'session' }),
  fc.string({ maxLength: 20 }).map<Op>((text) => ({ kind: 'turn', text })),
  fc.string({ minLength: 1, maxLength: 20 }).map<Op>((text) => ({ kind: 'memory', text })),
  fc.constantFrom('a', 'b').map<Op>((slug) => ({ kind: 'skill', slug })),
  fc.constant<Op>({ kind: 'forget' }),
  fc.constant<Op>({ kind: 'purge' }),
);

/** A provider after `ops`, and its export as lines (without newlines). */
async function exported(ops: readonly Op[]) {
  const p = createInMemoryProvider({ clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(5), instanceId: 'live' });
  const sessions: string[] = [];
  const items: string[] = [];
  for (const op of ops) {
    if (op.kind === 'session' || (op.kind === 'turn' && sessions.length === 0)) sessions.push((await p.sessions.create({})).id);
    if (op.kind === 'turn') await p.sessions.appendTurn({ sessionId: sessions[sessions.length - 1]!, role: 'user', content: op.text });
    if (op.kind === 'memory') items.push((await p.memory.write({ content: op.text })).id);
    if (op.kind === 'skill') await p.skills.upsert({ slug: op.slug, body: 'b' });
    if (op.kind === 'forget' && items.length > 0) await p.memory.delete(items.pop()!);
    // A purge marks the events it rewrote `erasedBy`: the reader holds each mark to it.
    if (op.kind === 'purge' && sessions.length > 0) await p.purge({ id: sessions.pop()!, reason: 'r' });
  }
  let text = '';
  const trailer = await exportLog(
    p.log,
    (chunk) => {
      text += chunk;
    },
    { batchSize: 3 },
  );
  return { p, trailer, lines: text.split('\n').slice(0, -1) };
}

function readAll(lines: readonly string[], options: { allowUntrailed?: boolean } = {}) {
  const reader = new ExportReader();
  for (const line of lines) reader.read(line);
  return reader.finish(options);
}

function refusal(run: () => unknown): ExportFormatError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ExportFormatError);
    return error as ExportFormatError;
  }
  throw new Error('expected a refusal');
}

describe('exportLog and ExportReader', () => {
  it('round-trip any live log to the state a replay folds, with a matching trailer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp, { maxLength: 25 }), async (ops) => {
        const { p, trailer, lines } = await exported(ops);
        const events = await p.log.read({ stream: STATE_STREAM });
        expect(lines.slice(0, -1)).toEqual(events.map(exportLine));
        const read = readAll(lines);
        expect(read.trailer).toEqual(trailer);
        expect(encodeSnapshot(read.state.capture())).toBe(encodeSnapshot(await (await replay(p.log)).snapshot()));
      }),
      { numRuns: 30 },
    );
  });

  it('refuses a cut, an edit, a stray line and a missing trailer, naming the line', async () => {
    const { lines } = await exported([{ kind: 'session' }, { kind: 'turn', text: 'hi' }, { kind: 'memory', text: 'fact' }]);
    const trailerAt = lines.length;
    expect(refusal(() => readAll(lines.slice(0, -1))).message).toMatch(/ends after 3 events without a trailer line/);
    expect(readAll(lines.slice(0, -1), { allowUntrailed: true }).trailer).toBeUndefined();
    expect(refusal(() => readAll([...lines.slice(0, 2), lines[trailerAt - 1]!])).line).toBe(3);
    const edited = [...lines];
    edited[2] = edited[2]!.replace('fact', 'fict');
    expect(refusal(() => readAll(edited)).message).toBe(
      `line ${trailerAt}: the sha256 of the trailer does not match the events before it: the export was changed or damaged`,
    );
    expect(refusal(() => readAll([...lines, lines[0]!])).message).toBe(
      `line ${trailerAt + 1}: a line after the trailer (line ${trailerAt}), which must be the last`,
    );
    expect(refusal(() => readAll(['{'])).message).toBe('line 1: not valid JSON');
    expect(refusal(() => readAll([''])).message).toBe('line 1: a blank line (an export has none)');
    expect(refusal(() => readAll([lines[1]!])).message).toMatch(/^line 1: expected seq 1, found 2/);
  });

  it('refuses a line that breaks a fold rule, as the live API never writes it', async () => {
    const { lines } = await exported([{ kind: 'session' }, { kind: 'turn', text: 'one' }, { kind: 'turn', text: 'two' }]);
    const forged = JSON.parse(lines[2]!) as LogEvent<{ turn: { seq: number } }>;
    forged.payload.turn.seq = 1;
    const error = refusal(() => readAll([lines[0]!, lines[1]!, exportLine(forged)]));
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/^line 3: session\.turn_appended: turn seq 1 of session ".*", expected 2 \(the live API never writes this\)$/);
  });

  it('refuses an event time earlier than the one before it in its stream, naming the line', async () => {
    const p = createInMemoryProvider({ clock: new ManualClock(Date.UTC(2026, 0, 1)), entropy: seededEntropy(5), instanceId: 'live' });
    await p.memory.write({ content: 'one' });
    await p.memory.write({ content: 'two' });
    await p.retention.set({ record: 'memory', maxAge: '1d' });
    await p.retention.set({ record: 'turn', maxAge: '2d' });
    let text = '';
    await exportLog(p.log, (chunk) => {
      text += chunk;
    });
    const lines = text.split('\n').slice(0, -2);
    const earlier = (line: string): string => exportLine({ ...(JSON.parse(line) as LogEvent), time: '2025-12-31T23:59:59.999Z' });
    const read = (edited: readonly string[]) => () => {
      const reader = new ExportReader();
      for (const line of edited) reader.read(line);
    };
    // Equal times pass; each stream is held to its own times, so the first policy may precede the last state event.
    read([lines[0]!, lines[1]!, earlier(lines[2]!), lines[3]!])();
    const state = refusal(read([lines[0]!, earlier(lines[1]!)]));
    expect(state.line).toBe(2);
    expect(state.message).toBe(
      'line 2: "time" 2025-12-31T23:59:59.999Z is earlier than 2026-01-01T00:00:00.000Z, the time of the state event before it (line 1): times never decrease along a stream',
    );
    const retention = refusal(read([lines[0]!, lines[1]!, lines[2]!, earlier(lines[3]!)]));
    expect(retention.message).toMatch(/^line 4: "time" 2025-12-31T23:59:59\.999Z is earlier than .*, the time of the retention event before it \(line 3\)/);
  });

  it('reads trailers strictly', () => {
    const sha256 = 'a'.repeat(64);
    expect(readTrailer({ trailer: { events: 2, sha256 } })).toEqual({ events: 2, sha256 });
    expect(readTrailer({ trailer: { events: -1, sha256 } })).toMatch(/non-negative integer/);
    expect(readTrailer({ trailer: { events: 1, sha256: 'A'.repeat(64) } })).toMatch(/64 lowercase hex/);
    expect(readTrailer({ trailer: { events: 1 } })).toMatch(/exactly "events" and "sha256"/);
    expect(readTrailer({ trailer: { events: 1, sha256 }, extra: 1 } as { trailer: unknown })).toMatch(/only "trailer"/);
  });
});
