/** B31 snapshots as a cache, B40 corruption in the log. */
import type { AppendInput, EventSourcedProvider, Log, Provider } from '@agentstate/core';
import { CorruptionError, encodeSnapshot, EventTypes, foldLog, hmacCodec, STATE_STREAM, ValidationError } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { populate, snapshotText } from '../suite/fixtures.js';
import type { ProviderCheck } from '../suite/harness.js';

/** One more write, so the next snapshot sits at a new seq. */
async function write(p: Provider, n: number): Promise<void> {
  await p.memory.write({ content: `note ${n}` });
}

/** A log that records the `afterSeq` of every read of the state stream. */
function recordingReads(log: Log, reads: number[]): Log {
  return {
    append: (input) => log.append(input),
    read: (query) => {
      if (query.stream === STATE_STREAM) reads.push(query.afterSeq ?? 0);
      return log.read(query);
    },
    head: (stream) => log.head(stream),
    saveSnapshot: (snapshot) => log.saveSnapshot(snapshot),
    latestSnapshot: (stream, options) => log.latestSnapshot(stream, options),
  };
}

/** A view of `log` whose `state` event at `seq` reads as `input`: a stored event the log never accepted. */
function replacing(log: Log, seq: number, input: AppendInput): Log {
  return {
    ...recordingReads(log, []),
    read: async (query) => {
      const events = await log.read(query);
      if (query.stream !== STATE_STREAM) return events;
      return events.map((e) => (e.seq === seq ? { ...e, type: input.type, schemaVersion: input.schemaVersion ?? 1, payload: input.payload } : e));
    },
  };
}

/** Replaces the first `from` in `data` by `to`: a one-byte flip inside the sealed body. */
function flip(data: string, from: string, to: string): string {
  const i = data.indexOf(from);
  expect(i, `"${from}" in snapshot data`).toBeGreaterThanOrEqual(0);
  return data.slice(0, i) + to + data.slice(i + from.length);
}

