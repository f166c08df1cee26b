/**
 * Opening read-only, and the checks of the file before SQLite sees it: a
 * read-only open never creates, upgrades or writes, and an empty, truncated
 * or foreign file is refused with a typed error and left byte for byte as
 * it was (defect 6 of the hardening issue).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStaticEmbedder } from '@agentstate/embeddings';
import { DatabaseNotFoundError, IncompatibleDatabaseError, NotAFileError, openSqlite, openSqliteLog, ReadOnlyError } from '../src/index.js';
import { bagOfWordsEmbedder, schema13File, tempDir } from './helpers.js';

const hash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

async function refusal(open: () => unknown): Promise<IncompatibleDatabaseError> {
  try {
    await open();
  } catch (error) {
    expect(error).toBeInstanceOf(IncompatibleDatabaseError);
    return error as IncompatibleDatabaseError;
  }
  throw new Error('the open did not fail');
}

/** A complete database with a session and a memory, closed cleanly (no -wal left). */
async function seeded(path: string): Promise<void> {
  const db = await openSqlite(path);
  await db.sessions.create({ title: 'kept' });
  await db.memory.write({ content: 'the user prefers dark mode' });
  await db.close();
}

describe('a read-only open', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());

  it('refuses a 0-byte file as empty and writes nothing into it', async () => {
    const path = tmp.file();
    writeFileSync(path, '');
    for (const open of [() => openSqlite(path, { readonly: true }), () => openSqliteLog(path, { readonly: true })]) {
      const error = await refusal(open);
      expect(error.reason).toBe('empty');
      expect(error.message).toContain(`${path}: is empty (0 bytes)`);
    }
    expect(readFileSync(path).length).toBe(0);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it.each([
    ['a cut page', (path: string) => truncateSync(path, 4096 + 100), 'truncated', /is truncated: 4196 bytes/],
    ['whole pages cut off', (path: string) => truncateSync(path, 4096 * 2), 'truncated', /is truncated: 8192 bytes, its header says \d+/],
    ['a cut header', (path: string) => truncateSync(path, 60), 'truncated', /is truncated: 60 bytes, shorter than a SQLite header/],
    ['text', (path: string) => writeFileSync(path, 'hello, this is not a database\n'.repeat(10)), 'not-sqlite', /is not a SQLite database/],
  ])('refuses %s, read-only or not, and leaves the file unchanged', async (_name, damage, reason, message) => {
    const path = tmp.file();
    await seeded(path);
    damage(path);
    const before = hash(path);
    for (const readonly of [true, false]) {
      const error = await refusal(() => openSqlite(path, { readonly }));
      expect(error.reason).toBe(reason);
      expect(error.message).toMatch(message);
      expect(hash(path)).toBe(before);
    }
  });

  it('never creates a missing file, and names a folder given as the path', async () => {
    const path = tmp.file('missing.db');
    await expect(openSqlite(path, { readonly: true })).rejects.toThrow(DatabaseNotFoundError);
    await expect(openSqlite(tmp.file('no-folder/x.db'), { readonly: true })).rejects.toThrow(/the folder .*no-folder does not exist/);
    expect(existsSync(path)).toBe(false);
    await expect(openSqlite(tmp.dir, { readonly: true })).rejects.toThrow(NotAFileError);
    await expect(openSqlite(tmp.dir)).rejects.toThrow(/it is a folder, not a database file/);
  });

  it('reads a current database, refuses every write with ReadOnlyError, and changes no byte of it', async () => {
    const path = tmp.file();
    await seeded(path);
    const before = hash(path);
    const db = await openSqlite(path, { readonly: true });
    expect(await db.sessions.list()).toHaveLength(1);
    expect((await db.memory.recall({ query: 'dark' })).map((h) => h.content)).toEqual(['the user prefers dark mode']);
    await expect(db.memory.write({ content: 'refused' })).rejects.toThrow(ReadOnlyError);
    await expect(db.saveSnapshot()).rejects.toThrow(ReadOnlyError);
    await expect(db.rebuild()).rejects.toThrow(ReadOnlyError);
    await db.close();
    const log = openSqliteLog(path, { readonly: true });
    expect(await log.head('state')).toBe(2);
    await expect(log.append({ stream: 'other', type: 'x', payload: {} })).rejects.toThrow(/cannot write .*: the file is read-only, or was opened read-only/);
    await log.close();
    expect(hash(path)).toBe(before);
  });

  it('refuses a file an earlier version wrote, whose tables must be folded again, saying to open it writable once, and writes nothing', async () => {
    const path = schema13File(tmp.file());
    const before = hash(path);
    for (const open of [() => openSqlite(path, { readonly: true }), () => openSqliteLog(path, { readonly: true })]) {
      const error = await refusal(open);
      expect(error.reason).toBe('needs-migration');
      expect(error.message).toMatch(/was written by an earlier version .*folded again from its log, which writes; open it writable once first/);
    }
    expect(hash(path)).toBe(before);
    await (await openSqlite(path)).close();
    const p = await openSqlite(path, { readonly: true });
    expect((await p.sessions.list()).length).toBeGreaterThan(0);
    await p.close();
  });

  it('refuses tables behind the log instead of answering from stale tables', async () => {
    const path = tmp.file();
    await seeded(path);
    const log = openSqliteLog(path);
    const copy = await openSqlite(':memory:');
    await copy.sessions.create({ title: 'appended to the bare log' });
    const [event] = await copy.log.read({ stream: 'state', afterSeq: 0, limit: 1 });
    await copy.close();
    await log.append({ stream: 'state', type: event!.type, payload: event!.payload, time: event!.time });
    await log.close();
    const error = await refusal(() => openSqlite(path, { readonly: true }));
    expect(error.reason).toBe('behind-log');
    expect(error.message).toMatch(/has tables 1 events behind its log: open it writable once/);
    const writable = await openSqlite(path);
    expect(await writable.sessions.list()).toHaveLength(2);
    await writable.close();
  });

  it('recalls semantically items that have no stored vector yet, without storing one', async () => {
    const path = tmp.file();
    await seeded(path);
    const copy = tmp.file('copy.db');
    copyFileSync(path, copy);
    const before = hash(path);
    const db = await openSqlite(path, { readonly: true, embedder: createStaticEmbedder() });
    const hits = await db.memory.recall({ query: 'user likes a dark theme', mode: 'semantic', order: 'relevance' });
    expect(hits.map((h) => h.content)).toEqual(['the user prefers dark mode']);
    await db.close();
    expect(hash(path)).toBe(before);
    // The same answer as a writable open, which stores the vector.
    const writable = await openSqlite(copy, { embedder: createStaticEmbedder() });
    const stored = await writable.memory.recall({ query: 'user likes a dark theme', mode: 'semantic', order: 'relevance' });
    expect(stored.map((h) => [h.content, h.score.toFixed(6)])).toEqual(hits.map((h) => [h.content, h.score.toFixed(6)]));
    await writable.close();
  });
  it('filters vectors held in memory by scope, descendants, kind, session and role as stored ones are filtered', async () => {
    const path = tmp.file();
    const plain = await openSqlite(path);
    for (const scope of [['org:a'], ['org:a', 'team:x'], ['org:b']]) {
      for (const kind of ['fact', 'preference'] as const) await plain.memory.write({ content: `dark theme ${kind} in ${scope.join('/')}`, scope, kind });
    }
    const session = await plain.sessions.create({ title: 'kept' });
    await plain.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'dark theme please' });
    await plain.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: 'dark theme set' });
    await plain.sessions.appendTurn({ sessionId: (await plain.sessions.create({ title: 'other' })).id, role: 'user', content: 'dark theme too' });
    await plain.close();
    const copy = tmp.file('copy.db');
    copyFileSync(path, copy);
    const answers = async (file: string, readonly: boolean) => {
      const db = await openSqlite(file, { readonly, embedder: bagOfWordsEmbedder() });
      try {
        const recalled = async (filter: object) =>
          (await db.memory.recall({ query: 'dark theme', mode: 'semantic', order: 'relevance', ...filter })).map((h) => h.content).sort();
        const searched = async (filter: object) =>
          (await db.sessions.search({ query: 'dark theme', mode: 'semantic', order: 'relevance', ...filter })).map((h) => h.turn.content).sort();
        return [
          await recalled({ scope: ['org:a'] }),
          await recalled({ scope: ['org:a'], includeDescendants: true, kinds: ['fact'] }),
          await searched({ sessionId: session.id, roles: ['assistant'] }),
        ];
      } finally {
        await db.close();
      }
    };
    const read = await answers(path, true);
    expect(read).toEqual([
      ['dark theme fact in org:a', 'dark theme preference in org:a'],
      ['dark theme fact in org:a', 'dark theme fact in org:a/team:x'],
      ['dark theme set'],
    ]);
    expect(await answers(copy, false)).toEqual(read);
  });

  it('searches transcripts semantically and hybrid, stored turn vectors and missing ones alike, without storing one', async () => {
    const path = tmp.file();
    const writer = await openSqlite(path, { embedder: bagOfWordsEmbedder() });
    const embedded = await writer.sessions.create({ title: 'embedded' });
    await writer.sessions.appendTurn({ sessionId: embedded.id, role: 'user', content: 'the staging deploy failed on friday' });
    await writer.sessions.appendTurn({ sessionId: embedded.id, role: 'assistant', content: 'rolled back the release' });
    await writer.close();
    // Turns written without an embedder have no stored vector: a read-only search embeds them in memory.
    const plain = await openSqlite(path);
    const later = await plain.sessions.create({ title: 'plain' });
    await plain.sessions.appendTurn({ sessionId: later.id, role: 'user', content: 'why did the staging deploy fail' });
    const gone = await plain.sessions.create({ title: 'deleted' });
    await plain.sessions.appendTurn({ sessionId: gone.id, role: 'user', content: 'the staging deploy failed' });
    await plain.sessions.delete(gone.id);
    await plain.close();
    const copy = tmp.file('copy.db');
    copyFileSync(path, copy);
    const before = hash(path);
    const answers = async (file: string, readonly: boolean) => {
      const db = await openSqlite(file, { readonly, embedder: bagOfWordsEmbedder() });
      try {
        const out = [];
        for (const mode of ['semantic', 'hybrid'] as const) {
          const hits = await db.sessions.search({ query: 'staging deploy failed', mode, order: 'relevance' });
          out.push(hits.map((h) => [h.session.title, h.turn.content, h.score.toFixed(6)]));
        }
        return out;
      } finally {
        await db.close();
      }
    };
    const read = await answers(path, true);
    expect(hash(path)).toBe(before);
    expect([...new Set(read[0]!.map(([title]) => title))].sort()).toEqual(['embedded', 'plain']);
    // The same answers as a writable open, which stores the missing vectors.
    expect(await answers(copy, false)).toEqual(read);
  });
});
