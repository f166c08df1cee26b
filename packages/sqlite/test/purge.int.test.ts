/**
 * Purge on a real SQLite file (issue 15's check): a file with snapshots,
 * vectors from the default embedder and an embedding cache; after purging a
 * memory item, a session and a namespace, the erased strings occur nowhere
 * in the raw bytes of the database, its `-wal` or an export, everything else
 * reads as before, verify passes and a rebuild from scratch equals the tables.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { encodeSnapshot, exportLog, ManualClock, plainCodec, seededEntropy, STATE_STREAM, sync } from '@agentstate/core';
import type { Part } from '@agentstate/core';
import type { EventRow } from '@agentstate/core/backend';
import { contentHash, loadSnapshot, rowChecksum } from '@agentstate/core/backend';
import { createStaticEmbedder } from '@agentstate/embeddings';
import { openSqlite } from '../src/index.js';
import { bagOfWordsEmbedder } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The bytes of the database file, its -wal and -shm, as latin1 text (so any UTF-8 string is found byte for byte). */
function rawBytes(path: string): string {
  return [path, `${path}-wal`, `${path}-shm`]
    .filter(existsSync)
    .map((p) => readFileSync(p).toString('latin1'))
    .join('\n');
}

async function exportText(log: Parameters<typeof exportLog>[0]): Promise<string> {
  let text = '';
  await exportLog(log, (chunk) => {
    text += chunk;
  });
  return text;
}

