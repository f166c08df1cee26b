/** Q1–Q2: positions of the `state` stream (docs/contract.md §7, "Positions"), dense or gapped. */
import { type EventSourcedProvider, type LogEvent, STATE_STREAM } from '@agentstate/core';
import { expect } from 'vitest';
import { exportLines, readExport } from '../suite/export-read.js';
import { checks, freshLog, type ProviderCheck } from '../suite/harness.js';

/** Whether `seqs` strictly increase; on a dense log, whether they are 1..n. */
function expectPositions(seqs: readonly number[], gapped: boolean, label: string): void {
  for (let i = 1; i < seqs.length; i += 1) expect(seqs[i]!, `${label}: position ${i}`).toBeGreaterThan(seqs[i - 1]!);
  if (!gapped) expect(seqs, `${label}: a dense log`).toEqual(seqs.map((_, i) => i + 1));
}

export const positionChecks: ProviderCheck[] = checks([], {
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
      expect(all).toHaveLength(writers.length * 41);
      expect(await p.log.head(STATE_STREAM)).toBe(all.at(-1));
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
      expectPositions(
        events.map((e) => e.seq),
        p.log.gapped === true,
        'the log',
      );
      const lines = (await exportLines(p.log)).map((l) => JSON.parse(l) as Partial<LogEvent> & { payload?: { erasedBy?: number } });
      const state = lines.filter((l) => l.stream === STATE_STREAM);
      expect(state.map((l) => l.seq)).toEqual(events.map((_, i) => i + 1));
      expect(state.map((l) => l.type)).toEqual(events.map((e) => e.type));
      const rank = new Map(events.map((e, i) => [e.seq, i + 1]));
      const purgeLine = rank.get(purge.seq)!;
      const marked = state.filter((l) => l.payload?.erasedBy !== undefined);
      expect(marked.length).toBeGreaterThan(0);
      for (const l of marked) expect(l.payload!.erasedBy).toBe(purgeLine);
      expect({ ...(await readExport(p.log)), seq: 0 }).toEqual({ ...(await p.snapshot()), seq: 0 });
    },
  ),
});
