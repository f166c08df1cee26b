/**
 * The one-round-trip append (`src/known-append.ts`, docs/contract.md §7,
 * "Positions"): a process decides its next turn of a session on what its
 * own last append left, and the server checks that guess under the
 * session's lock. Several providers of one schema, on clocks apart, append
 * to, retitle, trim and delete shared sessions in random order: every guess
 * another provider made stale is caught and the write tried again, so the
 * turn numbers stay dense, each session's clock only grows, nothing
 * refused leaves a trace, and the schema verifies.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareHlc, ManualClock, NotFoundError, STATE_STREAM } from '@agentstate/core';
import type { Hlc } from '@agentstate/core';
import { storedChecksum } from '@agentstate/core/backend';
import pg from 'pg';
import { openPostgres } from '../src/index.js';
import type { PostgresProvider } from '../src/index.js';
import { fresh } from './helpers.js';

/** The instant the providers' clocks start from, a day past the observer's (the system clock): each an hour past the one before. */
const T0 = Date.now() + 24 * 3_600_000;
const HOUR = 3_600_000;
const PROVIDERS = 3;
const SESSIONS = 2;

/** One step: a provider appends to, retitles, trims or deletes a session. */
const arbSteps = fc.array(
  fc.record({
    provider: fc.nat(PROVIDERS - 1),
    session: fc.nat(SESSIONS - 1),
    action: fc.constantFrom('append', 'append', 'append', 'append', 'retitle', 'trim', 'delete'),
  }),
  { minLength: 1, maxLength: 30 },
);

describe('a turn appended to a session the process knows (PostgreSQL)', () => {
  it('property: what other providers did to the session since is never missed: turn numbers dense, clocks growing, refusals without trace', async () => {
    const { provider: observer, url, schema, close } = await fresh();
    let providers: PostgresProvider[] = [];
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(arbSteps, async (steps) => {
          // New providers each run, on clocks past every earlier run's: one whose clock is behind the others' has not
          // observed theirs, so an append decided on the session as it knew it would stamp a clock behind theirs.
          for (const p of providers) await p.close();
          run += 1;
          providers = [];
          for (let i = 0; i < PROVIDERS; i += 1)
            providers.push(await openPostgres(url, { schema, max: 2, clock: new ManualClock(T0 + (run * PROVIDERS + i) * HOUR), instanceId: `writer-${i}` }));
          const ids = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => observer.sessions.create({ title: `s${i}` }).then((s) => s.id)));
          // The model: each session's last turn number (tombstones keep theirs), its live turns, and whether it is deleted.
          const model = ids.map(() => ({ last: 0, live: [] as string[], deleted: false }));
          const before = (await observer.log.read({ stream: STATE_STREAM })).length;
          let written = 0;
          let clock: Hlc[] = [];
          for (const { provider, session, action } of steps) {
            const p = providers[provider]!;
            const id = ids[session]!;
            const state = model[session]!;
            clock = await Promise.all(ids.map(async (sid) => (await observer.sessions.getAny(sid)).updatedHlc));
            if (action === 'append') {
              const content = `turn ${state.last + 1}`;
              if (state.deleted) {
                await expect(p.sessions.appendTurn({ sessionId: id, role: 'user', content })).rejects.toBeInstanceOf(NotFoundError);
                continue;
              }
              const turn = await p.sessions.appendTurn({ sessionId: id, role: 'user', content });
              state.last += 1;
              state.live.push(content);
              expect(turn.seq).toBe(state.last);
              expect(compareHlc(turn.updatedHlc, clock[session]!)).toBeGreaterThan(0);
            } else if (state.deleted) continue;
            else if (action === 'retitle') await p.sessions.update(id, { title: `retitled by ${provider}` });
            else if (action === 'trim') {
              if (state.live.length === 0) continue;
              await p.sessions.removeLastTurn(id);
              state.live.pop();
            } else {
              await p.sessions.delete(id);
              state.deleted = true;
            }
            written += 1;
            const after = await observer.sessions.getAny(id);
            expect(compareHlc(after.updatedHlc, clock[session]!)).toBeGreaterThan(0);
          }
          // Each write one event; a refused one, or a guess tried again, none.
          expect((await observer.log.read({ stream: STATE_STREAM })).length - before).toBe(written);
          for (const [i, id] of ids.entries()) {
            const state = model[i]!;
            if (state.deleted) continue;
            expect((await observer.sessions.turns(id)).map((turn) => turn.content)).toEqual(state.live);
          }
        }),
        { numRuns: 20 },
      );
      expect((await observer.verify()).problems).toEqual([]);
    } finally {
      for (const p of providers) await p.close();
      await close();
    }
  });

  it('stores a checksum the server finished, over the row and its position, which the log checks on every read', async () => {
    const { provider, url, schema, close } = await fresh();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const session = await provider.sessions.create({ title: 'checked' });
      await provider.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'read, then sent in two round trips' });
      const known = await provider.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'sent in one' });
      const { rows } = await client.query(`SELECT * FROM "${schema}".events WHERE stream = $1 ORDER BY seq`, [STATE_STREAM]);
      const last = rows.at(-1) as { seq: string; checksum: string; payload: string };
      expect(JSON.parse(last.payload).turn.id).toBe(known.id);
      expect(last.checksum).toMatch(/^3:/);
      expect(storedChecksum({ ...rows.at(-1), seq: Number(last.seq) })).toBe(last.checksum);
      // The same row at another position no longer matches its checksum.
      await client.query(`UPDATE "${schema}".events SET seq = seq + 100 WHERE stream = $1 AND seq = $2`, [STATE_STREAM, last.seq]);
      expect((await provider.verify()).ok).toBe(false);
    } finally {
      await client.end();
      await close();
    }
  });
});
