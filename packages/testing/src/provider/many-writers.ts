/** G9, V9, Q1–Q2: what readers, views and exports see of the state stream while writers write at once (docs/contract.md §7, §11). */
import { encodeSnapshot, type EventSourcedProvider, type LogEvent, STATE_STREAM } from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { poll, subscribed } from '../suite/follow.js';
import { checks, freshLog, property, type ProviderCheck } from '../suite/harness.js';
import { expectViewIsReplay, exportLines, readExport, replayedAt } from '../suite/log-cut.js';
import type { AckKind, WriterReport } from '../suite/mixed-writer.js';
import { openForWriters, runWriters, SHARED_SKILL } from '../suite/writers.js';

/** Writers and writes per writer: a few hundred events in all. */
const WRITERS = 8;
const WRITES = 40;

/** The operation id an event of a write carries. */
function operationOf(event: LogEvent): string | undefined {
  return (event.payload as { operation?: { id?: string } }).operation?.id;
}

/** The acknowledged writes of every writer. */
function acksOf(reports: readonly WriterReport[]): { ack: string; kind: AckKind; id: string }[] {
  return reports.flatMap((line) => ('ack' in line ? [line] : []));
}

/** Whether `seqs` strictly increase; on a dense log, whether they are 1..n. */
function expectPositions(seqs: readonly number[], gapped: boolean, label: string): void {
  for (let i = 1; i < seqs.length; i += 1) expect(seqs[i]!, `${label}: position ${i}`).toBeGreaterThan(seqs[i - 1]!);
  if (!gapped) expect(seqs, `${label}: a dense log`).toEqual(seqs.map((_, i) => i + 1));
}

