/** E1–E17: history and purge (docs/contract.md §7, "History" and "Purge"), and the chunked snapshots a purge patches. */
import type { Embedder, EventSourcedProvider, LogEvent, RecordVersion } from '@agentstate/core';
import {
  decodeStateEvent,
  encodeSnapshot,
  ERASED,
  EventTypes,
  hmacCodec,
  ManualClock,
  NotFoundError,
  plainCodec,
  replay,
  seededEntropy,
  sessionAfterTurn,
  STATE_STREAM,
  ValidationError,
} from '@agentstate/core';
import { type ChangeRecord, changeRecords, CHUNK_MAX_CHARS, CHUNK_STREAM_PREFIX, encodeChunk, loadSnapshot, storedHeadRows } from '@agentstate/core/backend';
import fc from 'fast-check';
import { expect } from 'vitest';
import { arbOperations, runOperations } from '../arbitraries/operations.js';
import { expectError } from '../suite/expect-error.js';
import { expectViewIsReplay, replayedAt } from '../suite/log-cut.js';
import { snapshotText, T0 } from '../suite/fixtures.js';
import { rowsNow, storedHeads, storedSnapshotRows } from '../suite/snapshot-rows.js';
import { checks, freshLog, needing, property, type ProviderCheck } from '../suite/harness.js';

const UNKNOWN_ID = '0190a0a0-0000-7000-8000-000000000000';

/** Every stored event and every stored snapshot row a head names, as text. */
export async function storedText(p: EventSourcedProvider): Promise<string> {
  return JSON.stringify(await p.log.read({ stream: STATE_STREAM })) + (await storedSnapshotRows(p.log)).map((row) => row.data).join('\n');
}

/**
 * Every stored snapshot of `p` still loads, as itself (nothing newer skipped), and equals a fresh
 * replay of the log as it is now, cut at its seq; a view just above it equals the replay too.
 */
async function expectSnapshotsPatched(p: EventSourcedProvider, seqs: readonly number[]): Promise<void> {
  const heads = (await storedHeads(p.log)).map((h) => h.seq);
  expect(heads, 'stored snapshots after the purge').toEqual([...seqs].sort((a, b) => b - a));
  for (const seq of seqs) {
    const loaded = await loadSnapshot(p.log, plainCodec, seq);
    expect([loaded.snapshot?.seq, loaded.skipped], `snapshot at seq ${seq}`).toEqual([seq, []]);
    expect(encodeSnapshot(loaded.snapshot!), `snapshot at seq ${seq} against the replay`).toBe(encodeSnapshot(await replayedAt(p.log, seq)));
    await expectViewIsReplay(p, Math.min(seq + 1, await p.log.head(STATE_STREAM)));
  }
}

/** The log replayed from scratch into a fresh in-memory provider equals the provider's tables. */
export async function expectReplayEqualsTables(p: EventSourcedProvider): Promise<void> {
  const again = await replay(p.log, { fromScratch: true });
  await expect(snapshotText(again).finally(() => again.close())).resolves.toBe(await snapshotText(p));
}

/** One transcript write of E9 and E17, on session 0 or 1. */
type TranscriptOp =
  | { kind: 'append'; session: number; operation: boolean; metadata: boolean }
  | { kind: 'removeLast' | 'clear' | 'delete'; session: number }
  | { kind: 'replace'; session: number; keep: number; add: number }
  | { kind: 'purgeText'; pick: number };

const arbSession = fc.nat(1);
const arbAppend = (session: fc.Arbitrary<number>, operation: fc.Arbitrary<boolean>, metadata: fc.Arbitrary<boolean>) =>
  fc.record({ kind: fc.constant('append' as const), session, operation, metadata });