describe('purge on a SQLite file', () => {
  it('leaves no erased string in the file, the -wal or an export', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const embedder = createStaticEmbedder();
    const state = await openSqlite(path, { embedder, snapshotEvery: 3 });
    const secret = await state.memory.write({ content: 'Zanzibarite owes Quetzalfeather 812 coins', metadata: { ledger: 'Xylographic' } });
    await state.memory.update(secret.id, { content: 'Zanzibarite repaid Quetzalfeather in full' });
    const kept = await state.memory.write({ content: 'the team standup is at nine' });
    const chat = await state.sessions.create({ title: 'Vorpalsword consultation' });
    await state.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: 'my passphrase is Jabberwocky-77' });
    await state.sessions.appendTurn({ sessionId: chat.id, role: 'assistant', content: 'stored Jabberwocky-77 safely' });
    const keptChat = await state.sessions.create({ title: 'weekly planning' });
    await state.sessions.appendTurn({ sessionId: keptChat.id, role: 'user', content: 'plan the sprint review' });
    // A summary is text a model wrote: a purge by a text it alone holds takes it, with its session.
    const retro = await state.sessions.create({ title: 'retro' });
    const notes = await state.sessions.appendTurn({ sessionId: retro.id, role: 'user', content: 'retro notes' });
    await state.sessions.compact(retro.id, { through: notes.id, summary: 'the retro named Bandersnatch-Nine' });
    await state.memory.write({ content: 'Ophelia-Brightwater prefers tea', scope: ['user:o7'] });
    await state.memory.write({ content: 'Ophelia-Brightwater project Nightingale', scope: ['user:o7', 'project:n'] });
    await state.skills.upsert({ slug: 'o7-notes', name: 'Marmalade protocol', body: 'Ophelia-Brightwater steps', scope: ['user:o7'] });
    // Vectors and cache entries exist for every memory item before the purge.
    await state.memory.recall({ query: 'Zanzibarite coins', mode: 'hybrid' });
    await state.saveSnapshot();
    const cached = () => {
      const db = new Database(path, { readonly: true });
      const hashes = [secret.content, 'Zanzibarite repaid Quetzalfeather in full', 'the team standup is at nine'].map(contentHash);
      const found = hashes.map((h) => (db.prepare('SELECT count(*) AS n FROM embedding_cache WHERE content_hash = ?').get(h) as { n: number }).n);
      db.close();
      return found;
    };
    expect(cached()).toEqual([1, 1, 1]);
    const erased = [
      'Zanzibarite',
      'Quetzalfeather',
      'Xylographic',
      'Jabberwocky-77',
      'Vorpalsword',
      'Ophelia-Brightwater',
      'Marmalade',
      'Nightingale',
      'Bandersnatch-Nine',
    ];
    expect(erased.every((s) => rawBytes(path).includes(s))).toBe(true);
    const heads = () => {
      const db = new Database(path, { readonly: true });
      const seqs = (db.prepare('SELECT seq FROM snapshots WHERE stream = ? ORDER BY seq').all(STATE_STREAM) as { seq: number }[]).map((r) => r.seq);
      db.close();
      return seqs;
    };
    const stored = heads();
    expect(stored.length).toBeGreaterThan(3);

    await state.purge({ id: secret.id, reason: 'erasure request 1' });
    await state.purge({ id: chat.id, reason: 'erasure request 2' });
    await state.purge({ namespace: ['user:o7'], reason: 'account closed' });
    expect((await state.purge({ matching: 'Bandersnatch-Nine', reason: 'erasure request 3' })).sessions).toEqual([retro.id]);

    // The erased texts' cached embeddings are gone; the kept item's stays.
    expect(cached()).toEqual([0, 0, 1]);
    const raw = rawBytes(path);
    const exported = await exportText(state.log);
    for (const s of erased) {
      expect(raw.includes(s), `${s} in the file`).toBe(false);
      // The full-text index keeps folded tokens: those go too.
      expect(raw.includes(s.toLowerCase().split('-')[0]!), `${s}'s token in the file`).toBe(false);
      expect(exported.includes(s), `${s} in the export`).toBe(false);
    }
    expect(exported).toContain('account closed');
    // Everything else reads as before.
    expect((await state.memory.get(kept.id)).content).toBe('the team standup is at nine');
    expect((await state.sessions.turns(keptChat.id)).map((t) => t.content)).toEqual(['plan the sprint review']);
    expect((await state.memory.recall({ query: 'standup', mode: 'lexical' })).map((h) => h.id)).toEqual([kept.id]);
    expect(await state.memory.recall({ query: 'Zanzibarite', mode: 'lexical' })).toHaveLength(0);
    const report = await state.verify();
    expect(report.problems).toEqual([]);
    expect([report.skippedSnapshots, report.storedSnapshot?.matches]).toEqual([[], true]);
    const before = encodeSnapshot(await state.snapshot());
    await state.rebuild({ fromScratch: true });
    expect(encodeSnapshot(await state.snapshot())).toBe(before);
    expect((await state.verify()).ok).toBe(true);
    // The snapshots were patched, not dropped: every one is still stored, and verify found each equal to the replay.
    expect(heads()).toEqual(expect.arrayContaining(stored));
    expect((await loadSnapshot(state.log, plainCodec, stored.at(-1)!)).skipped).toEqual([]);
    await state.close();
  });

  it('drops the snapshots of earlier formats, which it cannot patch: their text is left in no byte of the file, the -wal or an export', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const state = await openSqlite(path);
    const secret = await state.memory.write({ content: 'Brindlewick hides the ledger' });
    await state.memory.write({ content: 'the plants need water' });
    await state.saveSnapshot();
    await state.memory.write({ content: 'the door sticks' });
    await state.memory.write({ content: 'the gate squeaks' });
    const snapshot = await state.snapshot();
    // Above the snapshot of chunks, a head of parts (format 4) with its memory part, and a whole snapshot (format 3) stored unbound.
    await state.log.saveSnapshot({ stream: `${STATE_STREAM}#memory`, seq: snapshot.seq - 1, data: JSON.stringify({ memory: snapshot.memory }) });
    await state.log.saveSnapshot({ stream: STATE_STREAM, seq: snapshot.seq - 1, data: '{"format":"agentstate.snapshot/4","parts":{},"seq":2}' });
    await state.log.saveSnapshot({ stream: STATE_STREAM, seq: snapshot.seq, data: encodeSnapshot(snapshot) });
    await state.purge({ id: secret.id, reason: 'erasure request 3' });
    expect(rawBytes(path).includes('Brindlewick'), 'in the file, -wal or -shm').toBe(false);
    expect((await exportText(state.log)).includes('Brindlewick'), 'in the export').toBe(false);
    const report = await state.verify();
    expect([report.ok, report.skippedSnapshots]).toEqual([true, []]);
    await state.close();
    expect(rawBytes(path).includes('Brindlewick'), 'in the closed file').toBe(false);
  });

  it('leaves no string a purge policy expired, nor one a purge by text found only in an older version, in the file, the -wal or an export', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const state = await openSqlite(path, { clock, snapshotEvery: 2 });
    const scratch = await state.memory.write({ kind: 'scratch', content: 'Brontosaurine draft of the plan', key: 'Calliopean' });
    await state.memory.update(scratch.id, { content: 'Brontosaurine second draft' });
    const chat = await state.sessions.create({ title: 'kept chat' });
    await state.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: 'the Dirigiblefin code word' });
    const moved = await state.memory.write({ content: 'card Esoterical-4242 on file' });
    await state.memory.update(moved.id, { content: 'card removed' });
    await state.saveSnapshot();
    await state.retention.set({ record: 'memory', memoryKind: 'scratch', maxAge: '1d', action: 'purge' });
    await state.retention.set({ record: 'turn', maxAge: '1d', action: 'purge' });
    clock.advance(24 * 3_600_000);
    const fresh = await state.memory.write({ kind: 'scratch', content: 'a fresh scratch note' });
    const erased = ['Brontosaurine', 'Calliopean', 'Dirigiblefin', 'Esoterical-4242'];
    expect(erased.every((s) => rawBytes(path).includes(s))).toBe(true);
    expect(await state.retention.apply()).toEqual({ sessions: 0, turns: 1, skills: 0, memory: 1 });
    expect((await state.purge({ matching: 'Esoterical-4242', reason: 'card' })).memory).toEqual([moved.id]);
    const raw = rawBytes(path);
    const exported = await exportText(state.log);
    for (const s of erased) {
      expect(raw.includes(s), `${s} in the file`).toBe(false);
      expect(raw.includes(s.toLowerCase().split('-')[0]!), `${s}'s token in the file`).toBe(false);
      expect(exported.includes(s), `${s} in the export`).toBe(false);
    }
    expect((await state.memory.get(fresh.id)).content).toBe('a fresh scratch note');
    expect((await state.sessions.get(chat.id)).title).toBe('kept chat');
    expect((await state.verify()).problems).toEqual([]);
    await state.close();
  });

  it('erases a working memory document found by text, every version of it, from the file, the -wal and an export', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const state = await openSqlite(path, { embedder: createStaticEmbedder(), snapshotEvery: 2 });
    const scope = ['user:ada'];
    const first = await state.workingMemory.replace({ scope, text: '# Ada\n- code name Periwinklestar' });
    await state.workingMemory.patch({ scope, append: '- prefers Quillbeard tea' });
    await state.workingMemory.patch({ scope, find: 'Quillbeard', replace: 'green' });
    await state.workingMemory.replace({ text: 'global plan: ship Friday' });
    const erased = ['Periwinklestar', 'Quillbeard'];
    expect(erased.every((s) => rawBytes(path).includes(s))).toBe(true);
    expect((await state.purge({ matching: 'Periwinklestar', reason: 'erasure request' })).memory).toEqual([first.id]);
    const raw = rawBytes(path);
    const exported = await exportText(state.log);
    for (const s of erased) {
      expect(raw.includes(s), `${s} in the file`).toBe(false);
      expect(raw.includes(s.toLowerCase()), `${s}'s token in the file`).toBe(false);
      expect(exported.includes(s), `${s} in the export`).toBe(false);
    }
    expect(await state.workingMemory.get({ scope })).toBeNull();
    expect((await state.workingMemory.get())?.content).toBe('global plan: ship Friday');
    expect((await state.verify()).problems).toEqual([]);
    await state.close();
    expect(rawBytes(path).includes('Periwinklestar'), 'in the closed file').toBe(false);
  });

  it('leaves no input hash of an erased operation in the file or the -wal, as hex or as bytes, and no row of the operation index keeps one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const state = await openSqlite(path, { snapshotEvery: 4 });
    const item = await state.memory.write({ content: 'Axolotl-Lantern 4410', operationId: 'op-memory' });
    const chat = await state.sessions.create({ title: 'plain chat' });
    const [, turn] = await state.sessions.appendTurns(
      chat.id,
      [
        { role: 'user', content: 'a plain turn' },
        { role: 'user', content: 'Axolotl-Lantern again' },
      ],
      { operationId: 'op-turns' },
    );
    await state.memory.write({ content: 'a kept note', operationId: 'op-kept' });
    await state.saveSnapshot();
    const hashes = new Map(
      (await state.log.read({ stream: STATE_STREAM }))
        .map((event) => (event.payload as { operation?: { id: string; inputHash?: string } }).operation)
        .filter((operation) => operation?.inputHash !== undefined)
        .map((operation) => [operation!.id, operation!.inputHash!]),
    );
    expect([...hashes.keys()].sort()).toEqual(['op-kept', 'op-memory', 'op-turns']);
    await state.purge({ id: item.id, reason: 'request' });
    await state.purge({ id: turn!.id, reason: 'request' });
    await state.close();
    const raw = rawBytes(path);
    for (const id of ['op-memory', 'op-turns']) {
      const hash = hashes.get(id)!;
      expect(raw, `${id} as hex`).not.toContain(hash);
      expect(raw, `${id} as bytes`).not.toContain(Buffer.from(hash, 'hex').toString('latin1'));
    }
    expect(raw).toContain(hashes.get('op-kept')!);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare("SELECT id FROM operations WHERE input_hash <> '' ORDER BY id").all()).toEqual([{ id: 'op-kept' }]);
    } finally {
      db.close();
    }
  });

  it('finds a text by purge --matching wherever a record holds it, and leaves it nowhere in the file, -wal, -shm or an export', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    // Ids, instants and checksums are the same on every run, so no random one can hold the text.
    const state = await openSqlite(path, {
      clock: new ManualClock(Date.UTC(2026, 0, 1)),
      entropy: seededEntropy(18),
      instanceId: 'writer-a',
      snapshotEvery: 4,
    });
    const chat = await state.sessions.create({ title: 'orders' });
    const append = (parts: Part[], metadata?: Record<string, unknown>) =>
      state.sessions.appendTurn({ sessionId: chat.id, role: 'assistant', parts, ...(metadata ? { metadata } : {}) });
    await append([{ type: 'tool-call', callId: 'c1', toolName: 'lookup', input: { order: 1234 } }]);
    await append([{ type: 'reasoning', text: 'they asked about order 1234' }]);
    await append([{ type: 'tool-result', callId: 'c1', toolName: 'lookup', output: { status: 'shipped', order: 1234 }, isError: false }]);
    await append([{ type: 'data', name: 'cart', data: { items: [{ sku: 'A-1234' }] } }]);
    await append([{ type: 'text', text: 'your order 1234 has shipped' }]);
    await append([{ type: 'text', text: 'noted' }], { order: 1234 });
    const kept = await append([{ type: 'text', text: 'anything else?' }]);
    const titled = await state.sessions.create({ title: 'order 1234 follow-up' });
    await state.sessions.appendTurn({ sessionId: titled.id, role: 'user', content: 'any news?' });
    await state.sessions.create({ title: 'billing', metadata: { order: 1234 } });
    await state.skills.upsert({ slug: 'refunds', name: 'Refund 1234', body: 'steps' });
    await state.skills.upsert({ slug: 'returns', body: 'look up order 1234 first' });
    await state.memory.write({ content: 'customer prefers email', key: 'order-1234' });
    await state.memory.write({ content: 'customer is in Lisbon', metadata: { orders: [1234] } });
    await state.saveSnapshot();
    expect(rawBytes(path)).toContain('1234');

    const result = await state.purge({ matching: '1234', reason: 'erasure request 18' });
    expect([result.sessions.length, result.turns.length, result.skills.length, result.memory.length]).toEqual([2, 7, 2, 2]);
    await state.sessions.create({ title: 'a commit after the purge' });
    expect(rawBytes(path).includes('1234'), '1234 in the file, -wal or -shm').toBe(false);
    expect((await exportText(state.log)).includes('1234'), '1234 in the export').toBe(false);
    expect((await state.sessions.turns(chat.id)).map((t) => t.id)).toEqual([kept.id]);
    expect((await state.verify()).problems).toEqual([]);
    await state.close();
    expect(rawBytes(path).includes('1234'), '1234 in the closed file').toBe(false);
  });

  it("verify reports an erasedBy no purge made true, written into the file with the row's checksum", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-mark-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const state = await openSqlite(path);
    await state.memory.write({ content: 'an intact fact' });
    await state.close();
    const db = new Database(path);
    const row = db.prepare('SELECT * FROM events WHERE stream = ? AND seq = 1').get(STATE_STREAM) as EventRow;
    const forged = { ...row, payload: JSON.stringify({ ...JSON.parse(row.payload), erasedBy: 999999 }) };
    db.prepare('UPDATE events SET payload = ?, checksum = ? WHERE stream = ? AND seq = 1').run(forged.payload, rowChecksum(forged), STATE_STREAM);
    db.close();
    const reopened = await openSqlite(path);
    const report = await reopened.verify();
    expect(report.problems).toEqual([
      {
        part: 'log',
        object: 'events',
        message: 'a purge mark is false: event 1 is marked erased by 999999, but the log ends at seq 1',
        repair: 'restore-backup',
      },
    ]);
    await reopened.close();
  });

  it('removes the folded tokens of a purged item from the full-text pages', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-fts-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const state = await openSqlite(path);
    // Many small commits leave the index in many segments, which only a merge would fold together.
    for (let i = 0; i < 60; i += 1) await state.memory.write({ content: `routine note ${i} about builds` });
    const secret = await state.memory.write({ content: 'Kumquatvessel Whirligrain' });
    await state.memory.write({ content: 'Umbrellafish stays' });
    for (let i = 0; i < 60; i += 1) await state.memory.write({ content: `later note ${i}` });
    await state.purge({ id: secret.id, reason: 'erasure' });
    const raw = rawBytes(path);
    // Folded tokens live only in the index (the rows and events keep the original case): the control is found.
    expect(raw.includes('umbrellafish')).toBe(true);
    expect(raw.includes('kumquatvessel'), 'a token in the file or -wal').toBe(false);
    expect(raw.includes('whirligrain'), 'a token in the file or -wal').toBe(false);
    expect((await state.verify()).problems).toEqual([]);
    await state.close();
  });

  it('removes the folded tokens of every version of a purged item from the full-text pages after many updates of other items', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-fts-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const state = await openSqlite(path);
    const secret = await state.memory.write({ content: 'Quagmorel Yttrivane', key: 'vault' });
    const moved = await state.memory.write({ content: 'Zephyrcask Jovalith', key: 'door' });
    // A delete leaves the old version's tokens behind a marker: this item's first text is in no live row.
    await state.memory.update(moved.id, { content: 'the door is painted' });
    await state.memory.write({ content: 'Umbrellafish stays' });
    for (let round = 0; round < 8; round += 1)
      for (let i = 0; i < 30; i += 1) await state.memory.write({ content: `note ${i} of round ${round} about builds`, key: `note-${i}` });
    await state.purge({ id: secret.id, reason: 'erasure' });
    await state.purge({ id: moved.id, reason: 'erasure' });
    const raw = rawBytes(path);
    expect(raw.includes('umbrellafish')).toBe(true);
    for (const token of ['quagmorel', 'yttrivane', 'zephyrcask', 'jovalith']) expect(raw.includes(token), `${token} in the file or -wal`).toBe(false);
    expect((await state.verify()).problems).toEqual([]);
    await state.close();
  });

  it('answers history from the index, and verify catches an index that lost a row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-history-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const state = await openSqlite(path);
    const item = await state.memory.write({ content: 'v1' });
    await state.memory.write({ content: 'other' });
    await state.memory.update(item.id, { content: 'v2' });
    expect((await state.history(item.id)).map((v) => [v.seq, v.type])).toEqual([
      [1, 'memory.written'],
      [3, 'memory.updated'],
    ]);
    await state.rebuild();
    expect((await state.history(item.id)).map((v) => v.seq)).toEqual([1, 3]);
    await state.saveSnapshot();
    await state.memory.delete(item.id);
    await state.rebuild();
    expect((await state.history(item.id)).map((v) => v.seq)).toEqual([1, 3, 4]);
    expect((await state.verify()).ok).toBe(true);
    await state.close();
    const db = new Database(path);
    db.prepare('DELETE FROM record_events WHERE seq = 3').run();
    db.close();
    const again = await openSqlite(path);
    const report = await again.verify();
    expect(report.problems.map((p) => p.object)).toEqual(['record_events']);
    await again.rebuild({ fromScratch: true });
    expect((await again.verify()).ok).toBe(true);
    await again.close();
  });

  it('refills a history index that lost and gained rows before the snapshot when it rebuilds from that snapshot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-history-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const state = await openSqlite(path);
    const s = await state.sessions.create({ title: 'kept' });
    await state.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'a' });
    const item = await state.memory.write({ content: 'v1' });
    await state.saveSnapshot();
    await state.memory.update(item.id, { content: 'v2' });
    await state.close();
    const db = new Database(path);
    db.prepare('DELETE FROM record_events WHERE record_id = ?').run(s.id);
    db.prepare("INSERT INTO record_events (record_id, seq) VALUES ('ghost', 1)").run();
    db.close();
    const again = await openSqlite(path);
    const report = await again.verify();
    expect(report.problems.map((p) => p.object)).toEqual(['record_events']);
    expect(report.problems[0]!.message).toContain('"ghost"');
    expect(await again.rebuild()).toMatchObject({ snapshotSeq: 3, events: 1 });
    expect((await again.verify()).ok).toBe(true);
    expect((await again.history(s.id)).map((v) => v.seq)).toEqual([1, 2]);
    expect((await again.history(item.id)).map((v) => v.seq)).toEqual([3, 4]);
    await again.close();
  });

  it("drops the erased text's cached embeddings under every embedder that cached it, and no other entry", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-cache-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const embedders = [bagOfWordsEmbedder(8, 'words-a'), bagOfWordsEmbedder(8, 'words-b'), bagOfWordsEmbedder(8, 'words-c')];
    let secretId = '';
    for (const embedder of embedders) {
      const state = await openSqlite(path, { embedder });
      if (secretId === '') {
        secretId = (await state.memory.write({ content: 'Grimsditch owes a favour' })).id;
        await state.memory.write({ content: 'the standup is at nine' });
      }
      // A hybrid recall embeds every item under this embedder: each text is cached once per embedder.
      await state.memory.recall({ query: 'favour standup', mode: 'hybrid' });
      await state.close();
    }
    const entries = () => {
      const db = new Database(path, { readonly: true });
      const rows = db.prepare('SELECT embedder_id, content_hash FROM embedding_cache ORDER BY embedder_id, content_hash').all();
      db.close();
      return rows;
    };
    const kept = (rows: unknown[]) => rows.filter((row) => (row as { content_hash: string }).content_hash === contentHash('the standup is at nine'));
    expect(entries()).toHaveLength(6);
    const state = await openSqlite(path, { embedder: embedders[0] });
    await state.purge({ id: secretId, reason: 'test' });
    await state.close();
    expect(entries()).toEqual(kept(entries()));
    expect(entries().map((row) => (row as { embedder_id: string }).embedder_id)).toEqual(['words-a', 'words-b', 'words-c']);
  });

  it('leaves no byte of a session purged on one file while another file renamed, compacted and appended to it, once the two synced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-sync-'));
    dirs.push(dir);
    const a = await openSqlite(join(dir, 'a.db'), { snapshotEvery: 2 });
    const b = await openSqlite(join(dir, 'b.db'), { snapshotEvery: 2 });
    const chat = await a.sessions.create({ title: 'Vorpalsword consultation', metadata: { ledger: 'Xylographic' } });
    const told = await a.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: 'my passphrase is Jabberwocky-77' });
    await sync(a, b);
    // Written on the second file apart from the purge on the first: its versions of the session arrive after it there.
    await b.sessions.update(chat.id, { title: 'Vorpalsword, renamed', metadata: { ledger: 'Quetzalfeather' } });
    await b.sessions.compact(chat.id, { through: told.id, summary: 'the user named Bandersnatch-Nine' });
    await b.sessions.appendTurn({ sessionId: chat.id, role: 'user', content: 'a later question about tea' });
    await b.saveSnapshot();
    await a.purge({ id: chat.id, reason: 'erasure request' });
    await sync(a, b);
    for (const state of [a, b]) {
      expect((await state.verify()).problems).toEqual([]);
      await state.close();
    }
    for (const name of ['a.db', 'b.db']) {
      const raw = rawBytes(join(dir, name));
      expect(raw.includes('a later question about tea'), `the turn appended apart in ${name}`).toBe(true);
      for (const s of ['Vorpalsword', 'Xylographic', 'Jabberwocky-77', 'Quetzalfeather', 'Bandersnatch-Nine']) {
        expect(raw.includes(s), `${s} in ${name}`).toBe(false);
        expect(raw.includes(s.toLowerCase().split('-')[0]!), `${s}'s token in ${name}`).toBe(false);
      }
    }
  });

  it("leaves the erased text on disk while another connection reads a snapshot from before the purge, and empties the -wal at this provider's next commit or close", async () => {
    for (const after of ['next commit', 'close'] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'agentstate-purge-reader-'));
      dirs.push(dir);
      const path = join(dir, 'state.db');
      // The checkpoint does not wait for the reader below: it gives up on it at once.
      const state = await openSqlite(path);
      const secret = await state.memory.write({ content: 'Pemberton keeps the spare key' });
      await state.memory.write({ content: 'the standup is at nine' });
      const reader = new Database(path, { readonly: true });
      reader.prepare('BEGIN').run();
      reader.prepare('SELECT count(*) FROM events').get();
      await state.purge({ id: secret.id, reason: 'test' });
      // What the reader may still read stays: the purge could not copy its pages over the old ones.
      expect(rawBytes(path).includes('Pemberton'), `${after}: on disk while the reader reads`).toBe(true);
      reader.prepare('COMMIT').run();
      if (after === 'next commit') await state.memory.write({ content: 'the retro is on friday' });
      await state.close();
      expect(rawBytes(path).includes('Pemberton'), `${after}: on disk once the reader is done`).toBe(false);
      reader.close();
    }
  });
});