export const writerChecks: ProviderCheck[] = checks(['eventSourced'], {
  'G9 a reader following the log while 8 writers write at once sees exactly the committed events, in the log order, each once': async (env) => {
    const { p, shared, plans } = await openForWriters(env, WRITERS, WRITES);
    const start = await p.log.head(STATE_STREAM);
    const reader = poll(p.log, start);
    const subscriber = subscribed(p.log, start);
    let reports: WriterReport[][];
    try {
      reports = await runWriters(env, p, plans);
    } finally {
      await reader.stop();
    }
    const all = reports.flat();
    expect(all.filter((line) => 'failed' in line)).toEqual([]);
    // Writes 5, 13, 21, 29 and 37 of each writer are refused: one of each kind, and a batch failing
    // midway again.
    expect(all.filter((line) => 'refused' in line)).toHaveLength(WRITERS * 5);
    const committed = await p.log.read({ stream: STATE_STREAM, afterSeq: start });
    // Positions grow strictly; every event is one acknowledged write, each write one event, nothing
    // refused is there.
    const seqs = committed.map((e) => e.seq);
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    const acks = acksOf(all);
    expect(committed.map(operationOf).sort()).toEqual(acks.map((a) => a.ack).sort());
    expect(JSON.stringify(committed)).not.toContain('refused');
    // The followers were handed exactly those events, in that order.
    expect([(await reader.stop()).map((e) => e.seq), await reader.stop()]).toEqual([seqs, committed]);
    if (subscriber) expect(await subscriber.stop(seqs.at(-1) ?? start)).toEqual(committed);
    // Turn numbers stay dense per session, outcomes add up, and the tables equal a replay of the log.
    const count = (kind: AckKind, writer?: string) => acks.filter((a) => a.kind === kind && (writer === undefined || a.ack.startsWith(`${writer}-`))).length;
    expect((await p.sessions.turns(shared.id)).map((t) => t.seq)).toEqual(Array.from({ length: count('shared-turn') }, (_, i) => i + 1));
    for (const session of acks.filter((a) => a.kind === 'session')) {
      const writer = session.ack.split('-')[0]!;
      const seqs = (await p.sessions.turns(session.id)).map((t) => t.seq);
      expect(seqs, writer).toEqual(Array.from({ length: count('turn', writer) }, (_, i) => i + 1));
    }
    expect(await p.skills.get(SHARED_SKILL)).toMatchObject({ uses: count('win') + count('loss'), wins: count('win') });
    expect(encodeSnapshot(await p.snapshot())).toBe(encodeSnapshot(await (await env.replay(p.log, { fromScratch: true })).snapshot()));
  },
  'V9 at({ seq }) and an export up to a seq, at random positions of a log written by 8 writers at once, hold exactly the events up to it': async (env) => {
    const { p, plans } = await openForWriters(env, 8, 24);
    // Writers on providers of their own where the storage has them (G9 runs them as processes), and
    // a snapshot stored while they run: views below and above it fold from different starts.
    const [reports] = await Promise.all([runWriters(env, p, plans, { processes: false }), p.saveSnapshot()]);
    expect(reports.flat().filter((line) => 'failed' in line)).toEqual([]);
    const events = await p.log.read({ stream: STATE_STREAM });
    const positions = [0, ...events.map((e) => e.seq)];
    await property(env, fc.constantFrom(...positions), { examples: [[0], [positions.at(-1)!]] }, async (seq) => {
      const below = events.filter((e) => e.seq <= seq);
      await expectViewIsReplay(p, seq);
      const lines = (await exportLines(p.log, { upTo: seq })).slice(0, -1).map((line) => JSON.parse(line) as { stream: string; seq: number });
      // An export numbers the events it holds densely from 1, whatever gaps the positions have
      // (docs/contract.md §7).
      expect(lines.filter((l) => l.stream === STATE_STREAM).map((l) => l.seq)).toEqual(below.map((_, i) => i + 1));
      expect(encodeSnapshot(await readExport(p.log, { upTo: seq })), `export up to ${seq}`).toBe(encodeSnapshot(await replayedAt(p.log, seq)));
    });
  },
  'Q1 a reader following the state stream while two providers write at once sees every event exactly once, positions strictly increasing': freshLog(
    async (p, env) => {
      const writers: EventSourcedProvider[] = [p];
      if (env.caps.sharedStorage) writers.push(env.eventSourced(await env.openShared(p)));
      let running = true;
      const writes = Promise.all(
        writers.map(async (w, i) => {
          const session = await w.sessions.create({ title: `writer ${i}` });
          for (let n = 0; n < 40; n += 1) {
            if (n % 2 === 0) await w.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `turn ${n} of ${i}` });
            else await w.memory.write({ content: `note ${n} of ${i}`, key: `k${n % 5}`, scope: [`project:w${i}`] });
          }
        }),
      ).finally(() => {
        running = false;
      });
      const seen: number[] = [];
      for (;;) {
        const stopped = !running;
        const batch = await p.log.read({ stream: STATE_STREAM, afterSeq: seen.at(-1) ?? 0, limit: 7 });
        seen.push(...batch.map((e) => e.seq));
        if (stopped && batch.length === 0) break;
      }
      await writes;
      const gapped = p.log.gapped === true;
      expectPositions(seen, gapped, 'the follower');
      const all = (await p.log.read({ stream: STATE_STREAM })).map((e) => e.seq);
      expect(seen, 'the follower saw every event, each once').toEqual(all);
      expect([all.length, await p.log.head(STATE_STREAM)]).toEqual([writers.length * 41, all.at(-1)]);
      // Turn numbers stay dense per session, whatever the stream's positions.
      for (const s of await p.sessions.list()) {
        const turns = await p.sessions.turns(s.id);
        expect(turns.map((t) => t.seq)).toEqual(turns.map((_, i) => i + 1));
      }
    },
  ),
  'Q2 an export numbers the state events densely from 1 in position order, each erasedBy mark with them, and reads back to the live state': freshLog(
    async (p) => {
      const early = await p.memory.write({ content: 'the secret plan' });
      const session = await p.sessions.create({ title: 'talk' });
      for (const content of ['one', 'two', 'three']) await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content });
      await p.memory.update(early.id, { content: 'the secret plan, revised' });
      const purge = await p.purge({ id: early.id, reason: 'asked to forget' });
      await p.memory.write({ content: 'after the purge' });
      const events = await p.log.read({ stream: STATE_STREAM });
      const seqs = events.map((e) => e.seq);
      expectPositions(seqs, p.log.gapped === true, 'the log');
      const lines = (await exportLines(p.log)).map((l) => JSON.parse(l) as Partial<LogEvent> & { payload?: { erasedBy?: number } });
      const state = lines.filter((l) => l.stream === STATE_STREAM);
      expect([state.map((l) => l.seq), state.map((l) => l.type)]).toEqual([events.map((_, i) => i + 1), events.map((e) => e.type)]);
      const rank = new Map(events.map((e, i) => [e.seq, i + 1]));
      const purgeLine = rank.get(purge.seq)!;
      const marked = state.filter((l) => l.payload?.erasedBy !== undefined);
      expect(marked.length).toBeGreaterThan(0);
      for (const l of marked) expect(l.payload!.erasedBy).toBe(purgeLine);
      expect({ ...(await readExport(p.log)), seq: 0 }).toEqual({ ...(await p.snapshot()), seq: 0 });
    },
  ),
});