const arbReplace = fc.record({ kind: fc.constant('replace' as const), session: arbSession, keep: fc.nat(3), add: fc.nat(2) });
const arbPurgeText = fc.record({ kind: fc.constant('purgeText' as const), pick: fc.nat() });
const arbTranscriptOp: fc.Arbitrary<TranscriptOp> = fc.oneof(
  { arbitrary: arbAppend(arbSession, fc.boolean(), fc.boolean()), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constantFrom('removeLast' as const, 'clear' as const, 'delete' as const), session: arbSession }), weight: 2 },
  { arbitrary: arbReplace, weight: 1 },
  { arbitrary: arbPurgeText, weight: 1 },
);

/**
 * One write of E17: mostly appends (a session reaches hundreds of versions), with the writes that
 * remove, replace and erase between them, never a clear or a deletion, which would end the
 * transcript.
 */
const arbLongTranscriptOp: fc.Arbitrary<TranscriptOp> = fc.oneof(
  { arbitrary: arbAppend(fc.constant(0), fc.boolean(), fc.constant(false)), weight: 40 },
  { arbitrary: arbAppend(fc.constant(1), fc.constant(false), fc.constant(false)), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('removeLast' as const), session: arbSession }), weight: 1 },
  { arbitrary: arbReplace, weight: 1 },
  { arbitrary: arbPurgeText, weight: 1 },
);