export const snapshotChecks: ProviderCheck[] = [
  {
    name: 'B31 replay from a snapshot equals a full replay; tampered, undecodable and wrong-seq snapshots are skipped',
    needs: ['eventSourced', 'snapshotCodec'],
    async run(env) {
      const codec = hmacCodec('conformance-secret');
      const p = env.eventSourced(await env.open({ snapshotCodec: codec }));
      const log = p.log;
      await populate(p);

      // k: a good snapshot, sealed with the provider's codec.
      const text = await snapshotText(p);
      const good = await p.saveSnapshot();
      expect(good).toEqual({ stream: STATE_STREAM, seq: await log.head(STATE_STREAM), data: good.data });
      expect(codec.open(good.data)).toBe(text);
      const k = good.seq;
      await write(p, 1);

      // m1: a valid snapshot whose body is then changed by one byte (the HMAC no longer matches).
      const m1 = await p.saveSnapshot();
      expect(m1.seq).toBe(k + 1);
      await log.saveSnapshot({ ...m1, data: flip(m1.data, 'plan the release', 'plan the releasf') });
      const atM1 = await p.snapshot();
      await write(p, 2);

      // m2: authentic but undecodable; m3: not even sealed.
      await log.saveSnapshot({ stream: STATE_STREAM, seq: k + 2, data: codec.seal('{"format":"agentstate.snapshot/1","seq":') });
      await write(p, 3);
      await log.saveSnapshot({ stream: STATE_STREAM, seq: k + 3, data: 'garbage' });
      await write(p, 4);

      // m4: authentic and decodable, but its inner seq (k + 1) disagrees with its stored seq.
      await log.saveSnapshot({ stream: STATE_STREAM, seq: k + 4, data: codec.seal(encodeSnapshot(atM1)) });
      await write(p, 5);
      const head = await log.head(STATE_STREAM);
      expect(head).toBe(k + 5);

      // Beyond the head: authentic and self-consistent, but it claims events that do not exist.
      const future = { ...(await p.snapshot()), seq: head + 10 };
      await log.saveSnapshot({ stream: STATE_STREAM, seq: head + 10, data: codec.seal(encodeSnapshot(future)) });

      const full = await snapshotText(await env.replay(log, { fromScratch: true, snapshotCodec: codec }));
      const live = await snapshotText(p);
      expect(full).toBe(live);
      const fold = await foldLog(log, { snapshotCodec: codec });
      expect(fold.snapshotSeq).toBe(k);
      expect(fold.skipped.map((s) => s.seq)).toEqual([k + 4, k + 3, k + 2, k + 1]);
      // The replay starts from snapshot k and reads only the events after it.
      const reads: number[] = [];
      expect(await snapshotText(await env.replay(recordingReads(log, reads), { snapshotCodec: codec }))).toBe(full);
      expect(Math.min(...reads)).toBe(k);

      // With the good one tampered too, the fold starts from scratch and still agrees.
      await log.saveSnapshot({ ...good, data: flip(good.data, 'plan the release', 'plan the releasf') });
      const fallback = await foldLog(log, { snapshotCodec: codec });
      expect(fallback.snapshotSeq).toBe(0);
      expect(fallback.skipped.map((s) => s.seq)).toEqual([k + 4, k + 3, k + 2, k + 1, k]);
      expect(await snapshotText(await env.replay(log, { snapshotCodec: codec }))).toBe(full);
    },
  },
  {
    name: 'B40 log.append refuses a malformed state event; one in the log makes replay fail with a CorruptionError naming its seq',
    needs: ['eventSourced'],
    async run(env) {
      const cases: Array<{ label: string; bad: (p: EventSourcedProvider) => Promise<AppendInput> }> = [
        { label: 'missing record', bad: async () => ({ stream: STATE_STREAM, type: EventTypes.SessionCreated, payload: {} }) },
        {
          label: 'wrong field type',
          bad: async (p) => ({ stream: STATE_STREAM, type: EventTypes.SessionCreated, payload: { session: { ...(await p.sessions.list())[0], title: 42 } } }),
        },
        {
          label: 'unknown event type',
          bad: async (p) => ({ stream: STATE_STREAM, type: 'session.renamed', payload: { session: (await p.sessions.list())[0] } }),
        },
        {
          label: 'turn_appended without its turn',
          bad: async (p) => ({ stream: STATE_STREAM, type: EventTypes.TurnAppended, payload: { session: (await p.sessions.list())[0] } }),
        },
        {
          label: 'skill with null tags',
          bad: async () => {
            const skill = { id: 'k1', slug: 'deploy', name: '', body: '', tags: null, scope: { instance: '', project: '', workspace: '' } };
            return { stream: STATE_STREAM, type: EventTypes.SkillUpserted, payload: { skill } };
          },
        },
        {
          label: 'a date that does not exist',
          bad: async (p) => ({
            stream: STATE_STREAM,
            type: EventTypes.SessionCreated,
            payload: { session: { ...(await p.sessions.list())[0], id: 'feb-30', createdAt: '2026-02-30T00:00:00.000Z' } },
          }),
        },
        {
          label: 'a schema version newer than the library',
          bad: async (p) => ({ stream: STATE_STREAM, type: EventTypes.SessionCreated, schemaVersion: 99, payload: { session: (await p.sessions.list())[0] } }),
        },
      ];
      for (const { label, bad } of cases) {
        const p = env.eventSourced(await env.open());
        const session = await p.sessions.create({ title: 'ok' });
        const copy = (n: number) => ({ stream: STATE_STREAM, type: EventTypes.SessionCreated, payload: { session: { ...session, id: `${session.id}-${n}` } } });
        const good = await p.log.append(copy(2));
        expect(good.seq, label).toBe(2);
        const malformed = await bad(p);
        await expectError(() => p.log.append(malformed), ValidationError, label);
        expect(await p.log.head(STATE_STREAM), `${label}: a refused append stores nothing`).toBe(2);
        // A valid event after it: the error must name the malformed one, not the last.
        await p.log.append(copy(3));
        // The malformed event can only reach a fold through storage the log does not guard; a view stands in for it.
        const damaged = replacing(p.log, 2, malformed);
        const error = await expectError(() => env.replay(damaged), CorruptionError, label);
        expect(error.seq, label).toBe(2);
        expect(error.stream, label).toBe(STATE_STREAM);
        const scratch = await expectError(() => env.replay(damaged, { fromScratch: true }), CorruptionError, label);
        expect(scratch.seq, label).toBe(2);
        await env.release(p);
      }
    },
  },
];
