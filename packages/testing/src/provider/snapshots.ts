/** B31 snapshots as a cache, B40 corruption in the log, X16–X17 snapshots bound to their log, X27 snapshots of earlier formats. */
import type { AppendInput, Log, LogEvent, Provider, Session, Snapshot } from '@agentstate/core';
import {
  CorruptionError,
  encodeSnapshot,
  EventTypes,
  hmacCodec,
  ManualClock,
  seededEntropy,
  SNAPSHOT_CHUNKS_FORMAT,
  STATE_STREAM,
  ValidationError,
} from '@agentstate/core';
import {
  chunkStream,
  encodeSnapshotChunks,
  eventDigest,
  foldLog,
  formatBoundSnapshot,
  loadSnapshot,
  parseBoundSnapshot,
  snapshotBinding,
  storedHeadRows,
} from '@agentstate/core/backend';
import fc from 'fast-check';
import { expect } from 'vitest';
import { arbOperations, runOperations } from '../arbitraries/operations.js';
import { expectError } from '../suite/expect-error.js';
import { expectViewIsReplay, logWith } from '../suite/log-cut.js';
import { populate, snapshotText, T0 } from '../suite/fixtures.js';
import { checks, freshLog, needing, property, type ProviderCheck } from '../suite/harness.js';
import { FORMAT_4_MEMORY_PART, namedRowHolding, rowsNow, storedHeads, storedSnapshotRows, storeEarlierFormat } from '../suite/snapshot-rows.js';

/** One more write, so the next snapshot sits at a new seq. */
async function write(p: Provider, n: number): Promise<void> {
  await p.memory.write({ content: `note ${n}` });
}

/** A log that records every read of the state stream. */
function recordingReads(log: Log, reads: Array<{ afterSeq: number; limit: number }>): Log {
  return logWith(log, {
    read: (query) => {
      if (query.stream === STATE_STREAM) reads.push({ afterSeq: query.afterSeq ?? 0, limit: query.limit ?? 0 });
      return log.read(query);
    },
  });
}

/** A view of `log` whose `state` event at `seq` reads as `input`: a stored event the log never accepted. */
function replacing(log: Log, seq: number, input: AppendInput): Log {
  const replaced = (e: LogEvent) => (e.seq === seq ? { ...e, type: input.type, schemaVersion: input.schemaVersion ?? 1, payload: input.payload } : e);
  return logWith(log, { read: async (query) => (query.stream === STATE_STREAM ? (await log.read(query)).map(replaced) : log.read(query)) });
}

/** Replaces the first `from` in `data` by `to`: a one-byte flip inside the sealed body. */
function flip(data: string, from: string, to: string): string {
  const i = data.indexOf(from);
  expect(i, `"${from}" in snapshot data`).toBeGreaterThanOrEqual(0);
  return data.slice(0, i) + to + data.slice(i + from.length);
}

/** `snapshot` cut into chunks, which are stored in `log`: the content of its head, for a check to bind as it likes. */
async function storedChunksOf(log: Log, snapshot: Snapshot): Promise<string> {
  const { head, chunks } = encodeSnapshotChunks(snapshot);
  for (const [sha256, data] of chunks) await log.saveSnapshot({ stream: chunkStream(sha256), seq: 0, data });
  return head;
}

/** Replaces the first `from` by `to` in the stored row (a chunk or an index chunk) of the snapshot at `seq` that holds it: an edit its head's digest must catch. */
async function flipRow(log: Log, seq: number, from: string, to: string): Promise<void> {
  const row = await namedRowHolding(log, seq, from);
  expect(row, `a row of the snapshot at seq ${seq} holding "${from}"`).toBeDefined();
  await log.saveSnapshot({ ...row!, data: flip(row!.data, from, to) });
}