export const erasureChecks: ProviderCheck[] = [
  ...checks(['eventSourced'], {
    'E1 history lists every version of a memory item oldest first, with its seq, time, type and writer; [] for an unknown id': async (env) => {
      const p = env.eventSourced(await env.open({ instanceId: 'writer-e1' }));
      const item = await p.memory.write({ content: 'one' });
      await p.memory.write({ content: 'unrelated' });
      await p.memory.update(item.id, { content: 'two' });
      await p.memory.delete(item.id);
      const versions = await p.history(item.id);
      expect(versions.map((v) => v.seq)).toEqual([1, 3, 4]);
      expect(versions.map((v) => v.type)).toEqual([EventTypes.MemoryWritten, EventTypes.MemoryUpdated, EventTypes.MemoryDeleted]);
      const events = await p.log.read({ stream: STATE_STREAM });
      expect(versions.map((v) => v.time)).toEqual([events[0]!.time, events[2]!.time, events[3]!.time]);
      const records = versions.map((v) => (v.kind === 'memory' ? v.record : undefined));
      expect(records.map((r) => `${r?.content} ${r?.deleted} ${r?.syncVersion}`)).toEqual(['one false 1', 'two false 2', 'two true 3']);
      expect([versions.every((v) => v.record.lastWriterId === 'writer-e1'), await p.history(UNKNOWN_ID)]).toEqual([true, []]);
      await expectError(() => p.history(''), ValidationError);
    },
    'E2 history follows a session through its turns, a turn through its removal, and a skill through its versions': freshLog(async (p) => {
      const s = await p.sessions.create({ title: 's' });
      const first = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'a' });
      await p.sessions.appendTurn({ sessionId: s.id, role: 'assistant', content: 'b' });
      const skill = await p.skills.upsert({ slug: 'e2', body: 'v1' });
      await p.sessions.clear(s.id);
      await p.skills.upsert({ slug: 'e2', body: 'v2' });
      const types = (await p.history(s.id)).map((v) => v.type);
      expect(types).toEqual([EventTypes.SessionCreated, EventTypes.TurnAppended, EventTypes.TurnAppended, EventTypes.TurnsRemoved]);
      expect((await p.history(first.id)).map((v) => `${v.seq} ${v.kind} ${v.record.deleted}`)).toEqual(['2 turn false', '5 turn true']);
      expect((await p.history(skill.id)).map((v) => (v.kind === 'skill' ? v.record.body : ''))).toEqual(['v1', 'v2']);
    }),
    'E3 purge of a memory item erases its text from every event and the read model, keeps everything else, and is one records.purged event': freshLog(
      async (p) => {
        const secret = await p.memory.write({ content: 'e3 secret Marzipan-31', key: 'e3-key', metadata: { note: 'Marzipan-31' } });
        await p.memory.update(secret.id, { content: 'e3 secret Tangerine-77' });
        const kept = await p.memory.write({ content: 'e3 kept fact' });
        await p.saveSnapshot();
        const head = await p.log.head(STATE_STREAM);
        const result = await p.purge({ id: secret.id, reason: 'request e3' });
        expect(result).toEqual({ seq: head + 1, sessions: [], turns: [], skills: [], memory: [secret.id] });
        const text = await storedText(p);
        for (const erased of ['Marzipan-31', 'Tangerine-77', 'e3-key']) expect(text).not.toContain(erased);
        const [event] = await p.log.read({ stream: STATE_STREAM, afterSeq: head });
        expect(event).toMatchObject({ type: EventTypes.RecordsPurged, payload: { reason: 'request e3' } });
        await expectError(() => p.memory.get(secret.id), NotFoundError);
        expect(await p.memory.getAny(secret.id)).toMatchObject({ content: ERASED, key: null, metadata: {}, deleted: true, syncVersion: 3 });
        expect((await p.memory.get(kept.id)).content).toBe('e3 kept fact');
        expect((await p.memory.recall({ query: 'Tangerine', mode: 'lexical' })).map((h) => h.id)).toEqual([]);
        const versions = await p.history(secret.id);
        expect(versions.map((v) => v.type)).toEqual([EventTypes.MemoryWritten, EventTypes.MemoryUpdated, EventTypes.RecordsPurged]);
        expect(versions.map((v) => v.erasedBy)).toEqual([head + 1, head + 1, undefined]);
        await expectReplayEqualsTables(p);
      },
    ),
    'E4 purge of a session takes every turn it had; a namespace takes its scope and descendants only; matching takes memory and turns holding the text':
      freshLog(async (p) => {
        const chat = await p.sessions.create({ title: 'e4 Quokka chat', scope: ['user:q'] });
        await p.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: 'e4 Quokka turn' });
        await p.sessions.appendTurn({ sessionId: chat.id, role: 'assistant', content: 'e4 removed Quokka' });
        await p.sessions.removeLastTurn(chat.id);
        const other = await p.sessions.create({ title: 'e4 other' });
        await p.sessions.appendTurn({ sessionId: other.id, role: 'user', content: 'e4 card 4242-9999' });
        const purged = await p.purge({ id: chat.id, reason: 'e4 session' });
        expect([purged.sessions, purged.turns.length]).toEqual([[chat.id], 2]);
        expect(await storedText(p)).not.toContain('Quokka');
        await p.memory.write({ content: 'e4 Wombat root', scope: ['user:w'] });
        await p.memory.write({ content: 'e4 Wombat child', scope: ['user:w', 'project:x'] });
        await p.skills.upsert({ slug: 'e4-wombat', body: 'e4 Wombat skill', scope: ['user:w'] });
        const sibling = await p.memory.write({ content: 'e4 sibling', scope: ['user:wx'] });
        const ns = await p.purge({ namespace: ['user:w'], reason: 'e4 namespace' });
        expect([ns.memory.length, ns.skills.length]).toEqual([2, 1]);
        expect(await storedText(p)).not.toContain('Wombat');
        expect((await p.memory.get(sibling.id)).content).toBe('e4 sibling');
        const matching = await p.purge({ matching: '4242-9999', reason: 'e4 card' });
        expect(matching.turns).toHaveLength(1);
        expect(await storedText(p)).not.toContain('4242-9999');
        expect((await p.sessions.get(other.id)).title).toBe('e4 other');
        expect(await p.purge({ matching: 'e4 nothing holds this', reason: 'none' })).toEqual({ seq: 0, sessions: [], turns: [], skills: [], memory: [] });
        await expectReplayEqualsTables(p);
      }),
    'E5 purge refuses an unknown id (NotFoundError), a missing reason, two selectors and the global namespace, appending nothing': freshLog(async (p) => {
      await p.memory.write({ content: 'e5' });
      await expectError(() => p.purge({ id: UNKNOWN_ID, reason: 'x' }), NotFoundError);
      await expectError(() => p.purge({ id: UNKNOWN_ID } as never), ValidationError);
      await expectError(() => p.purge({ id: UNKNOWN_ID, matching: 'e5', reason: 'x' }), ValidationError);
      await expectError(() => p.purge({ namespace: [], reason: 'x' }), ValidationError);
      expect(await p.log.head(STATE_STREAM)).toBe(1);
    }),
    'E6 a purged record stays purged: it cannot be updated, and its id cannot be written again': freshLog(async (p) => {
      const item = await p.memory.write({ content: 'e6' });
      await p.purge({ id: item.id, reason: 'e6' });
      await expectError(() => p.memory.update(item.id, { content: 'again' }), NotFoundError);
      const again = await p.purge({ id: item.id, reason: 'e6 twice' });
      expect(again.memory).toEqual([item.id]);
      await expectReplayEqualsTables(p);
    }),
    'E7 random operation sequences, then a purge of a random record: the replay of the rewritten log equals the tables': clockedProperty(
      fc.tuple(arbOperations({ minLength: 3, maxLength: 20 }), fc.nat()),
      7,
      async (p, clock, [operations, pick]) => {
        await runOperations(p, operations, { clock });
        const ids = idsIn(await p.log.read({ stream: STATE_STREAM }));
        if (ids.length === 0) return;
        await p.purge({ id: ids[pick % ids.length]!, reason: 'e7' });
        await expectReplayEqualsTables(p);
      },
    ),
    'E8 purge by matching text also takes a record whose earlier version held the text, though its current content does not': freshLog(async (p) => {
      const moved = await p.memory.write({ content: 'e8 card 5555-0101 noted' });
      await p.memory.update(moved.id, { content: 'e8 card removed' });
      const other = await p.memory.write({ content: 'e8 card never had it' });
      await p.saveSnapshot();
      const result = await p.purge({ matching: '5555-0101', reason: 'e8 card' });
      expect([result.memory, result.turns]).toEqual([[moved.id], []]);
      expect(await storedText(p)).not.toContain('5555-0101');
      expect(await p.memory.getAny(moved.id)).toMatchObject({ content: ERASED, deleted: true });
      expect((await p.memory.get(other.id)).content).toBe('e8 card never had it');
      await expectReplayEqualsTables(p);
    }),
    'E9 property: random transcript writes on two sessions, then the history of each session and turn is, byte for byte, the versions its events give each decoded whole':
      historiesMatchTheLog(fc.array(arbTranscriptOp, { minLength: 1, maxLength: 25 }), 9, 15),
    'E10 a purge of records older than the stored snapshots patches them: each still loads, equals the replay of the rewritten log, and no row holds the text':
      freshLog(async (p) => {
        const secret = await p.memory.write({ content: 'e10 secret Quokka-19', key: 'e10-key' });
        const chat = await p.sessions.create({ title: 'e10 chat Wombat-44' });
        await p.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: 'e10 turn Wombat-44 said' });
        const other = await p.sessions.create({ title: 'e10 other chat' });
        await p.sessions.appendTurn({ sessionId: other.id, role: 'user', content: 'e10 other turn' });
        for (let i = 0; i < 150; i += 1) await p.memory.write({ content: `e10 filler ${i}` });
        const first = (await p.saveSnapshot()).seq;
        await p.memory.update(secret.id, { content: 'e10 secret Quokka-19 again' });
        await p.sessions.appendTurn({ sessionId: chat.id, role: 'assistant', content: 'e10 reply Wombat-44' });
        await p.memory.write({ content: 'e10 after the first snapshot' });
        const second = (await p.saveSnapshot()).seq;
        await p.memory.write({ content: 'e10 after the second snapshot' });
        const before = await storedSnapshotRows(p.log);
        expect(before.map((row) => row.data).join('\n')).toContain('Quokka-19');
        await p.purge({ id: secret.id, reason: 'e10 memory' });
        await p.purge({ id: chat.id, reason: 'e10 session' });
        await expectSnapshotsPatched(p, [first, second]);
        // Neither the rows the heads name now nor any row they named before (deleted, or patched in
        // place) holds the text.
        const rows = [...(await storedSnapshotRows(p.log)), ...(await rowsNow(p.log, before))];
        for (const erased of ['Quokka-19', 'e10-key', 'Wombat-44']) expect(rows.map((row) => row.data).join('\n')).not.toContain(erased);
        expect(rows.map((row) => row.data).join('\n')).toContain('e10 other turn');
        // Patched chunks are canonical text, as a save would write them (erased turns' parts included).
        for (const row of rows) if (row.stream.startsWith(CHUNK_STREAM_PREFIX)) expect(row.data).toBe(encodeChunk(JSON.parse(row.data) as unknown[]));
        await expectReplayEqualsTables(p);
      }),
    'E11 random operation sequences with stored snapshots, then a purge of a random record: every snapshot still loads, and it and the view at every seq equal the replay cut there':
      clockedProperty(fc.tuple(arbOperations({ minLength: 3, maxLength: 24 }), fc.nat(), fc.nat()), 9, async (p, clock, [operations, cut, pick]) => {
        const at = cut % (operations.length + 1);
        await runOperations(p, operations.slice(0, at), { clock });
        const seqs = new Set([(await p.saveSnapshot()).seq]);
        await runOperations(p, operations.slice(at), { clock });
        seqs.add((await p.saveSnapshot()).seq);
        const ids = idsIn(await p.log.read({ stream: STATE_STREAM }));
        if (ids.length === 0) return;
        await p.purge({ id: ids[pick % ids.length]!, reason: 'e11' });
        await expectSnapshotsPatched(p, [...seqs]);
        // Every view, whichever snapshot it starts from, reads as the rewritten log cut at its seq.
        for (let seq = 0; seq <= (await p.log.head(STATE_STREAM)); seq += 1) await expectViewIsReplay(p, seq);
        await expectReplayEqualsTables(p);
      }),
    "E12 snapshots share their unchanged chunks: a second snapshot after one more write names the first one's rows but one or two chunks and the index chunk above them, each stored once":
      freshLog(async (p) => {
        const chat = await p.sessions.create({ title: 'e12 chat' });
        for (let i = 0; i < 200; i += 1) await p.memory.write({ content: `e12 item ${i}` });
        for (let i = 0; i < 20; i += 1) await p.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: `e12 turn ${i}` });
        await p.saveSnapshot();
        const first = await storedSnapshotRows(p.log);
        await p.memory.write({ content: 'e12 one more' });
        await p.saveSnapshot();
        const both = await storedSnapshotRows(p.log);
        const firstRows = new Set(first.filter((row) => row.stream !== STATE_STREAM).map((row) => row.stream));
        const added = both.filter((row) => row.stream !== STATE_STREAM && !firstRows.has(row.stream));
        // One new item changes the chunk it falls in (or splits it in two) and the memory index
        // chunk above it; the sessions', turns' and other memory chunks, and their index chunks,
        // are the same rows.
        expect(firstRows.size).toBeGreaterThan(3);
        const index = added.filter((row) => /^\[\{"first":/.test(row.data));
        // (Two when a split chunk's new first key happens to end an index chunk.)
        expect([1, 2]).toContain(index.length);
        expect([1, 2]).toContain(added.length - index.length);
        expect(encodeSnapshot((await loadSnapshot(p.log, plainCodec, await p.log.head(STATE_STREAM))).snapshot!)).toBe(await snapshotText(p));
      }),
    'E13 a purge drops the snapshots it cannot open (sealed with another key) with every row only they name, and keeps the rows an older snapshot shares':
      needing(['snapshotCodec', 'durable'], async (env) => {
        const sealed = hmacCodec('e13 key');
        const p = env.eventSourced(await env.open({ snapshotCodec: sealed }));
        for (let i = 0; i < 100; i += 1) await p.memory.write({ content: `e13 item ${i}` });
        const older = await p.saveSnapshot();
        const secret = await p.memory.write({ content: 'e13 the vault code' });
        const heads = [await p.saveSnapshot()];
        await p.memory.write({ content: 'e13 one more' });
        heads.push(await p.saveSnapshot());
        const shared = new Set((await storedHeadRows(p.log, older)).map((key) => key.stream));
        const only = new Set<string>();
        for (const head of heads) for (const key of await storedHeadRows(p.log, head)) if (!shared.has(key.stream)) only.add(key.stream);
        expect(only.size).toBeGreaterThan(0);
        const other = env.eventSourced(await env.reopen(p, { snapshotCodec: hmacCodec('e13 another key') }));
        await other.purge({ id: secret.id, reason: 'e13' });
        for (const head of heads) expect((await other.log.latestSnapshot(STATE_STREAM, { upToSeq: head.seq }))?.seq).toBe(older.seq);
        for (const stream of only) expect(await other.log.latestSnapshot(stream, { upToSeq: 0 }), stream).toBeUndefined();
        const loaded = await loadSnapshot(other.log, sealed, older.seq);
        expect([loaded.snapshot?.seq, loaded.skipped]).toEqual([older.seq, []]);
      }),
    [`E14 a chunk ends once its records reach ${CHUNK_MAX_CHARS} characters: with items of 2,000 characters, every chunk and index chunk but for its last entry stays under the cap`]:
      freshLog(async (p) => {
        for (let i = 0; i < 60; i += 1) await p.memory.write({ content: `e14 item ${i} ${'x'.repeat(2_000)}` });
        await p.saveSnapshot();
        const chunks = (await storedSnapshotRows(p.log)).filter((row) => row.stream.startsWith(CHUNK_STREAM_PREFIX));
        // Sixty items of over 2,000 characters make at least eight chunks however the hash falls.
        expect(chunks.length).toBeGreaterThanOrEqual(8);
        for (const row of chunks) {
          const entries = (JSON.parse(row.data) as unknown[]).map((entry) => encodeChunk([entry]).length - 2);
          const beforeLast = entries.slice(0, -1).reduce((sum, n) => sum + n, 0);
          expect(beforeLast, row.stream).toBeLessThan(CHUNK_MAX_CHARS);
        }
        expect(encodeSnapshot((await loadSnapshot(p.log, plainCodec, await p.log.head(STATE_STREAM))).snapshot!)).toBe(await snapshotText(p));
      }),
    'E15 snapshot saves racing a purge (one started a few steps into the other, or saves back to back while it runs): no stored row holds the erased text, and every stored snapshot loads and equals the replay of the rewritten log':
      async (env) => {
        for (const race of RACES) {
          await env.scoped(async () => {
            const p = env.eventSourced(await env.open());
            const secret = await p.memory.write({ content: 'e15 secret Numbat-15' });
            for (let i = 0; i < 20; i += 1) await p.memory.write({ content: `e15 filler ${i}` });
            const purge = () => p.purge({ id: secret.id, reason: 'e15' });
            if (race === 'saves while purging') {
              // Whichever save is in flight when the purge commits captured the state before it.
              let purged = false;
              const purging = purge().finally(() => {
                purged = true;
              });
              while (!purged) await p.saveSnapshot();
              await purging;
            } else {
              const saving = p.saveSnapshot();
              for (let i = 0; i < race; i += 1) await Promise.resolve();
              await Promise.all([saving, purge()]);
            }
            expect(await storedText(p), `race: ${race}`).not.toContain('Numbat');
            const heads = (await storedHeads(p.log)).map((head) => head.seq);
            await expectSnapshotsPatched(p, heads);
          });
        }
      },
    'E16 an embedding that finishes after a purge erased its text caches no vector of it: the text written again, as a memory item and as a turn, is embedded again':
      needing(['embedder'], async (env) => {
        const embedder = new GatedEmbedder();
        const p = env.eventSourced(await env.open({ embedder }));
        const chat = await p.sessions.create({ title: 'e16 chat' });
        const writes: [string, string, () => Promise<unknown>][] = [
          ['memory item', 'e16 secret Dibbler-7', () => p.memory.write({ content: 'e16 secret Dibbler-7' })],
          ['turn', 'e16 secret Dibbler-8', () => p.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: 'e16 secret Dibbler-8' })],
        ];
        for (const [label, text, write] of writes) {
          // The write commits, then waits in the embedder while the purge commits.
          const reached = embedder.hold();
          const writing = write();
          await reached;
          await p.purge({ matching: text, reason: 'e16' });
          embedder.release();
          await writing;
          await write();
          const embedded = embedder.texts.filter((t) => t === text);
          expect(embedded, `${label}: the purged text's vector is not served from the cache`).toHaveLength(2);
        }
      }),
    'E17 property: long transcripts (hundreds of appends, with removals, replacements and purges between), then the history of each session and turn is, byte for byte, the versions its events give each decoded whole':
      historiesMatchTheLog(fc.array(arbLongTranscriptOp, { minLength: 150, maxLength: 300 }), 17, 3),
  }),
];

/**
 * A property of E7, E9, E11 and E17 (they need `injectableClock`): each run on a fresh
 * event-sourced provider on a manual clock, its entropy seeded with `seed`.
 */
function clockedProperty<T>(
  arbitrary: fc.Arbitrary<T>,
  seed: number,
  body: (p: EventSourcedProvider, clock: ManualClock, value: T) => Promise<void>,
  numRuns = 15,
) {
  return needing(['injectableClock'], (env) =>
    property(env, arbitrary, { numRuns }, async (value) => {
      const clock = new ManualClock(T0);
      await body(env.eventSourced(await env.open({ clock, entropy: seededEntropy(seed) })), clock, value);
    }),
  );
}

/**
 * An embedder that records every text it embeds, and whose next call after {@link hold} waits until
 * {@link release}: E16 commits a purge while an embedding is in flight.
 */
class GatedEmbedder implements Embedder {
  readonly id = 'agentstate-testing/gated@1';
  readonly dimensions = 2;
  readonly texts: string[] = [];
  #held: { reached: () => void; open: Promise<void> } | undefined;
  /** Lets the held call finish. */
  release: () => void = () => undefined;

  /** Makes the next call wait for {@link release}; resolves once that call has started. */
  hold(): Promise<void> {
    const open = new Promise<void>((resolve) => {
      this.release = resolve;
    });
    return new Promise((reached) => {
      this.#held = { reached, open };
    });
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.texts.push(...texts);
    const held = this.#held;
    this.#held = undefined;
    if (held) {
      held.reached();
      await held.open;
    }
    return texts.map((text) => Float32Array.of(text.length, 1));
  }
}