export const snapshotChecks: ProviderCheck[] = checks(['eventSourced'], {
  'B31 replay from a snapshot equals a full replay; tampered, undecodable and wrong-seq snapshots are skipped': needing(['snapshotCodec'], async (env) => {
    const codec = hmacCodec('conformance-secret');
    const p = env.eventSourced(await env.open({ snapshotCodec: codec }));
    const log = p.log;
    await populate(p);
    // k: a good snapshot, sealed with the provider's codec.
    const text = await snapshotText(p);
    const good = await p.saveSnapshot();
    expect(good).toEqual({ stream: STATE_STREAM, seq: await log.head(STATE_STREAM), data: good.data });
    // Stored in chunks: the sealed head names index chunks, which name the chunks that put together
    // are the whole projection.
    expect(parseBoundSnapshot(codec.open(good.data), good.seq).content).toMatch(new RegExp(`^\\{"format":"${SNAPSHOT_CHUNKS_FORMAT}","index":`));
    expect(encodeSnapshot((await loadSnapshot(log, codec, good.seq)).snapshot!)).toBe(text);
    const k = good.seq;
    await write(p, 1);
    // m1: a valid snapshot whose body is then changed by one byte (the HMAC no longer matches).
    const m1 = await p.saveSnapshot();
    expect(m1.seq).toBe(k + 1);
    await log.saveSnapshot({ ...m1, data: flip(m1.data, '"index"', '"indez"') });
    const atM1 = await p.snapshot();
    await write(p, 2);
    // m2: authentic and bound, but undecodable; m3: not even sealed.
    const cut = `{"format":"${SNAPSHOT_CHUNKS_FORMAT}","index":`;
    await log.saveSnapshot({ stream: STATE_STREAM, seq: k + 2, data: codec.seal(formatBoundSnapshot(await snapshotBinding(log, k + 2, cut), cut)) });
    await write(p, 3);
    await log.saveSnapshot({ stream: STATE_STREAM, seq: k + 3, data: 'garbage' });
    await write(p, 4);
    // m4: authentic, bound and decodable, but its inner seq (k + 1) disagrees with its stored seq.
    const early = await storedChunksOf(log, atM1);
    await log.saveSnapshot({ stream: STATE_STREAM, seq: k + 4, data: codec.seal(formatBoundSnapshot(await snapshotBinding(log, k + 4, early), early)) });
    await write(p, 5);
    const head = await log.head(STATE_STREAM);
    expect(head).toBe(k + 5);
    // Beyond the head: authentic and self-consistent, but it claims events that do not exist.
    const future = await storedChunksOf(log, { ...(await p.snapshot()), seq: head + 10 });
    const beyond = { ...(await snapshotBinding(log, head, future)), seq: head + 10 };
    await log.saveSnapshot({ stream: STATE_STREAM, seq: head + 10, data: codec.seal(formatBoundSnapshot(beyond, future)) });

    const full = await snapshotText(await env.replay(log, { fromScratch: true, snapshotCodec: codec }));
    expect(full).toBe(await snapshotText(p));
    const fold = await foldLog(log, { snapshotCodec: codec });
    expect([fold.snapshotSeq, fold.skipped.map((s) => s.seq)]).toEqual([k, [k + 4, k + 3, k + 2, k + 1]]);
    // The replay starts from snapshot k and folds only the events after it; it reads the event at k
    // alone to check the binding (and those of the skipped ones, which fail).
    const reads: Array<{ afterSeq: number; limit: number }> = [];
    expect(await snapshotText(await env.replay(recordingReads(log, reads), { snapshotCodec: codec }))).toBe(full);
    const folded = reads.filter((r) => r.limit !== 1);
    expect([Math.min(...folded.map((r) => r.afterSeq)), reads.filter((r) => r.afterSeq < k)]).toEqual([k, [{ afterSeq: k - 1, limit: 1 }]]);
    // With the good one tampered too, the fold starts from scratch and still agrees.
    await log.saveSnapshot({ ...good, data: flip(good.data, '"index"', '"indez"') });
    const fallback = await foldLog(log, { snapshotCodec: codec });
    expect([fallback.snapshotSeq, fallback.skipped.map((s) => s.seq)]).toEqual([0, [k + 4, k + 3, k + 2, k + 1, k]]);
    expect(await snapshotText(await env.replay(log, { snapshotCodec: codec }))).toBe(full);
  }),
  'X16 a stored snapshot is bound to its log and its content: edited, foreign, unbound and re-anchored ones are skipped, and the fold equals a full replay':
    async (env) => {
      // Unsealed on purpose: the binding alone must catch all of these.
      const p = env.eventSourced(await env.open());
      const log = p.log;
      const identity = await log.identity();
      expect(identity).toMatch(/\S/);
      expect(await log.identity()).toBe(identity);
      await populate(p);
      const good = await p.saveSnapshot();
      const k = good.seq;
      await write(p, 1);
      // k + 1: edited below, once every row is stored.
      const edited = await p.saveSnapshot();
      await write(p, 2);
      // k + 2: a genuine snapshot of another store at the same seq.
      const other = env.eventSourced(await env.open());
      await populate(other);
      await other.memory.write({ content: 'written elsewhere' });
      await other.memory.write({ content: 'written elsewhere too' });
      expect(await other.log.identity()).not.toBe(identity);
      const foreign = await other.saveSnapshot();
      expect(foreign.seq).toBe(k + 2);
      await log.saveSnapshot(foreign);
      await write(p, 3);
      // k + 3: correct content, stored whole without a binding (as an older version stored it): of
      // an earlier format, not damaged.
      await log.saveSnapshot({ stream: STATE_STREAM, seq: k + 3, data: await snapshotText(p) });
      await write(p, 4);
      // k + 4: correct content and digest, this log's identity, but bound to another event at its seq.
      const content = await storedChunksOf(log, await p.snapshot());
      const reanchored = { ...(await snapshotBinding(log, k + 4, content)), event: eventDigest(undefined) };
      await log.saveSnapshot({ stream: STATE_STREAM, seq: k + 4, data: formatBoundSnapshot(reanchored, content) });
      await write(p, 5);
      // k + 1: one character of its newest memory changed; it still decodes, but no longer matches
      // its digest. (A row snapshot k shares would be damaged for k too: the note is in a chunk k
      // does not hold.) Edited last: when the note ends its chunk, k + 4 holds that chunk too, and
      // storing k + 4 rewrites it whole.
      await flipRow(log, edited.seq, 'note 1', 'note 7');

      const full = await snapshotText(await env.replay(log, { fromScratch: true }));
      expect(full).toBe(await snapshotText(p));
      const fold = await foldLog(log);
      expect(fold.snapshotSeq).toBe(k);
      expect(fold.skipped).toEqual([
        { seq: k + 4, reason: expect.stringContaining(`the event at seq ${k + 4} is not the one the snapshot was taken after`), damaged: true },
        { seq: k + 3, reason: expect.stringContaining('earlier snapshot format'), damaged: false },
        { seq: k + 2, reason: expect.stringContaining('taken from another log'), damaged: true },
        { seq: k + 1, reason: expect.stringContaining('does not match its SHA-256 digest'), damaged: true },
      ]);
      expect([encodeSnapshot(fold.state.capture()), await snapshotText(await env.replay(log))]).toEqual([full, full]);
      // With the good one edited too, the fold starts from scratch and still agrees.
      await flipRow(log, good.seq, 'plan the release', 'plan the releasf');
      const fallback = await foldLog(log);
      expect([fallback.snapshotSeq, fallback.skipped.map((s) => s.seq)]).toEqual([0, [k + 4, k + 3, k + 2, k + 1, k]]);
      expect(await snapshotText(await env.replay(log))).toBe(full);
    },
  'X17 bound snapshots taken between random operations restore equal to a full replay; any one-character change of a stored snapshot, its head or a chunk, is detected':
    (env) => {
      const arbitrary = fc.tuple(
        fc.array(arbOperations({ maxLength: 8 }), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
      );
      return property(env, arbitrary, async ([chunks, at, replacement]) => {
        const clock = new ManualClock(T0);
        const p = env.eventSourced(await env.open(env.caps.injectableClock ? { clock, entropy: seededEntropy(17) } : {}));
        for (const operations of chunks) {
          await runOperations(p, operations, { clock });
          await p.saveSnapshot();
        }
        const full = await snapshotText(await env.replay(p.log, { fromScratch: true }));
        expect(full).toBe(await snapshotText(p));
        const stored = (await p.log.latestSnapshot(STATE_STREAM))!;
        expect(stored).toBeDefined();
        const fold = await foldLog(p.log);
        expect([fold.skipped, fold.snapshotSeq, encodeSnapshot(fold.state.capture())]).toEqual([[], stored.seq, full]);
        // The change lands in the head or in one of the rows it names.
        const rows = [stored, ...(await rowsNow(p.log, await storedHeadRows(p.log, stored)))];
        const row = rows[at % rows.length]!;
        const { data } = row;
        const i = Math.floor(at / rows.length) % data.length;
        const original = data[i]!;
        const by = replacement === original ? (original === 'x' ? 'y' : 'x') : replacement;
        await p.log.saveSnapshot({ ...row, data: data.slice(0, i) + by + data.slice(i + 1) });
        const after = await foldLog(p.log);
        expect(after.skipped[0]?.seq).toBe(stored.seq);
        expect(after.snapshotSeq).toBeLessThan(stored.seq === 0 ? 1 : stored.seq);
        expect(encodeSnapshot(after.state.capture())).toBe(full);
      });
    },
  'X27 snapshots of earlier formats (whole, bound or not; a head of parts) are skipped as not damaged, the next save drops their rows, and a purge drops them holding the erased text':
    freshLog(async (p, env) => {
      const log = p.log;
      await populate(p);
      const secret = await p.memory.write({ content: 'x27 Quillon-Marrowby keeps the spare key' });
      const k = (await p.saveSnapshot()).seq;
      const earlier = async (format: 'parts' | 'whole' | 'unbound') => {
        await write(p, k);
        await storeEarlierFormat(log, await p.snapshot(), format);
      };
      for (const format of ['parts', 'whole', 'unbound'] as const) await earlier(format);
      await write(p, 1);
      const full = await snapshotText(await env.replay(log, { fromScratch: true }));
      const fold = await foldLog(log);
      expect(fold.snapshotSeq).toBe(k);
      expect(fold.skipped).toEqual([k + 3, k + 2, k + 1].map((seq) => ({ seq, reason: expect.stringContaining('earlier snapshot format'), damaged: false })));
      expect(encodeSnapshot(fold.state.capture())).toBe(full);
      await expectViewIsReplay(p, k + 3);
      // The next save drops every row of them; the snapshot of chunks stays.
      const saved = (await p.saveSnapshot()).seq;
      expect([(await storedHeads(log)).map((head) => head.seq), await log.latestSnapshot(FORMAT_4_MEMORY_PART)]).toEqual([[saved, k], undefined]);
      expect((await foldLog(log)).skipped).toEqual([]);
      // A purge drops those stored since, whatever their seq: they cannot be patched, and hold the
      // erased text.
      for (const format of ['parts', 'whole'] as const) await earlier(format);
      const before = [...(await storedHeads(log)), ...(await rowsNow(log, [{ stream: FORMAT_4_MEMORY_PART, seq: saved + 1 }]))];
      expect(before.map((row) => row.data).join('\n')).toContain('Quillon-Marrowby');
      await p.purge({ id: secret.id, reason: 'x27' });
      const after = [...(await storedSnapshotRows(log)), ...(await rowsNow(log, before))];
      expect(after.map((row) => row.data).join('\n')).not.toContain('Quillon-Marrowby');
      expect([(await storedHeads(log)).map((head) => head.seq), (await foldLog(log)).skipped]).toEqual([[saved, k], []]);
    }),
  'B40 log.append refuses a malformed state event; one in the log makes replay fail with a CorruptionError naming its seq': async (env) => {
    const event = (type: string, payload: unknown): AppendInput => ({ stream: STATE_STREAM, type, payload });
    const cases: Array<[string, (session: Session | undefined) => AppendInput]> = [
      ['missing record', () => event(EventTypes.SessionCreated, {})],
      ['wrong field type', (session) => event(EventTypes.SessionCreated, { session: { ...session, title: 42 } })],
      ['unknown event type', (session) => event('session.renamed', { session })],
      ['turn_appended without its turn', (session) => event(EventTypes.TurnAppended, { session })],
      ['skill with null tags', () => event(EventTypes.SkillUpserted, { skill: { id: 'k1', slug: 'deploy', name: '', body: '', tags: null, scope: [] } })],
      [
        'a date that does not exist',
        (session) => event(EventTypes.SessionCreated, { session: { ...session, id: 'feb-30', createdAt: '2026-02-30T00:00:00.000Z' } }),
      ],
      ['a schema version newer than the library', (session) => ({ ...event(EventTypes.SessionCreated, { session }), schemaVersion: 99 })],
    ];
    for (const [label, bad] of cases) {
      const p = env.eventSourced(await env.open());
      const session = await p.sessions.create({ title: 'ok' });
      const copy = (n: number) => event(EventTypes.SessionCreated, { session: { ...session, id: `${session.id}-${n}` } });
      expect((await p.log.append(copy(2))).seq, label).toBe(2);
      const malformed = bad((await p.sessions.list())[0]);
      await expectError(() => p.log.append(malformed), ValidationError, label);
      expect(await p.log.head(STATE_STREAM), `${label}: a refused append stores nothing`).toBe(2);
      // A valid event after it: the error must name the malformed one, not the last.
      await p.log.append(copy(3));
      // The malformed event can only reach a fold through storage the log does not guard; a view
      // stands in for it.
      const damaged = replacing(p.log, 2, malformed);
      const error = await expectError(() => env.replay(damaged), CorruptionError, label);
      expect([error.seq, error.stream], label).toEqual([2, STATE_STREAM]);
      expect((await expectError(() => env.replay(damaged, { fromScratch: true }), CorruptionError, label)).seq, label).toBe(2);
      await env.release(p);
    }
  },
});