/**
 * The races E15 runs: the purge started a number of microtasks into a save (the steps of a backend
 * in the process), then saves back to back while a purge runs (the round trips of a backend across
 * a socket).
 */
const RACES: readonly (number | 'saves while purging')[] = [
  ...Array.from({ length: 8 }, (_, microtasks) => microtasks),
  ...Array(8).fill('saves while purging'),
];

/**
 * E9 and E17: for `numRuns` write sequences of `ops` (entropy seeded with `seed`), the history of
 * every session and turn the log names is, byte for byte, the versions its events give.
 */
function historiesMatchTheLog(ops: fc.Arbitrary<TranscriptOp[]>, seed: number, numRuns: number) {
  const body = async (p: EventSourcedProvider, clock: ManualClock, writes: TranscriptOp[]) => {
    await runTranscriptOps(p, writes, clock);
    const events = await p.log.read({ stream: STATE_STREAM });
    for (const id of idsIn(events)) expect(JSON.stringify(await p.history(id)), id).toBe(JSON.stringify(versionsFromLog(events, id)));
  };
  return clockedProperty(ops, seed, body, numRuns);
}

/** Runs the writes of E9 and E17: each turn's text is its own (`e9 turn <n>;`), so a purge of one text erases one turn's versions in place. */
async function runTranscriptOps(p: EventSourcedProvider, ops: readonly TranscriptOp[], clock: ManualClock): Promise<void> {
  const sessions = [(await p.sessions.create({ title: 'e9 a' })).id, (await p.sessions.create({ title: 'e9 b' })).id];
  const texts: string[] = [];
  let n = 0;
  for (const op of ops) {
    clock.advance(1);
    n += 1;
    if (op.kind === 'purgeText') {
      if (texts.length > 0) await p.purge({ matching: texts[op.pick % texts.length]!, reason: 'e9' });
      continue;
    }
    const id = sessions[op.session]!;
    if ((await p.sessions.getAny(id)).deleted) continue;
    const live = await p.sessions.turns(id);
    if (op.kind === 'append') {
      texts.push(`e9 turn ${n};`);
      await p.sessions.appendTurn({
        sessionId: id,
        role: n % 2 ? 'user' : 'assistant',
        content: texts.at(-1)!,
        ...(op.operation ? { operationId: `e9-op-${n}` } : {}),
        ...(op.metadata ? { metadata: { n } } : {}),
      });
    } else if (op.kind === 'delete') await p.sessions.delete(id);
    else if (live.length === 0) continue;
    else if (op.kind === 'removeLast') await p.sessions.removeLastTurn(id);
    else if (op.kind === 'clear') await p.sessions.clear(id);
    else if (op.kind === 'replace') {
      const expected = live.slice(Math.min(op.keep, live.length)).map((t) => t.id);
      await p.sessions.replaceSuffix(id, {
        expected,
        turns: Array.from({ length: op.add }, (_, i) => ({ role: 'assistant' as const, content: `e9 turn ${n}.${i};` })),
      });
    }
  }
}

/**
 * The versions of record `id` the log gives by the contract's rule alone (docs/contract.md §7,
 * "History"), every event decoded whole as it is stored (trusted, as history reads: validation
 * would reorder a record's keys): the reference any faster read of history must equal byte for
 * byte.
 */
function versionsFromLog(events: readonly LogEvent[], id: string): RecordVersion[] {
  const versions: RecordVersion[] = [];
  let previous: ChangeRecord | undefined;
  for (const event of events) {
    const change = decodeStateEvent(event, { trusted: true });
    let entry: ChangeRecord | undefined;
    for (const record of changeRecords(change)) {
      if (record.kind === 'sessionAfterTurn' && record.turn.sessionId === id && previous?.kind === 'session')
        entry = { kind: 'session', record: sessionAfterTurn(previous.record, record.turn) };
      else if ((record.kind === 'session' || record.kind === 'turn') && record.record.id === id) entry ??= record;
    }
    if (entry === undefined || (entry.kind !== 'session' && entry.kind !== 'turn')) continue;
    previous = entry;
    // A version leaves out the keys undefined here; the JSON the checks compare drops them alike.
    const { seq, time, originInstanceId, actor, principal } = event;
    const version = { seq, time, type: change.type, kind: entry.kind, record: entry.record, originInstanceId, actor, principal };
    const erasedBy = 'erasedBy' in change.payload ? change.payload.erasedBy : undefined;
    versions.push({ ...version, operationId: change.payload.operation?.id, erasedBy } as RecordVersion);
  }
  return versions;
}

/** The ids of the sessions, turns, skills and memory items the payloads of `events` carry, each once. */
function idsIn(events: readonly LogEvent[]): string[] {
  const out = new Set<string>();
  for (const event of events) {
    const p = event.payload as Record<string, { id?: string } | { id?: string }[] | undefined>;
    for (const key of ['session', 'turn', 'skill', 'item', 'turns', 'added']) {
      const value = p[key];
      for (const record of Array.isArray(value) ? value : value ? [value] : []) if (record.id) out.add(record.id);
    }
  }
  return [...out];
}
